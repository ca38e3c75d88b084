# codes: TPL204
import torch
from torch.utils.data import DataLoader, DistributedSampler


def train_one_epoch(model, loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        model(batch).mean().backward()
        optimizer.step()


def main(model, optimizer, train_ds, epochs):
    sampler = DistributedSampler(train_ds)  # expect: TPL204
    loader = DataLoader(train_ds, batch_size=32, sampler=sampler, num_workers=4)
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer)  # defined above: no set_epoch there either
