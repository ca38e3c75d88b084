# codes: TPL604
import torch

optimizer.zero_grad(set_to_none=False)
model.zero_grad(set_to_none=False)


def reset(opt):
    opt.zero_grad(set_to_none=False)
