# codes: TPL502
# HF Accelerate's Accelerator() picks the CUDA device at run time when there is one: batches moved
# to accelerator.device from an unpinned loader are the same pitfall whether or not the module also
# names torch.cuda somewhere.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def train(model, optimizer, dataset):
    accelerator = Accelerator()
    loader = DataLoader(dataset, batch_size=32, num_workers=4)  # expect: TPL502
    for batch in loader:
        batch = {k: v.to(accelerator.device) for k, v in batch.items()}
        loss = model(**batch).loss
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
