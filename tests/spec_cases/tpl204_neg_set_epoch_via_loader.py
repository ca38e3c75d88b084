# codes: TPL204
import torch
from torch.utils.data import DataLoader, DistributedSampler


def build(ds):
    return DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds), num_workers=4)


loader = build(train_ds)
for epoch in range(epochs):
    if isinstance(loader.sampler, DistributedSampler):
        loader.sampler.set_epoch(epoch)
    run_epoch(loader)
