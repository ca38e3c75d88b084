# codes: TPL302
import torch

scaler = torch.amp.GradScaler("cuda")
accum = 8
for i, batch in enumerate(loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss / accum
    scaler.scale(loss).backward()
    if (i + 1) % accum == 0:
        optimizer.step()  # expect: TPL302
        scaler.update()
        optimizer.zero_grad()
