# codes: TPL207
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model)
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    if i % 2 == 0:
        loss.backward()       # runs on its own interval: a different pattern
        if i % 4 == 0:
            optimizer.step()
