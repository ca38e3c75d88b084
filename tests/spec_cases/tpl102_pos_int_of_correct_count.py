# codes: TPL102
import torch


def evaluate(model, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            correct += int((logits.argmax(dim=1) == y).sum())  # expect: TPL102
    return correct
