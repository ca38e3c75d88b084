# codes: TPL501
import torch
from torch.utils.data import DataLoader

train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # expect: TPL501
