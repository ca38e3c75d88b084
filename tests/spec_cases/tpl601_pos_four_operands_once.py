# codes: TPL601
import torch as T


def chain(A, B, C, D):
    return A @ B @ C @ D  # expect: TPL601
