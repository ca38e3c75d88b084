# codes: TPL302
import torch

scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
for x, y in loader:
    with torch.autocast("cuda", enabled=use_amp):
        loss = criterion(model(x), y)
    if use_amp:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
    optimizer.zero_grad()
