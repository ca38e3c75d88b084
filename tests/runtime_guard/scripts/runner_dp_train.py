"""A DataParallel script that cannot say ``import runtime_guard`` at its top (the __future__ import
must come first) and never mentions distributed training: run as
``torchrun --nproc_per_node 2 -m runtime_guard runner_dp_train.py --epochs 2`` by the tests.

Prints one line per rank: what the script saw of its launch, the model type, and a checksum of
the parameters (equal on every rank only if DDP synchronised them).
"""
from __future__ import annotations

import argparse
import os
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args(argv)
    rank = int(os.environ.get("RANK", "0"))
    torch.manual_seed(rank)  # replicas start different on purpose: DDP must make them equal
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(32, 4, generator=g), torch.randn(32, 1, generator=g))
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(data, batch_size=4, shuffle=True)
    for _ in range(args.epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    checksum = sum(float(p.detach().double().sum()) for p in model.parameters())
    # One write with its newline: both ranks share the pipe, and print() under PYTHONUNBUFFERED=1
    # writes the text and the newline separately, so lines could run into each other.
    sys.stdout.write(f"rank={rank} name={__name__} argv={sys.argv} file={os.path.basename(__file__)} "
                     f"type={type(model).__name__} batches={len(loader)} checksum={checksum:.12f}\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
