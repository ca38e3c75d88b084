# codes: TPL104
import torch
from torch.utils.data import DataLoader

train_loader = DataLoader(train_ds, batch_size=32, num_workers=4, pin_memory=True)
eval_loader = DataLoader(eval_ds, batch_size=64, num_workers=4)


def evaluate(model, loader, device):
    for batch in loader:
        batch = tuple(t.to(device) for t in batch)
        model(*batch)


def train(model, ema, device):
    for x, y in train_loader:
        x = x.to(device, non_blocking=True)
        model(x).sum().backward()
        ema.to(device)
        model.to(device)
    evaluate(model, eval_loader, device)
