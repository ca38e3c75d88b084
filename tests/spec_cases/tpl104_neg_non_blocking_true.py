# codes: TPL104
import torch
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=128, num_workers=8, pin_memory=True)
for x, y in loader:
    x = x.to("cuda", non_blocking=True)
    y = y.cuda(non_blocking=True)
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
