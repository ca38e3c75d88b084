# codes: TPL503
import torch
from torch import nn
from torch.utils.data import DataLoader

model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16))
train_loader = DataLoader(train_set, batch_size=64, shuffle=True, drop_last=True, num_workers=4)
