# codes: TPL102
import torch


def evaluate(model, loader):
    total_loss = 0.0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            total_loss += float(loss)  # expect: TPL102
    return total_loss
