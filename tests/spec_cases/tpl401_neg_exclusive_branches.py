# codes: TPL401
import torch
import torch.backends.cudnn as cudnn


def configure(args):
    if args.deterministic:
        cudnn.deterministic = True
        torch.use_deterministic_algorithms(True)
    else:
        cudnn.benchmark = True
