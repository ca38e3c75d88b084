# codes: TPL601
# xfail: linter bug: right-nested torch.matmul(x, torch.matmul(W2, W3)) is not flagged; only left nesting is (spec TPL601: nested torch.mm/torch.matmul)
import torch


def project(x, W2, W3):
    return torch.matmul(x, torch.matmul(W2, W3))  # expect: TPL601
