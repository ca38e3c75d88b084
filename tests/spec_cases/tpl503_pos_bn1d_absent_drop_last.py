# codes: TPL503
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16))
loader = torch.utils.data.DataLoader(train_ds, batch_size=32, shuffle=True)  # expect: TPL503
