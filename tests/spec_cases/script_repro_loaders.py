# codes: TPL203,TPL204,TPL401,TPL501,TPL502,TPL503,TPL601
import random

import numpy as np
import torch
import torch.backends.cudnn as cudnn
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler


def setup_seed(seed):
    np.random.seed(seed)
    random.seed(seed)
    torch.manual_seed(seed)  # cpu
    torch.cuda.manual_seed_all(seed)
    cudnn.deterministic = True
    cudnn.benchmark = True  # expect: TPL401


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        return x + torch.relu(self.bn(self.conv(x)))


def build_loaders(train_ds, val_ds):
    sampler = DistributedSampler(train_ds)  # its loader is returned: the caller owns the epochs
    train_loader = DataLoader(train_ds, batch_size=64, sampler=sampler, shuffle=True, num_workers=0)  # expect: TPL203,TPL502,TPL503
    val_loader = DataLoader(val_ds, batch_size=256, shuffle=False, num_workers=4, pin_memory=True)
    return train_loader, val_loader


def low_rank(U, S, V):
    Sigma = torch.diag(S)
    return U @ Sigma @ V.T  # expect: TPL601


def train(model, loader, optimizer):
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
