# codes: TPL601
import torch


def attention(q, k, v):
    # batched (B, H, L, D) tensors: not matrices, multi_dot does not apply
    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
