"""R76 across files: the outer loop over prompt batches whose own body only generates with autograd
off, and whose nested loop trains over a loader of the experience it made, is epoch-level: a helper
of another module it calls runs once per rollout batch, not every step (the project index's step
loops read the same test as the rules' walk)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write

TRAIN = """
    import torch
    from torch.utils.data import DataLoader
    from pkg.report import show


    def train(model, optimizer, prompt_loader):
        for prompt_batch in prompt_loader:
            with torch.no_grad():
                returns = model(prompt_batch.cuda())
            show(returns)
            experience_sampler = DataLoader([returns.cpu()], batch_size=4)
            for exp in {inner}:
                loss = model(exp.cuda()).mean()
                loss.backward()
                optimizer.step()
"""
REPORT = """
    import torch


    def show(returns):
        print(returns.sum().item())
"""


def _project(root: Path, inner: str) -> list:
    write(root, {"setup.py": "", "pkg/__init__.py": "", "pkg/report.py": REPORT,
                 "pkg/train.py": TRAIN.replace("{inner}", inner)})
    return findings(root, "pkg/report.py")


def test_a_helper_the_rollout_loop_calls_runs_once_per_rollout_batch(tmp_path):
    assert _project(tmp_path, "experience_sampler") == []


def test_a_helper_of_a_loader_loop_whose_nested_loop_trains_on_held_data_runs_every_step(tmp_path):
    """The nested loop iterates a list, not a loader: each prompt batch is a step's data."""
    assert _project(tmp_path, "[returns]") == [
        ("TPL102", 5, 10, SYNC + " (called every step from pkg/train.py:10)")]
