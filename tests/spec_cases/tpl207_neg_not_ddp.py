# codes: TPL207
import torch
from accelerate import Accelerator

# "DistributedDataParallel" appears only in this comment: no model is wrapped here.
model = torch.nn.DataParallel(model)
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
