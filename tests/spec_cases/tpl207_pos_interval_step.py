# codes: TPL207
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[local_rank])
for i, (x, y) in enumerate(loader):
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    loss = criterion(model(x), y) / accum_steps
    loss.backward()  # expect: TPL207
    if (i + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
