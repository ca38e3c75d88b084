"""A step loop a class inherits from a project base runs the class's own overrides of the methods
it calls on ``self`` (the lead, 2026-11-26, from holdout20's trlx: ``AccelerateRLTrainer.learn``
calls ``self.loss(batch)``, which each trainer subclass overrides in its own module)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col, write


TRLX_LIKE = {
    "setup.py": "",
    "pkg/__init__.py": "",
    "pkg/base.py": """
        import torch


        class BaseTrainer:
            def loss(self, batch):
                raise NotImplementedError

            def evaluate(self, batch):
                return None

            def learn(self):
                for batch in self.train_dataloader:
                    loss, stats = self.loss(batch)
                    self.accelerator.backward(loss)
                    self.opt.step()
        """,
    "pkg/rft.py": """
        import torch
        from pkg.base import BaseTrainer


        class RFTTrainer(BaseTrainer):
            def loss(self, batch):
                loss = self.model(**batch).loss
                stats = {"loss": loss.item()}
                return loss, stats

            def evaluate(self, batch):
                return self.model(**batch).loss.item()
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "pkg/rft.py")


def test_an_override_called_from_an_inherited_step_loop_runs_every_step(tmp_path):
    """``loss`` runs every step of the inherited ``learn``; ``evaluate``, which no step loop
    calls, does not."""
    write(tmp_path, TRLX_LIKE)
    assert _findings(tmp_path) == [("TPL102", 8, SYNC + " (called every step from pkg/base.py:13)")]


def test_a_class_that_does_not_derive_from_the_base_is_not_reached(tmp_path):
    files = dict(TRLX_LIKE)
    files["pkg/rft.py"] = files["pkg/rft.py"].replace("class RFTTrainer(BaseTrainer):", "class RFTTrainer:")
    write(tmp_path, files)
    assert _findings(tmp_path) == []
