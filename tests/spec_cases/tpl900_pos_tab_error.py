# codes: TPL900  # expect: TPL900
import torch

def f():
	if True:
        return torch.zeros(1)
