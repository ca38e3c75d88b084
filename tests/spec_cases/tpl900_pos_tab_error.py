# codes: TPL900  # reported at the error's line (spec TPL9xx)
import torch

def f():
	if True:
        return torch.zeros(1)  # expect: TPL900
