"""R74 across files: the outer loop that steps each optimizer after its accumulation loop runs one step
each time round, so a helper of another module it calls runs every step (the project index's step
loops read the same test as the rules' walk)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write

TRAIN = """
    import torch
    from pkg.report import show


    def train(model, optimizers, loader, accumulation):
        for step in range(1000):
            for i in range(accumulation):
                loss = model(loader.next_batch())
                loss.backward()
            {update}
            show(loss.detach())
"""
REPORT = """
    import torch


    def show(loss):
        print(loss.item())
"""
STEP_EACH = "for opt in optimizers:\n                opt.step()"


def _project(root: Path, update: str) -> list:
    write(root, {"setup.py": "", "pkg/__init__.py": "", "pkg/report.py": REPORT,
                 "pkg/train.py": TRAIN.replace("{update}", update)})
    return findings(root, "pkg/report.py")


def test_a_helper_called_by_the_loop_that_steps_each_optimizer_runs_every_step(tmp_path):
    assert _project(tmp_path, STEP_EACH) == [
        ("TPL102", 5, 10, SYNC + " (called every step from pkg/train.py:12)")]


def test_a_helper_called_by_an_epoch_loop_runs_once_per_epoch(tmp_path):
    """No update in the outer loop's own body: an epoch loop, and ``show`` runs once per epoch."""
    assert _project(tmp_path, "pass") == []
