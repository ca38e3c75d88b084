# codes: TPL601
import torch
from torch import matmul


def attention_like(q, k, v, w_k, bias):
    scores = bias + q @ w_k @ v  # expect: TPL601
    alt = matmul(matmul(q, k), v)  # expect: TPL601
    return scores, alt
