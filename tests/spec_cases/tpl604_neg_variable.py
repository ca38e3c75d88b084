# codes: TPL604
import torch

for x, y in loader:
    optimizer.zero_grad(set_to_none=args.set_to_none)
    optimizer.zero_grad(**zero_kwargs)
    criterion(model(x), y).backward()
    optimizer.step()
