# codes: TPL102
import torch

log_every = 50
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % log_every == 0:
        torch.cuda.synchronize()
        print(f"step {step} loss {loss.item():.4f}")
