"""prismatic-vlms's training strategy (holdout136): ``run_training(self, ..., metrics: Metrics)``
calls ``metrics.push()`` at every optimizer step, and ``Metrics.push`` in another module reads the
mean loss with ``.item()``. A parameter annotated with a class the module imports from the project
holds an instance of it: its method calls resolve to that class's methods (R98)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

ITEM = SYNC.format(what="`.item()`")

METRICS = """
    import torch


    class Metrics:
        def __init__(self):
            self.losses = []

        def commit(self, loss):
            self.losses.append(loss.detach())

        def push(self):
            loss = torch.stack(self.losses).mean().item()
            self.losses = []
            return f"loss {loss:.4f}"
"""
STRATEGY = """
    import torch
    {import_line}


    class Strategy:
        def run_training(self, model, loader, optimizer, metrics: {annotation}):
            for batch in loader:
                loss = model(batch["x"].cuda()).mean()
                loss.backward()
                optimizer.step()
                metrics.commit(loss=loss)
                status = metrics.push()
"""


def _project(root, import_line="from pkg.metrics import Metrics", annotation="Metrics"):
    write(root, {"setup.py": "", "pkg/__init__.py": "", "pkg/metrics.py": METRICS,
                 "pkg/strategy.py": STRATEGY.replace("{import_line}", import_line).replace("{annotation}", annotation)})
    return findings(root, "pkg/metrics.py")


def test_a_method_of_a_parameter_annotated_with_a_project_class_runs_every_step(tmp_path):
    assert _project(tmp_path) == [
        ("TPL102", 12, 15, ITEM + " (called every step from pkg/strategy.py:12)")]


def test_an_annotation_of_a_library_class_or_none_resolves_nothing(tmp_path):
    """Annotated with an installed library's class (``typing.Any``), or not annotated: the call is
    a method of something the project does not show, as before."""
    assert _project(tmp_path / "library", import_line="from typing import Any", annotation="Any") == []
    assert _project(tmp_path / "plain", annotation="object") == []
