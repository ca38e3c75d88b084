# codes: TPL102
# xfail: linter bug: `crit(model(x), y) / 4` (a tensor: .backward() is called on it) is treated as a non-tensor, so .item() in the loop is missed (spec TPL102: in a loop, .item())
import torch

for x, y in loader:
    loss = crit(model(x), y) / 4
    loss.backward()
    opt.step()
    running += loss.item()  # expect: TPL102
