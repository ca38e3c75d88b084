# codes: TPL605
from torch import nn


class Encoder(nn.Module):
    def __init__(self, c):
        super(Encoder, self).__init__()
        self.conv = nn.Conv2d(c, 2 * c, 3, 1, 1)  # expect: TPL605
        self.bn = nn.BatchNorm2d(2 * c)
        self.act = nn.LeakyReLU(0.2)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return self.act(x)


class Decoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c // 2, 3, padding=1)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.conv(x))      # same attribute name, no BatchNorm: silent
