# codes: TPL501
import os
import torch
from torch.utils.data import DataLoader

a = DataLoader(ds, batch_size=64, num_workers=4)
b = DataLoader(ds, batch_size=64, num_workers=args.workers)
c = DataLoader(ds, batch_size=64, num_workers=os.cpu_count())
d = DataLoader(ds, batch_size=64, num_workers=1)
