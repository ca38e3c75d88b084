# codes: TPL605
import torch.nn as nn


def make_layers(cfg, batch_norm=True):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)  # expect: TPL605
            layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


def head(c):
    blocks = []
    blocks.append(nn.Conv1d(c, c, 1))  # expect: TPL605
    blocks.append(nn.BatchNorm1d(c))
    blocks.append(nn.ReLU())
    blocks.append(nn.Conv1d(c, c, 1))
    if c > 64:
        blocks.append(nn.BatchNorm1d(c))   # not directly after: another statement in between
    return nn.Sequential(*blocks)
