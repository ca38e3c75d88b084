# codes: TPL102
import torch

for x, y in loader:
    out = model(x)
    loss = criterion(out, y)
    loss.backward()
    optimizer.step()
    for idx in (out.argmax(1) != y).nonzero().tolist():  # expect: TPL102
        hard_examples.append(idx)
