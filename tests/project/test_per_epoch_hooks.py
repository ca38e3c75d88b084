"""A function with its own backward that only per-epoch hooks call runs once per epoch, not every
step (the lead, 2026-11-26, from holdout17's RAVE: rules.md "A step body" lists
``on_validation_epoch_end`` among the hooks that are no step body; R2 counts their calls as run-once)."""

from __future__ import annotations

from pathlib import Path

from torchperf_lint.engine import lint_source

from _project_files import write

SYNC = ("`.item()` waits for the device in every iteration; keep values on the device (`total += "
        "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")

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
    path = root / "rave/core.py"
    return [(f.code, f.line, f.message) for f in lint_source(path.read_text(), str(path), codes=("TPL102",))]


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
