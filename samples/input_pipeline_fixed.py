"""The input pipeline with worker processes, pinned memory, and inference mode for evaluation."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = "cuda"


class CsvRows(Dataset):
    """One sample per line of a CSV file, parsed when it is read (as an image is decoded)."""

    def __init__(self, path):
        with open(path) as handle:
            self.lines = handle.read().splitlines()

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        values = [float(v) for v in self.lines[index].split(",")]
        return torch.tensor(values[:-1]), torch.tensor(values[-1:])


train_set = CsvRows("train.csv")
val_set = CsvRows("val.csv")
train_loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=4, pin_memory=True)
val_loader = DataLoader(val_set, batch_size=256, num_workers=2, pin_memory=True)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)


@torch.inference_mode()
def evaluate():
    model.eval()
    losses = []
    for x, y in val_loader:
        pred = model(x.to(device, non_blocking=True))
        losses.append(nn.functional.mse_loss(pred, y.to(device, non_blocking=True)))
    return torch.stack(losses).mean()
