# codes: TPL604
import torch

for x, y in loader:
    optimizer.zero_grad()
    model.zero_grad(set_to_none=True)
    optimizer.zero_grad(True)
    criterion(model(x), y).backward()
    optimizer.step()
