# codes: TPL304
import torch

scaler = torch.cuda.amp.GradScaler()  # expect: TPL304
for x, y in loader:
    with torch.cuda.amp.autocast():  # expect: TPL304
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
