# codes: TPL602
import torch
from torch import autograd


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1, 1, 1, device=real.device)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    grads = autograd.grad(scores, mixed, torch.ones_like(scores), create_graph=True)[0]
    return ((grads.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


def train_critic(generator, critic, loader, noise):
    generator.eval()  # frozen while the critic trains
    for real in loader:
        fake = generator(noise)
        penalty = gradient_penalty(critic, real, fake)
        loss = critic(fake).mean() - critic(real).mean() + 10 * penalty


def saliency(model, loader):
    model.eval()
    for x in loader:
        x.requires_grad = True
        score = model(x).max()
        (g,) = torch.autograd.grad(score, x)
