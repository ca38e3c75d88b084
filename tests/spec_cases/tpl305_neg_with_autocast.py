# codes: TPL305
import torch

model = Net().cuda()
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
