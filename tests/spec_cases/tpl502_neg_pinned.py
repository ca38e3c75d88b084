# codes: TPL502
import torch
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True)
for x, y in loader:
    x = x.cuda(non_blocking=True)
