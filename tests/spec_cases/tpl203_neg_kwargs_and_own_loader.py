# codes: TPL203
import torch


class DataLoader:
    def __init__(self, ds, sampler=None, shuffle=False):
        self.ds = ds


loader_kwargs = {"shuffle": True}
a = torch.utils.data.DataLoader(ds, sampler=sampler, **loader_kwargs)
b = DataLoader(ds, sampler=sampler, shuffle=True)
