"""Input pipeline pitfalls (TPL501, TPL502, TPL602): loading in the main process, pageable memory,
and evaluation with autograd on."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = "cuda"
train_set = TensorDataset(torch.randn(2048, 20), torch.randn(2048, 1))
val_set = TensorDataset(torch.randn(256, 20), torch.randn(256, 1))
train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
val_loader = DataLoader(val_set, batch_size=256, num_workers=0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)


def evaluate():
    model.eval()
    losses = []
    for x, y in val_loader:
        pred = model(x.to(device))
        losses.append(nn.functional.mse_loss(pred, y.to(device)))
    return torch.stack(losses).mean()
