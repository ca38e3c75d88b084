# codes: TPL502
import torch
from torch.utils.data import DataLoader


def get_loaders(train_ds, val_ds):
    train_loader = DataLoader(train_ds, batch_size=32, shuffle=True, num_workers=4)  # expect: TPL502
    val_loader = DataLoader(val_ds, batch_size=64, num_workers=4)  # expect: TPL502
    return train_loader, val_loader


def main(model, optimizer, train_ds, val_ds):
    train_loader, val_loader = get_loaders(train_ds, val_ds)
    for data in train_loader:
        inp, lab = data
        loss = torch.nn.functional.cross_entropy(model(inp.cuda()), lab.cuda())
        loss.backward()
        optimizer.step()
