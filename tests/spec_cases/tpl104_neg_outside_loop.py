# codes: TPL104
import torch
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True)
x, y = next(iter(loader))
x = x.to("cuda")
y = y.cuda()
