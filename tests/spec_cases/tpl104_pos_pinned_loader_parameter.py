# codes: TPL104
import torch
from torch.utils.data import DataLoader

test_loader = DataLoader(test_ds, batch_size=256, num_workers=4, pin_memory=True)


def evaluate(model, loader, device):
    correct = 0
    for x, y in loader:
        out = model(x.to(device))  # expect: TPL104
        correct += (out.argmax(1) == y.to(device, non_blocking=True)).sum()
    return correct


evaluate(model, test_loader, "cuda")
