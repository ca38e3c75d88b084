# codes: TPL601
import torch


def project(x, W1, W2, W3):
    y = torch.mm(torch.mm(x, W1), W2)  # expect: TPL601
    z = torch.matmul(torch.matmul(y, W2), W3)  # expect: TPL601
    return y, z
