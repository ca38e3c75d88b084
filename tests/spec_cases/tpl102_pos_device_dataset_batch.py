# codes: TPL102
import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(features.cuda(), targets.cuda())
loader = DataLoader(dataset, batch_size=256)
for xb, yb in loader:
    loss = criterion(model(xb), yb)
    loss.backward()
    optimizer.step()
    seen += yb.sum().item()  # expect: TPL102
