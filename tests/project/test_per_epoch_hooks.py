"""A function with its own backward that only per-epoch hooks call runs once per epoch, not every
step (the lead, 2026-11-26, from holdout17's RAVE: rules.md "A step body" lists
``on_validation_epoch_end`` among the hooks that are no step body; R2 counts their calls as run-once)."""

from __future__ import annotations

from pathlib import Path

from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col, write


PROBE = {
    "setup.py": "",
    "rave/__init__.py": "",
    "rave/core.py": """
        import torch


        def probe(model, x):
            y = model(x)
            y.sum().backward()
            print(x.grad.abs().sum().item())
        """,
    "rave/model.py": """
        import lightning.pytorch as pl
        from .core import probe


        class RAVE(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                return self.encode(batch).mean()

            def HOOK(self, batch, batch_idx):
                probe(self, self.example)
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "rave/core.py")


def _project(tmp_path, hook):
    files = dict(PROBE)
    files["rave/model.py"] = files["rave/model.py"].replace("HOOK", hook)
    write(tmp_path, files)
    return tmp_path


def test_a_backward_helper_called_only_from_epoch_hooks_is_no_step_body(tmp_path):
    for hook in ("on_validation_epoch_end", "validation_epoch_end", "on_train_epoch_start", "on_fit_end"):
        root = tmp_path / hook
        assert _findings(_project(root, hook)) == [], hook


def test_the_same_helper_called_from_a_step_method_is_one(tmp_path):
    assert _findings(_project(tmp_path, "validation_step")) == [(
        "TPL102", 7, SYNC)]


HOOK_LOOP = {
    "setup.py": "",
    "metrics.py": """
        import torch


        def pearson(preds, actuals):
            return float(torch.corrcoef(torch.stack([preds, actuals]))[0, 1].item())
        """,
    "task.py": """
        import torch
        import pytorch_lightning as pl
        from metrics import pearson


        class Task(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.net = torch.nn.Linear(4, 1)
                self.loss = torch.nn.MSELoss()

            def training_step(self, batch, batch_idx):
                return self.loss(self.net(batch["x"]), batch["y"])

            def validation_epoch_end(self, outputs):
                for batch_outputs in outputs:
                    preds = torch.cat([x["pred"] for x in batch_outputs])
                    actuals = torch.cat([x["actual"] for x in batch_outputs])
                    self.log("val", self.loss(preds, actuals))
                    self.log("r", pearson(preds, actuals))
        """,
}


def test_a_helper_called_from_a_per_epoch_hooks_loop_over_outputs_runs_per_epoch(tmp_path):
    """The hook's loop calls the loss module (a model call) and a helper of another module: the
    loop goes over what the epoch collected, once per epoch, so the helper is no step body
    (step_loops.epoch_hook_loops, the index's twin of the walker's reading). The same method under
    another name, called by ``training_step`` with the model's outputs, runs the helper every step."""
    def found(root):
        path = root / "metrics.py"
        return [(f.code, f.line) for f in lint_source(path.read_text(), str(path), codes=("TPL102",))]

    write(tmp_path / "hook", HOOK_LOOP)
    assert found(tmp_path / "hook") == []
    files = dict(HOOK_LOOP)
    files["task.py"] = files["task.py"].replace("validation_epoch_end", "collect_scores").replace(
        '        return self.loss(self.net(batch["x"]), batch["y"])',
        '        self.collect_scores([[{"pred": self.net(batch["x"]), "actual": self.net(batch["y"])}]])\n'
        '                return self.loss(self.net(batch["x"]), batch["y"])')
    write(tmp_path / "renamed", files)
    assert found(tmp_path / "renamed") == [("TPL102", 5)]
