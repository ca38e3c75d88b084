# codes: TPL104
import torch
from torch.utils.data import DataLoader

use_cuda = torch.cuda.is_available()
a = DataLoader(ds, batch_size=8, num_workers=2, pin_memory=False)
b = DataLoader(ds, batch_size=8, num_workers=2, pin_memory=use_cuda)
for x, y in a:
    x = x.cuda()
    y = y.to("cuda")
