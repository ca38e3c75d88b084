# codes: TPL502
import torch
from torch.utils.data import DataLoader

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")


def train(model, dataset, opt):
    loader = DataLoader(dataset, batch_size=64, num_workers=4)  # expect: TPL502
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        model(x).sum().backward()
        opt.step()
