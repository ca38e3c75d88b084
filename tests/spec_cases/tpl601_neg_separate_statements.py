# codes: TPL601
import torch

ab = a @ b
abc = ab @ c
h = torch.mm(x, W)
h = torch.mm(h, V)
