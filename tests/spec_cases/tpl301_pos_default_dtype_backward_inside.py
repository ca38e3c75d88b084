# codes: TPL301
import torch


def train_step(model, batch, optimizer):
    with torch.autocast(device_type="cuda"):  # expect: TPL301
        loss = model(**batch).loss
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()
