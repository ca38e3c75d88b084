# codes: TPL101
import torch

eye = torch.eye(4).cuda()  # expect: TPL101
grid = torch.linspace(0, 1, 100).cuda(0)  # expect: TPL101
fill = torch.full((3, 3), 7.0).cuda(non_blocking=True)  # expect: TPL101
labels = torch.randint(0, 10, (32,)).to("cuda")  # expect: TPL101
perm = torch.randperm(32).cuda()  # expect: TPL101
scales = torch.logspace(-3, 0, 8).to("cuda")  # expect: TPL101
buf = torch.empty(1024).cuda()  # expect: TPL101
