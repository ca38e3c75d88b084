# codes: TPL202
"""ResNet-free model; BatchNorm2d is only mentioned here."""
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def init_weights(m):
    if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm1d)):
        nn.init.ones_(m.weight)
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)


model = nn.Sequential(nn.Linear(10, 10), nn.ReLU())
model.apply(init_weights)
model = DDP(model.cuda(), device_ids=[0])
