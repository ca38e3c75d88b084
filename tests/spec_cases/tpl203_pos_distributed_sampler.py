# codes: TPL203
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

sampler = DistributedSampler(train_set)
loader = DataLoader(train_set, batch_size=64, sampler=sampler, shuffle=True, num_workers=4)  # expect: TPL203
