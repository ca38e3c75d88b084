# codes: TPL102
# `if t:` on a tensor: `accelerator.backward(loss)` takes the loss as an argument, so the engine is
# not a tensor, and the bool its method returns is tested without a sync.
import torch
from torch.utils.data import DataLoader
from accelerate import Accelerator


def train(model, optimizer, dataset):
    accelerator = Accelerator()
    train_dataloader = DataLoader(dataset, num_workers=2)
    for step, batch in enumerate(train_dataloader):
        loss = model(**batch).loss
        accelerator.backward(loss)
        optimizer.step()
        if accelerator.check_trigger():
            break
        if not torch.isfinite(loss):  # expect: TPL102
            break
