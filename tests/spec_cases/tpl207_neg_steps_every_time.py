# codes: TPL207
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model)
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if i % 50 == 0:
        scheduler.step()
        print(f"step {i}")
