# codes: TPL207
import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model)
for i, (x, y) in enumerate(loader):
    last = (i + 1) % accum == 0
    ctx = contextlib.nullcontext() if last else model.no_sync()
    with ctx:
        loss = criterion(model(x), y) / accum
        loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
