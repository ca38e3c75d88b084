# codes: TPL602
import torch


def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x.to(device))  # expect: TPL602
        correct += (out.argmax(1) == y.to(device)).sum()
    return correct
