# codes: TPL301
import torch
import torch.nn.functional as F

for x, y in loader:
    x, y = x.cuda(), y.cuda()
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):  # expect: TPL301
        logits = model(x)
        loss = F.cross_entropy(logits, y)
    loss.backward()
    optimizer.step()
