# codes: TPL601
import torch


def project(x, W2, W3):
    return torch.matmul(x, torch.matmul(W2, W3))  # expect: TPL601
