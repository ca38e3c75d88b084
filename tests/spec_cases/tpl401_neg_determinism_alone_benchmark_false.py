# codes: TPL401
import torch
import torch.backends.cudnn as cudnn


def seed_everything(seed):
    torch.manual_seed(seed)
    cudnn.deterministic = True
    cudnn.benchmark = False
    torch.use_deterministic_algorithms(True)
