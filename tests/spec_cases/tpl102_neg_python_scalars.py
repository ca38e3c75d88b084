# codes: TPL102
import torch

lr = 0.1
batch_size = "32"
for epoch in range(3):
    current_lr = float(lr)
    bs = int(batch_size)
    print(epoch, current_lr, bs)
