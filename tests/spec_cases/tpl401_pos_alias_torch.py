# codes: TPL401
import torch as T


def init(args):
    if args.seed is not None:
        T.manual_seed(args.seed)
    T.backends.cudnn.deterministic = True
    T.backends.cudnn.benchmark = True  # expect: TPL401
