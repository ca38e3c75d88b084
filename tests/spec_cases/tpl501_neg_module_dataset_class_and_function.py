# codes: TPL501
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset


class RandomDataset(Dataset):
    def __init__(self, size, length):
        self.data = torch.randn(length, size)

    def __getitem__(self, index):
        return self.data[index]

    def __len__(self):
        return len(self.data)


def features_to_dataset(features):
    ids = torch.tensor([f.input_ids for f in features], dtype=torch.long)
    labels = torch.tensor([f.label for f in features], dtype=torch.long)
    return TensorDataset(ids, labels)


def loaders(features):
    a = DataLoader(RandomDataset(32, 64), batch_size=2)  # its __getitem__ indexes a tensor in memory
    b = DataLoader(features_to_dataset(features), batch_size=2)  # returns a TensorDataset
    return a, b
