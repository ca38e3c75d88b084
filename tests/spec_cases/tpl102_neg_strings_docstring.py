# codes: TPL102
import torch


def train(model, loader, optimizer):
    """Avoid loss.item() and torch.cuda.synchronize() in this loop."""
    for x, y in loader:
        # do not call loss.item() here
        loss = model(x, y)
        loss.backward()
        optimizer.step()
        msg = "loss.item() would sync"
