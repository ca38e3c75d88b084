# codes: TPL302
import torch
from torch.amp import GradScaler

scaler = GradScaler("cuda")


def train_step(model, x, y, optimizer):
    with torch.autocast("cuda"):
        loss = model(x, y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # expect: TPL302
    optimizer.zero_grad()
