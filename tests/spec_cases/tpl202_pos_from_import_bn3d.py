# codes: TPL202
import torch
from torch.nn import BatchNorm3d, Conv3d, Sequential
from torch.nn.parallel import DistributedDataParallel


def build(rank):
    net = Sequential(Conv3d(1, 8, 3), BatchNorm3d(8)).to(rank)
    return DistributedDataParallel(net, device_ids=[rank])  # expect: TPL202
