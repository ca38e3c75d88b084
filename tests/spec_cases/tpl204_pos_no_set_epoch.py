# codes: TPL204
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

train_sampler = DistributedSampler(train_dataset)  # expect: TPL204
train_loader = DataLoader(train_dataset, batch_size=32, sampler=train_sampler, num_workers=4)
for epoch in range(epochs):
    for x, y in train_loader:
        step(x, y)
