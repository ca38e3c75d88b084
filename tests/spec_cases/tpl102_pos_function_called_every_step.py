# codes: TPL102
import torch


def log_loss_dict(losses):
    for key, value in losses.items():
        print(key, value.mean().item())  # expect: TPL102


def train(model, loader, optimizer):
    for batch in loader:
        losses = model(batch.cuda())
        losses["loss"].backward()
        optimizer.step()
        log_loss_dict(losses)
