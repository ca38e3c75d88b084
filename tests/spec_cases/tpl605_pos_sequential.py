# codes: TPL605
import torch.nn as nn


def make_stem(c_in, c_out):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, kernel_size=3, stride=2, padding=1),  # expect: TPL605
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
        nn.Conv2d(c_out, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
    )


head = nn.Sequential(nn.Conv1d(128, 128, 1), nn.BatchNorm1d(128, affine=False))  # expect: TPL605
