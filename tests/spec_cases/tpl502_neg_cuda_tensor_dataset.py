# codes: TPL502
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")
x = torch.randn(4096, 32, device=device)
y = torch.randn(4096, 1).to(device)
ds = TensorDataset(x, y)
loader = DataLoader(ds, batch_size=256, shuffle=True, num_workers=0)  # batches are on the GPU already
for xb, yb in loader:
    xb = xb.to(device)
