# codes: TPL503
import torch
from torch import nn
from torch.utils.data import DataLoader


def freeze_bn(model):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


model = nn.Sequential(nn.Linear(10, 10))
train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)
