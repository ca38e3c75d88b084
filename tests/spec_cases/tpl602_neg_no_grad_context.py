# codes: TPL602
import torch


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
    with torch.inference_mode():
        for x, y in loader:
            out = model(x)
    return out
