# codes: TPL101
import torch


def zeros(*shape):
    return torch.zeros(*shape, device="cuda")


class Buffer:
    def __init__(self, n):
        self.data = zeros(n).cuda()
