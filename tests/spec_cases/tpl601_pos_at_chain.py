# codes: TPL601
import torch

a = torch.randn(100, 10)
b = torch.randn(10, 100)
c = torch.randn(100, 5)
out = a @ b @ c  # expect: TPL601
