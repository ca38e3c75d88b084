# codes: TPL203
import torch
from torch.utils.data import DataLoader

loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)
val = DataLoader(val_set, batch_size=64, shuffle=False, sampler=None, num_workers=4)
