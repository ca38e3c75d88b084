# codes: TPL304
import torch
from torch.cuda.amp import autocast, GradScaler  # expect: TPL304


def build(args):
    return GradScaler(enabled=args.amp)


def train_step(model, optimizer, scaler, x, y):
    with autocast():
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
