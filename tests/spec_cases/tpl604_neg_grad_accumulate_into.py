# codes: TPL604
import torch

for x, y in loader:
    model.zero_grad(set_to_none=False)
    criterion(model(x), y).backward()
    for p, buf in zip(model.parameters(), grad_buffers):
        buf.add_(p.grad)                # .grad read as a tensor argument
    optimizer.step()
