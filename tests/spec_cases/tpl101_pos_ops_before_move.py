# codes: TPL101
import torch

DEVICE = torch.device("cuda")


def tokens(n, k, p, s, x, trainer):
    a = torch.ones(n).long().to(x.device)  # expect: TPL101
    b = (torch.zeros(n) + k).cuda()  # expect: TPL101
    c = torch.arange(n).view(-1, 1).repeat(1, k).view(-1).to(DEVICE)  # expect: TPL101
    d = torch.ones(1, 1).fill_(s).type(torch.long).to(DEVICE)  # expect: TPL101
    e = (torch.rand(n) > p).to(trainer.device)  # expect: TPL101
    return a, b, c, d, e
