# codes: TPL501
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset


class ImageFiles(Dataset):
    def __init__(self, paths):
        self.paths = list(paths)

    def __getitem__(self, index):
        return load(self.paths[index])

    def __len__(self):
        return len(self.paths)


def make(paths):
    return ImageFiles(paths)


train_loader = DataLoader(ImageFiles(files), batch_size=32, shuffle=True)  # expect: TPL501
other = DataLoader(make(files), batch_size=32)  # expect: TPL501
