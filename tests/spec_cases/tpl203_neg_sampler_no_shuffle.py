# codes: TPL203
import torch
from torch.utils.data import DataLoader, DistributedSampler

sampler = DistributedSampler(train_set, shuffle=True)
loader = DataLoader(train_set, batch_size=64, sampler=sampler, shuffle=False)
loader2 = DataLoader(train_set, batch_size=64, sampler=sampler)
sampler.set_epoch(0)
