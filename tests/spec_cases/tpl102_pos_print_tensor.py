# codes: TPL102
import torch
import torch.nn.functional as F

for epoch in range(10):
    for x, y in train_loader:
        out = model(x)
        loss = F.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(loss)  # expect: TPL102
