# codes: TPL102
# xfail: linter bug: int(t) on a tensor expression `(logits.argmax(1) == y).sum()` (logits = model(x)) in a loop is missed (spec TPL102: float(t)/int(t)/bool(t) on a tensor)
import torch


def evaluate(model, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            correct += int((logits.argmax(dim=1) == y).sum())  # expect: TPL102
    return correct
