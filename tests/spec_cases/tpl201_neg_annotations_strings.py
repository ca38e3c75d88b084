# codes: TPL201
"""Wrap with nn.DataParallel(model) if you must (you should not)."""
from typing import Union

import torch
from torch import nn


def save(model: Union[nn.Module, nn.DataParallel], path: str) -> None:
    torch.save(model.state_dict(), path)


wrapped: "nn.DataParallel" = None
BACKEND = "nn.DataParallel(model)"
# model = nn.DataParallel(model)
