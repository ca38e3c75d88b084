# codes: TPL101
import torch


def build(n, device, model, x, idx):
    other = model(x)
    a = (torch.ones(n) + other.cuda()).cuda()
    b = torch.arange(n).to(torch.long)
    c = torch.ones(n).view(-1, 1).scatter_(0, idx, 1).to(device)
    d = (torch.zeros(n) * other).to(device)
    return a, b, c, d
