# codes: TPL102
import torch

for step, (x, y) in enumerate(loader):
    x, y = x.cuda(), y.cuda()
    loss = criterion(model(x), y)
    if torch.isnan(loss):  # expect: TPL102
        continue
    bad = (y < 0).nonzero()  # expect: TPL102
    loss.backward()
    optimizer.step()
