# codes: TPL301
from mytorchlike import autocast

for x, y in loader:
    with autocast():
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
