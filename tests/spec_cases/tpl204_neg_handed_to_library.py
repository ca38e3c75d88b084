# codes: TPL204
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, DistributedSampler
from engine import train_one_epoch


def fit(model, train_ds):
    sampler = DistributedSampler(train_ds)
    trainer = pl.Trainer(max_epochs=10)
    trainer.fit(model, DataLoader(train_ds, sampler=sampler, num_workers=4))


def run(model, train_ds, epochs):
    sampler = DistributedSampler(train_ds, shuffle=True)
    loader = DataLoader(train_ds, sampler=sampler, batch_size=16, num_workers=4)
    for epoch in range(epochs):
        train_one_epoch(model, loader, epoch)  # another module's loop: it may call set_epoch
