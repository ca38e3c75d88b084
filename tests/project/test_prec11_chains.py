"""Forms of the errors left on holdout11-14 that cross files (2026-11-26, helper prec11; tuned on
those sets): multi-file fixture projects, each file linted by its real path."""

from __future__ import annotations

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col as findings, write

PERFORMS = (" (runs one step: calls model_backward_and_update (mcdlike/engine/trainer.py:13), which calls "
            "model_backward (mcdlike/engine/trainer.py:5), which calls backward)")


# Dassl's MCD: ``forward_backward`` updates the classifiers once, then the feature extractor
# ``n_step_F`` times on the same batch, then reads its losses; ``Pretrain.fit`` does one check
# step and then goes over a loader (a driver, run once).
MCD_LIKE = {
    "pyproject.toml": "[project]\nname = 'mcdlike'\n",
    "mcdlike/__init__.py": "",
    "mcdlike/engine/__init__.py": "",
    "mcdlike/engine/trainer.py": """
        import torch


        class TrainerXU:
            def model_backward(self, loss):
                loss.backward()

            def model_update(self, names):
                for name in names:
                    if self._optims[name] is not None:
                        self._optims[name].step()

            def model_backward_and_update(self, loss, names=None):
                self.model_backward(loss)
                self.model_update(names)
        """,
    "mcdlike/engine/mcd.py": """
        import torch.nn as nn
        import torch.nn.functional as F

        from mcdlike.engine.trainer import TrainerXU


        class MCD(TrainerXU):
            def __init__(self):
                self.F = nn.Linear(4, 4)
                self.C1 = nn.Linear(4, 2)

            def forward_backward(self, batch_x, batch_u):
                loss_a = F.cross_entropy(self.C1(self.F(batch_x[0])), batch_x[1])
                self.model_backward_and_update(loss_a)
                for _ in range(self.n_step_F):
                    pred_u = self.C1(self.F(batch_u))
                    loss_c = pred_u.softmax(1).mean()
                    self.model_backward_and_update(loss_c, "F")
                return {"loss_a": loss_a.item(), "loss_c": loss_c.item()}


        class Pretrain(TrainerXU):
            def __init__(self):
                self.F = nn.Linear(4, 4)
                self.C1 = nn.Linear(4, 2)

            def fit(self, batch, loader_iter):
                loss = F.cross_entropy(self.C1(self.F(batch[0])), batch[1])
                self.model_backward_and_update(loss)  # a check step before the loop
                for _ in range(self.max_iter):
                    x, y = next(loader_iter)
                    loss = F.cross_entropy(self.C1(self.F(x)), y)
                    self.model_backward_and_update(loss)
                return {"loss": loss.item()}
        """,
}


def test_inner_updates_on_the_batch_a_function_holds_leave_it_a_step_body(tmp_path):
    """A function that performs one step (R18) and then repeats an update ``n_step_F`` times on the
    batch it was handed (``for _ in range(self.n_step_F):``, drawing no data) performs one step of
    its caller: what it reads after the inner loop runs every step. A loop that draws a new batch
    each time round (``next(loader_iter)``) after a check step is a loop of steps the function
    drives: it runs once, and its reads after the loop are silent."""
    write(tmp_path, MCD_LIKE)
    assert findings(tmp_path, "mcdlike/engine/mcd.py") == [
        ("TPL102", 19, SYNC + PERFORMS),
        ("TPL102", 19, SYNC + PERFORMS),
    ]
