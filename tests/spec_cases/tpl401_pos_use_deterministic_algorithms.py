# codes: TPL401
import torch
from torch.backends import cudnn


def configure():
    torch.use_deterministic_algorithms(True)
    cudnn.benchmark = True  # expect: TPL401
