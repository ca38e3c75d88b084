# codes: TPL201
import torch
from torch import nn


def unwrap(model):
    if isinstance(model, (nn.DataParallel, nn.parallel.DistributedDataParallel)):
        return model.module
    return model


def is_parallel(model):
    return type(model) in (nn.DataParallel, nn.parallel.DistributedDataParallel)


def is_dp_class(cls):
    return issubclass(cls, torch.nn.DataParallel)
