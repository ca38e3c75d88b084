# codes: TPL102
import torch

accum = 4
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x.cuda()), y.cuda()) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
        print(f"step {i}: loss {loss.item():.4f}")  # expect: TPL102
