# codes: TPL501
import torch
from torch.utils.data import DataLoader, TensorDataset

X = torch.randn(10000, 20)
Y = torch.randint(0, 2, (10000,))
loader = DataLoader(TensorDataset(X, Y), batch_size=256, shuffle=True)  # in memory: workers cost more than indexing
