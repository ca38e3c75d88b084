# codes: TPL605
import torch.nn as nn

a = nn.Sequential(nn.Conv2d(3, 64, 3), nn.ReLU(), nn.BatchNorm2d(64))
b = nn.Sequential(nn.Conv2d(3, 64, 3), nn.MaxPool2d(2), nn.BatchNorm2d(64))
c = nn.Sequential(nn.Conv2d(3, 64, 3), nn.Dropout(0.1), nn.BatchNorm2d(64))
d = nn.Sequential(nn.Conv2d(3, 64, 3), nn.GroupNorm(8, 64))
e = nn.ModuleList([nn.Conv2d(3, 64, 3), nn.BatchNorm2d(64)])   # a list: no order of application
