# codes: TPL601
import torch

M = torch.mm(A, B) @ C  # expect: TPL601
