# codes: TPL306
import torch

model = Net()
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
