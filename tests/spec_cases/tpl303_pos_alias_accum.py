# codes: TPL303
import torch as T

scaler = T.amp.GradScaler("cuda")
for i, (x, y) in enumerate(loader):
    with T.autocast("cuda"):
        loss = crit(model(x), y) / 2
    scaler.scale(loss).backward()
    if (i + 1) % 2 == 0:
        T.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TPL303
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
