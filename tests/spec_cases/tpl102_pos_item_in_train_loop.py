# codes: TPL102
import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    running_loss = 0.0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        optimizer.zero_grad()
        logits = model(images)
        loss = F.cross_entropy(logits, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()  # expect: TPL102
    return running_loss / len(loader)
