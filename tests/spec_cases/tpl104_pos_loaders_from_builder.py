# codes: TPL104
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, train_ds, test_ds):
        self.model = model
        self.train_loader = self._prepare(train_ds)
        self.test_loader = self._prepare(test_ds) if test_ds else None

    def _prepare(self, ds):
        return DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True)

    def _run_epoch(self, loader):
        for source, targets in loader:
            source = source.to("cuda")  # expect: TPL104
            self.model(source).sum().backward()

    def fit(self):
        self._run_epoch(self.train_loader)
        if self.test_loader:
            self._run_epoch(self.test_loader)


def build(train_ds, val_ds):
    return (DataLoader(train_ds, batch_size=32, num_workers=4, pin_memory=True),
            DataLoader(val_ds, batch_size=64, num_workers=4))


def main(model, optimizer, train_ds, val_ds):
    train_dl, val_dl = build(train_ds, val_ds)
    for x, y in train_dl:
        model(x.cuda()).sum().backward()  # expect: TPL104
        optimizer.step()
    for x, y in val_dl:
        model(x.cuda())
