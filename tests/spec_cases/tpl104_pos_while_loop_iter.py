# codes: TPL104
import torch
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=16, num_workers=4, pin_memory=True)
it = iter(loader)
device = torch.device("cuda:0")
step = 0
while step < 1000:
    x, y = next(it)
    x = x.to(device)  # expect: TPL104
    y = y.to(device=device)  # expect: TPL104
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    step += 1
