# codes: TPL301
import contextlib
import torch

for x, y in loader:
    with (
        contextlib.nullcontext(),
        torch.autocast("cuda", dtype=torch.float16),  # expect: TPL301
    ):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
