# codes: TPL605
import torch.nn as nn

a = nn.Sequential(nn.Conv2d(3, 64, 3, bias=False), nn.BatchNorm2d(64))
b = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, 1, 1, False), nn.BatchNorm2d(64))
c = nn.Sequential(nn.Conv2d(3, 64, 3, bias=not use_bn), nn.BatchNorm2d(64))
d = nn.Sequential(nn.Conv2d(3, 64, 3, **conv_kwargs), nn.BatchNorm2d(64))
