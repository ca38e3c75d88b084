# codes: TPL103
import torch

for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del loss
    torch.cuda.empty_cache()  # expect: TPL103
