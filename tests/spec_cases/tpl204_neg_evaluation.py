# codes: TPL204
import torch
from torch.utils.data import DataLoader, DistributedSampler


@torch.no_grad()
def evaluate(model, dataset):
    val_sampler = DistributedSampler(dataset)
    for x, y in DataLoader(dataset, sampler=val_sampler, batch_size=64, num_workers=4):
        model(x)


def test_pass(model, test_set):
    loader = DataLoader(test_set, sampler=DistributedSampler(test_set), batch_size=64, num_workers=4)
    for x in loader:
        model(x)
