# codes: TPL302
import torch


def train_fp32(model, loader, optimizer):
    for x, y in loader:
        loss = model(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def train_amp(model, loader, optimizer, scaler):
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
