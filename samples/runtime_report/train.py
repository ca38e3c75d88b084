"""A training loop with two host syncs per step: one the linter sees (``loss.item()`` in the loop) and
one it cannot follow (``accuracy``, called through the table ``METRICS``). Runs on a CPU in seconds:

    RUNTIME_GUARD_REPORT=report.json python -m runtime_guard samples/runtime_report/train.py
    torchperf-lint check --runtime-report report.json samples/runtime_report/

The ``from __future__`` import must be the first statement, so ``import runtime_guard`` cannot
be: the runner installs the guard without touching the script.
"""
from __future__ import annotations

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from helpers import METRICS


def train(epochs: int, device: str = "cuda" if torch.cuda.is_available() else "cpu") -> list[float]:
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(256, 16), torch.randint(0, 4, (256,)))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    history = []
    for _ in range(epochs):
        running, correct = 0.0, 0.0
        for x, y in loader:
            logits, y = model(x.to(device)), y.to(device)  # on a GPU when there is one
            loss = nn.functional.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
            correct += METRICS["accuracy"](logits, y)
        history.append(running / len(loader))
        print(f"loss {history[-1]:.4f}  accuracy {correct / len(loader):.3f}")
    return history


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    train(parser.parse_args().epochs)
