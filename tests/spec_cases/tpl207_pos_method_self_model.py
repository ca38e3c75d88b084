# codes: TPL207
import torch
from torch import nn


class Trainer:
    def __init__(self, model, rank):
        self.model = nn.parallel.DistributedDataParallel(model, device_ids=[rank])

    def train_epoch(self, loader):
        for it, (x, y) in enumerate(loader):
            loss = self.criterion(self.model(x), y)
            loss.backward()  # expect: TPL207
            if (it + 1) % self.accumulate == 0 or it + 1 == len(loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
