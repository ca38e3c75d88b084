# codes: TPL501
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loaders(n, device):
    feats = torch.randn(n, 16)
    labels = torch.randint(0, 4, (n,))
    train_ds = TensorDataset(feats, labels)
    train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)  # TensorDataset through its name
    toy = DataLoader(list(range(100)), batch_size=10)
    pairs = [(torch.randn(3), i) for i in range(50)]
    pair_loader = DataLoader(pairs, batch_size=5)
    gpu_x = torch.randn(n, 16, device=device)
    gpu_loader = DataLoader(TensorDataset(gpu_x, labels.cuda()), batch_size=64)  # CUDA tensors
    return train_loader, toy, pair_loader, gpu_loader
