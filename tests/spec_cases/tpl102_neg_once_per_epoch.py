# codes: TPL102
import torch

for epoch in range(epochs):
    epoch_loss = torch.zeros((), device="cuda")
    for x, y in train_loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.detach()
    print(f"epoch {epoch}: {epoch_loss.item() / len(train_loader):.4f}")
    for c in per_class_acc.tolist():
        log(c)
