# codes: TPL302
import torch

scaler = torch.amp.GradScaler("cuda")
for i, batch in enumerate(loader):
    with torch.autocast("cuda"):
        loss = model(**batch).loss / 4
    scaler.scale(loss).backward()
    if (i + 1) % 4 == 0:
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
