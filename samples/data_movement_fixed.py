"""The same loop without host/device pitfalls: tensors made on the device, asynchronous copies
from pinned memory, the loss accumulated on the device and read once per epoch, gradients set to
None by zero_grad()."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dataset = TensorDataset(torch.randn(1024, 32), torch.randint(0, 10, (1024,)))
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=2, pin_memory=True)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
torch.set_float32_matmul_precision("high")  # TF32 tensor cores for the float32 matmuls
class_weights = torch.ones(10, device=device)


def train_epoch():
    total_loss = torch.zeros((), device=device)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        noise = torch.randn(x.shape[0], 32, device=device)
        optimizer.zero_grad()
        loss = criterion(model(x + 0.01 * noise), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.detach()
    return total_loss.item() / len(loader)
