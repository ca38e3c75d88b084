# codes: TPL603
import torch
from torch import autograd


def train_epoch(model, loader, optimizer):
    with autograd.detect_anomaly():  # expect: TPL603
        for batch in loader:
            optimizer.zero_grad()
            loss = model(batch).mean()
            loss.backward()
            optimizer.step()
