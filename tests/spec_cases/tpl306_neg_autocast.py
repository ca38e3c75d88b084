# codes: TPL306
import torch

model = Net().cuda()
for x, y in loader:
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
