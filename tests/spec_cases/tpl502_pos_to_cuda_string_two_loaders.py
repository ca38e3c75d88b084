# codes: TPL502
import torch
from torch.utils.data import DataLoader as DL


def loaders(train_ds, val_ds):
    train = DL(train_ds, batch_size=64, num_workers=4)  # expect: TPL502
    val = DL(val_ds, batch_size=64, num_workers=4)  # expect: TPL502
    return train, val


def run(model, train):
    for x, y in train:
        out = model(x.to("cuda"))
