# codes: TPL102
import torch

for x, y in loader:
    loss = crit(model(x), y) / 4
    loss.backward()
    opt.step()
    running += loss.item()  # expect: TPL102
