# codes: TPL102
import torch

for x, y in train_loader:
    out = model(x.cuda())
    loss = criterion(out, y.cuda())
    loss.backward()
    optimizer.step()
    for name, p in model.named_parameters():
        print(name, p.grad.norm().item())  # expect: TPL102
    grad_norms = [p.grad.norm().item() for p in model.parameters()]  # expect: TPL102
