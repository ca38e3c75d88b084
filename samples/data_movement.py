"""Training loop with the host/device traffic pitfalls (TPL101-TPL104), and gradients zeroed with a
memset per parameter each step (TPL604). Lint with:
    flake8 --select TPL samples/
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dataset = TensorDataset(torch.randn(1024, 32), torch.randint(0, 10, (1024,)))
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=2, pin_memory=True)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
class_weights = torch.ones(10).to(device)


def train_epoch():
    total_loss = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        noise = torch.randn(x.shape[0], 32).cuda()
        optimizer.zero_grad(set_to_none=False)
        loss = criterion(model(x + 0.01 * noise), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        torch.cuda.empty_cache()
    return total_loss / len(loader)
