# codes: TPL102
import torch

for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    for name, value in metrics.items():
        writer.add_scalar(name, value)
