# codes: TPL503
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(128, 64)
        self.bn = nn.BatchNorm1d(64)

    def forward(self, x):
        return self.bn(self.fc(x))


train_loader = torch.utils.data.DataLoader(  # expect: TPL503
    train_ds, batch_size=32, shuffle=True, drop_last=False, num_workers=2
)
