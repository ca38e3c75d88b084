# codes: TPL304
import torch
from torch import nn


class MyModel(nn.Module):
    @torch.cuda.amp.autocast()  # expect: TPL304
    def forward(self, x):
        return self.body(x)
