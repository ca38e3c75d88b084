# codes: TPL604
import torch

for x, y in loader:
    optimizer.zero_grad(set_to_none=False)
    criterion(model(x), y).backward()
    for p in model.parameters():
        p.grad.mul_(1.0 / world_size)   # expects a tensor even for unused parameters
    optimizer.step()
