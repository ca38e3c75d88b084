# codes: TPL401
import torch


def configure(args):
    if args.reproducible:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = True  # expect: TPL401
