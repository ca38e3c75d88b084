# codes: TPL303
import torch
from torch import nn

scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)  # expect: TPL303
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
