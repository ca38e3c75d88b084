# codes: TPL104
import torch
from torch.utils.data import DataLoader

from data import make_eval_loader

imagenet_loader = DataLoader(imagenet, batch_size=8, num_workers=4, pin_memory=True)


def channel_stats(model, dataloader):
    # given the framework's own loader: its pinning is not shown here, whatever imagenet_loader does
    for batch in dataloader:
        model(batch.to("cuda"))


def evaluate(model):
    for x, y in make_eval_loader():
        model(x.to("cuda"))


def train(model, optimizer):
    for x in imagenet_loader:
        loss = model(x.to("cuda", non_blocking=True)).sum()
        loss.backward()
        optimizer.step()
