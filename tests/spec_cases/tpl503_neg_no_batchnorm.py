# codes: TPL503
import torch
from torch import nn
from torch.utils.data import DataLoader

model = nn.Sequential(nn.Linear(10, 10), nn.LayerNorm(10), nn.ReLU())
train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)
