# codes: TPL101
import torch

base = torch.zeros(10, 10)
noise = torch.randn_like(base).cuda()  # expect: TPL101
