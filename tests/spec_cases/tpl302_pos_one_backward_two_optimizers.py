# codes: TPL302
import torch

scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = criterion(head(backbone(x)), y)
    scaler.scale(loss).backward()
    scaler.step(opt_backbone)
    opt_head.step()  # expect: TPL302
    scaler.update()
