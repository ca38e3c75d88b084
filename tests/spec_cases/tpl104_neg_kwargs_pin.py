# codes: TPL104
import torch

kwargs = {"num_workers": 4, "pin_memory": True}
loader = torch.utils.data.DataLoader(ds, batch_size=32, **kwargs)
for x, y in loader:
    x = x.to(device)
    y = y.to(device)
    out = model(x)
