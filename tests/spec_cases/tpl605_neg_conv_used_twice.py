# codes: TPL605
import torch.nn as nn


class Shared(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        y = self.bn(self.conv(x))
        return y + self.conv(y)            # the second use keeps the bias alive
