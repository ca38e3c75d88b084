# codes: TPL304
## Import amp toolkit
from torch.cuda.amp import autocast, GradScaler  # expect: TPL304

model.train()
scaler = GradScaler()
for i, (images, target) in enumerate(train_loader):
    optimizer.zero_grad()
    with autocast():
        output = model(images)
        loss = criterion(output, target)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
