# codes: TPL102
import torch


def optimizer_update(optimizer, scaler, scheduler):
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)


def train(model, loader, optimizer, scaler, scheduler, accum, log_every):
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x.cuda(), y.cuda()) / accum
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:  # accumulation: this block runs the update (in the helper)
            total = loss.item() * accum  # expect: TPL102
            optimizer_update(optimizer, scaler, scheduler)
        if i % log_every == 0:
            print(loss.item())
