# codes: TPL604
import torch

for real, _ in dataloader:
    d_opt.zero_grad(set_to_none=False)  # expect: TPL604
    d_loss = discriminator(real).mean() - discriminator(generator(z)).mean()
    d_loss.backward()
    d_opt.step()
    g_opt.zero_grad(set_to_none=False)  # expect: TPL604
    g_loss = -discriminator(generator(z)).mean()
    g_loss.backward()
    g_opt.step()
