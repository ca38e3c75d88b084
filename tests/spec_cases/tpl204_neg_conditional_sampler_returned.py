# codes: TPL204
import torch
from torch.utils.data import DataLoader, DistributedSampler


def create_loader(dataset, is_training, distributed):
    sampler = DistributedSampler(dataset) if is_training and distributed else None
    loader = DataLoader(dataset, sampler=sampler, batch_size=8, num_workers=2)
    return loader  # the caller's loop owns the epochs


def build_eval(eval_data):
    eval_sampler = DistributedSampler(eval_data)  # evaluation: the order does not matter
    loader = DataLoader(eval_data, sampler=eval_sampler, batch_size=8, num_workers=2)
    for batch in loader:
        print(batch)
