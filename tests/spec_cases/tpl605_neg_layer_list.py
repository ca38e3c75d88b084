# codes: TPL605
import torch.nn as nn


def make_layers(cfg, norm):
    layers = []
    for v in cfg:
        layers += [nn.Conv2d(3, v, 3, padding=1), nn.ReLU(inplace=True), nn.BatchNorm2d(v)]
        layers.extend([nn.Conv2d(v, v, 3, bias=False), nn.BatchNorm2d(v)])
    other = [nn.Conv2d(3, 3, 1), nn.BatchNorm2d(3)]    # never made into a Sequential here
    return nn.Sequential(*layers), nn.ModuleList(other)
