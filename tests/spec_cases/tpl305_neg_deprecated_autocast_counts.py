# codes: TPL305
import torch

scaler = torch.cuda.amp.GradScaler()
model = Net().cuda()
for x, y in loader:
    with torch.cuda.amp.autocast():
        loss = criterion(model(x.cuda()), y.cuda())
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
