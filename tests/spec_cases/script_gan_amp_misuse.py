# codes: TPL101,TPL102,TPL301,TPL302,TPL303,TPL304,TPL305
import torch
import torch.nn as nn

G = Generator().cuda()
D = Discriminator().cuda()
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
scaler = torch.amp.GradScaler("cuda")

for epoch in range(100):
    for real, _ in loader:
        real = real.cuda(non_blocking=True)
        z = torch.randn(real.size(0), 100).cuda()  # expect: TPL101
        with torch.autocast("cuda"):
            fake = G(z)
            d_loss = d_criterion(D(real), D(fake.detach()))
        opt_d.zero_grad()
        scaler.scale(d_loss).backward()
        nn.utils.clip_grad_norm_(D.parameters(), 10.0)  # expect: TPL303
        scaler.step(opt_d)

        with torch.autocast("cuda"):
            g_loss = g_criterion(D(fake))
        opt_g.zero_grad()
        scaler.scale(g_loss).backward()
        opt_g.step()  # expect: TPL302
        scaler.update()
    print(f"epoch {epoch} d={d_loss.item():.3f} g={g_loss.item():.3f}")
