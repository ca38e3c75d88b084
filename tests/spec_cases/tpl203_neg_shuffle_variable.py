# codes: TPL203
import torch
from torch.utils.data import DataLoader, DistributedSampler

sampler = DistributedSampler(ds) if distributed else None
loader = DataLoader(ds, batch_size=32, shuffle=(sampler is None), sampler=sampler)
loader_b = DataLoader(ds, batch_size=32, shuffle=args.shuffle, sampler=sampler)
