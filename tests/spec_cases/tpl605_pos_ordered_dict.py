# codes: TPL605
from collections import OrderedDict

from torch import nn

block = nn.Sequential(OrderedDict([
    ("conv", nn.Conv3d(1, 32, kernel_size=3, padding=1, bias=True)),  # expect: TPL605
    ("norm", nn.BatchNorm3d(32)),
    ("act", nn.ReLU()),
]))
