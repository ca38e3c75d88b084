# codes: TPL302
import torch

scaler = torch.amp.GradScaler("cuda")
for real in loader:
    with torch.autocast("cuda"):
        d_loss = disc_loss(D, G, real)
    scaler.scale(d_loss).backward()
    opt_d.step()  # expect: TPL302
    with torch.autocast("cuda"):
        g_loss = gen_loss(D, G)
    scaler.scale(g_loss).backward()
    scaler.step(opt_g)
    scaler.update()
