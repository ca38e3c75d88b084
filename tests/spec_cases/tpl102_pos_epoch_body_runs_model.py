# codes: TPL102
import torch

for epoch in range(num_epochs):
    for x, y in train_loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    val_out = model(val_x)
    acc = (val_out.argmax(1) == val_y).float().mean().item()  # expect: TPL102
