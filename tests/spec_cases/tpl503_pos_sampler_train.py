# codes: TPL503
import torch as T
from torch.utils.data import DataLoader, DistributedSampler

backbone = T.nn.Sequential(T.nn.Conv2d(3, 64, 7), T.nn.BatchNorm2d(64))
sampler = DistributedSampler(train_ds)
train_loader = DataLoader(train_ds, batch_size=32, sampler=sampler, num_workers=4)  # expect: TPL503
for epoch in range(10):
    sampler.set_epoch(epoch)
    for x, y in train_loader:
        loss = backbone(x).mean()
        loss.backward()
