# codes: TPL102
import torch

accum = 4
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
        torch.cuda.synchronize()  # expect: TPL102
        print(f"step {i}: loss {loss.item():.4f}")  # expect: TPL102
