# codes: TPL601
"""Prefer torch.linalg.multi_dot over a @ b @ c."""
import torch

y = a * b * c
z = a + b + c
doc = "a @ b @ c"
# w = a @ b @ c
