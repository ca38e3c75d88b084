# codes: TPL604
import torch

for epoch in range(epochs):
    for x, y in train_loader:
        optimizer.zero_grad(set_to_none=False)  # expect: TPL604
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
