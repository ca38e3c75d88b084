"""A module that imports no torch but overrides a per-step hook of its torch base class (trlx's
``AccelerateSFTTrainer.loss``, holdout20; the lead, 2026-11-27): its syncs that a project step body
reaches are reported with their chain; nothing else of such a module is (it may be numpy code)."""

from __future__ import annotations

from pathlib import Path

from torchperf_lint.engine import lint_source

from _project_files import write

SYNC = ("`.item()` waits for the device in every iteration; keep values on the device (`total += "
        "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")

PROJECT = {
    "setup.py": "",
    "trainers/__init__.py": "",
    "trainers/base.py": """
        import torch


        class BaseTrainer:
            def __init__(self, model, loader, optimizer):
                self.model = model
                self.loader = loader
                self.optimizer = optimizer

            def loss(self, batch):
                raise NotImplementedError

            def learn(self):
                for batch in self.loader:
                    loss, stats = self.loss(batch)
                    loss.backward()
                    self.optimizer.step()
        """,
    "trainers/sft.py": """
        from trainers.base import BaseTrainer


        class SFTTrainer(BaseTrainer):
            def loss(self, batch):
                loss = self.model(batch["input_ids"].cuda()).loss
                stats = {"loss": loss.item()}
                return loss, stats


        def summarize(values):
            total = 0.0
            for v in values:
                total += v.item()
            return total
        """,
}


def _findings(root: Path, name: str):
    path = root / name
    return [(f.code, f.line, f.col, f.message) for f in lint_source(path.read_text(), str(path))]


def test_a_torchless_override_of_a_per_step_hook_is_reported_with_its_chain(tmp_path):
    write(tmp_path, PROJECT)
    assert _findings(tmp_path, "trainers/sft.py") == [
        ("TPL102", 7, 25, SYNC + " (called every step from trainers/base.py:15)")]


def test_a_torchless_module_no_step_body_reaches_stays_silent(tmp_path):
    """The same module when the base class's loop never calls ``loss`` (and ``summarize``'s own
    loop in any case: a module without torch has no step loops of its own)."""
    files = dict(PROJECT)
    files["trainers/base.py"] = files["trainers/base.py"].replace("loss, stats = self.loss(batch)",
                                                                  "loss = self.model(batch).loss")
    write(tmp_path, files)
    assert _findings(tmp_path, "trainers/sft.py") == []
