# codes: TPL104
# A settings dict that pins, splatted into the loader (the PyTorch examples' and pytorch-flows'
# ``kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}``): the loader is made with
# pin_memory=True (rules.md TPL104; the lead's reading R26, 2026-11-27).
import torch

kwargs = {"num_workers": 4, "pin_memory": True}
loader = torch.utils.data.DataLoader(ds, batch_size=32, **kwargs)
for x, y in loader:
    x = x.to(device)  # expect: TPL104
    y = y.to(device)  # expect: TPL104
    out = model(x)
