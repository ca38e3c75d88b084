# codes: TPL601
# xfail: linter bug: a parenthesized chain `(A @ B) @ (C @ D)` is a product of four matrices in one expression but is not flagged (spec TPL601)
import torch


def abcd(A, B, C, D):
    return (A @ B) @ (C @ D)  # expect: TPL601
