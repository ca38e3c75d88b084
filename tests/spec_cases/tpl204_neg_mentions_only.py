# codes: TPL204
"""Use DistributedSampler(ds) and call set_epoch."""
import torch
from torch.utils.data import DistributedSampler

# sampler = DistributedSampler(ds)
NAME = "DistributedSampler(ds)"


def is_dist(loader) -> bool:
    return isinstance(loader.sampler, DistributedSampler)
