# codes: TPL304
import torch
from torch.amp import GradScaler, autocast

scaler = torch.amp.GradScaler("cuda")
scaler2 = GradScaler("cuda")
with torch.autocast("cuda", dtype=torch.float16):
    y = model(x)
with torch.amp.autocast("cuda"):
    y = model(x)
with autocast("cuda"):
    y = model(x)
