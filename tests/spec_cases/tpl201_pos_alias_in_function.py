# codes: TPL201
import torch
from torch.nn import DataParallel as DP


def wrap(model):
    if torch.cuda.device_count() > 1:
        model = DP(model)  # expect: TPL201
    return model.cuda()
