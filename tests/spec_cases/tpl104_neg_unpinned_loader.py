# codes: TPL104
import torch
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=128, num_workers=8)
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
