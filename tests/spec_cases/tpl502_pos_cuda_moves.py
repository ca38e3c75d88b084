# codes: TPL502
import torch
from torch.utils.data import DataLoader

loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=8)  # expect: TPL502
for x, y in loader:
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    loss = criterion(model(x), y)
