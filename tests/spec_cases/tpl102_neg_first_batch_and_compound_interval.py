# codes: TPL102
import torch


def train(model, loader, opt, fixed_noise, epochs):
    it = 0
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            x = x.cuda()
            model(x).sum().backward()
            opt.step()
            if (it % 500 == 0) or (epoch == epochs - 1 and i == len(loader) - 1):
                fake = model(fixed_noise).detach().cpu()
            if i == 0:
                print(model(x).mean().item())
            it += 1
