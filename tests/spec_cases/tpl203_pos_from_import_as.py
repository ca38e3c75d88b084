# codes: TPL203
from torch.utils.data import DataLoader as DL, SubsetRandomSampler

idx = list(range(1000))
dl = DL(ds, batch_size=16, shuffle=True, sampler=SubsetRandomSampler(idx))  # expect: TPL203
