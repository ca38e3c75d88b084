# codes: TPL202
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 3, padding=1)
        self.bn = nn.BatchNorm2d(64)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        return self.fc(x.mean((2, 3)))


model = ConvNet().cuda(local_rank)
model = DDP(model, device_ids=[local_rank])  # expect: TPL202
