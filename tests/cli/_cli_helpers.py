"""Sources shared by the CLI tests."""

# Sources whose findings are stable across rule work: TPL101 (safe and unsafe fixes), TPL201, TPL203.
FIXABLE = """\
import torch

def make(device):
    a = torch.arange(6, dtype=torch.float32).to(device)
    b = torch.full((2, 3), 7.0).to(device, non_blocking=True)
    c = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).to(device=device)
    return a, b, c
"""
UNSAFE = """\
import torch

def noise(device):
    return torch.rand(3).to(device)
"""
DATA_PARALLEL = """\
import torch

model = torch.nn.DataParallel(torch.nn.Linear(2, 2))
"""
CLEAN = """\
import torch

x = torch.zeros(3, device="cpu")
"""
