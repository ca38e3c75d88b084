# codes: TPL401
import torch


def fast_mode():
    torch.backends.cudnn.benchmark = True


def reproducible_mode(seed):
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.use_deterministic_algorithms(True)
