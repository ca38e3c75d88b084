# codes: TPL204
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler as DS


def make_loader(ds, rank, world):
    sampler = DS(ds, num_replicas=world, rank=rank, shuffle=True)  # the loader is returned: the caller runs the epochs
    return DataLoader(ds, batch_size=8, sampler=sampler, num_workers=2)
