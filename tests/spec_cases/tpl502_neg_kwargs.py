# codes: TPL502
import torch
from torch.utils.data import DataLoader

kw = {"num_workers": 4, "pin_memory": True}
loader = DataLoader(ds, batch_size=32, **kw)
for x, y in loader:
    x = x.to("cuda")
