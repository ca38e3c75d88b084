# codes: TPL303
import torch
from torch.nn.utils import clip_grad_norm_

scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grad_norm = clip_grad_norm_(model.parameters(), float("inf"))
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
