# codes: TPL501
from torch.utils.data import DataLoader as DL


def get_loaders(train_ds, val_ds, bs):
    train = DL(train_ds, batch_size=bs, shuffle=True, pin_memory=True)  # expect: TPL501
    val = DL(val_ds, batch_size=bs, num_workers=0)  # explicit 0: silent
    return train, val
