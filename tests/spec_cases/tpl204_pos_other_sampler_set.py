# codes: TPL204
import torch
from torch.utils.data import DistributedSampler

train_sampler = DistributedSampler(train_ds)
aux_sampler = DistributedSampler(aux_ds)  # expect: TPL204
for epoch in range(epochs):
    train_sampler.set_epoch(epoch)
    train(epoch)
