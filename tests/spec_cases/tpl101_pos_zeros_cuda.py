# codes: TPL101
import torch

hidden = torch.zeros(2, 16, 256).cuda()  # expect: TPL101
