# codes: TPL204
import torch
from torch.utils.data import DataLoader, DistributedSampler


class DataModule:
    def setup(self, train_ds):
        self.train_sampler = DistributedSampler(train_ds)
        self.loader = DataLoader(train_ds, sampler=self.train_sampler, batch_size=32, num_workers=4)


def make(train_ds):
    holder = Holder()
    sampler = DistributedSampler(train_ds)
    holder.sampler = sampler
    return holder
