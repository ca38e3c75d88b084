# codes: TPL501
import torch
from torch.utils.data import DataLoader, TensorDataset
from torchvision import datasets

if args.synthetic:
    train_set = TensorDataset(torch.randn(1000, 3, 32, 32), torch.randint(0, 10, (1000,)))
else:
    train_set = datasets.CIFAR10(root, train=True, download=True)
loader = DataLoader(train_set, batch_size=128, shuffle=True)  # expect: TPL501


def loader_for(dataset):
    return DataLoader(dataset, batch_size=32)  # expect: TPL501
