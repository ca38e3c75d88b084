# codes: TPL204
import torch
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_ds, epochs):
    sampler = DistributedSampler(train_ds, shuffle=False)  # set_epoch would only reseed a shuffle
    loader = DataLoader(train_ds, sampler=sampler, batch_size=32, num_workers=4)
    for epoch in range(epochs):
        for batch in loader:
            model(batch).sum().backward()
