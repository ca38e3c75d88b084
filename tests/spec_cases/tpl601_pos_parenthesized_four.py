# codes: TPL601
import torch


def abcd(A, B, C, D):
    return (A @ B) @ (C @ D)  # expect: TPL601
