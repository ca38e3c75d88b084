"""ST-P3 (holdout146): ``IntersectionOverUnion.compute`` in ``metrics.py`` tests ``if sup + tp + fp ==
0:`` of its metric states, and ``validation_step`` in another module calls it every batch. The unit
names no loss, model or reduction, the words TPL102's text prefilter looks for before it reads a
unit as handling tensors; in a step body that guess is not needed: the body runs every step (R125)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

TRUTH = SYNC.format(what="testing a tensor's truth") + " (called every step from trainer.py:15 via validation_step)"

METRICS = """
    import torch
    from torchmetrics import Metric


    class IntersectionOverUnion(Metric):
        def __init__(self, n_classes):
            super().__init__()
            self.n_classes = n_classes
            self.add_state("true_positive", default=torch.zeros(n_classes), dist_reduce_fx="sum")
            self.add_state("support", default=torch.zeros(n_classes), dist_reduce_fx="sum")

        def compute(self):
            scores = torch.zeros(self.n_classes, device=self.true_positive.device)
            for class_idx in range(self.n_classes):
                tp = self.true_positive[class_idx]
                sup = self.support[class_idx]
                if {test}:
                    scores[class_idx] = 0.0
                    continue
                scores[class_idx] = tp / sup
            return scores
"""
TRAINER = """
    import torch
    import pytorch_lightning as pl
    from metrics import IntersectionOverUnion


    class TrainingModule(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = torch.nn.Linear(3, 3)
            self.metric_val = IntersectionOverUnion(3)

        def validation_step(self, batch, batch_idx):
            out = self.model(batch)
            self.metric_val(out, batch)
            scores = {call}
            self.log("iou", scores[1])
"""


def _project(root, test="sup + tp == 0", call="self.metric_val.compute()"):
    write(root, {"pyproject.toml": "", "metrics.py": METRICS.replace("{test}", test),
                 "trainer.py": TRAINER.replace("{call}", call)})
    return findings(root, "metrics.py")


def test_a_helper_naming_no_tensor_word_is_read_as_a_step_body(tmp_path):
    assert _project(tmp_path) == [("TPL102", 17, 15, TRUTH)]


def test_a_helper_no_step_calls_or_a_test_of_host_values_stays_silent(tmp_path):
    """Not called from the step (``compute`` only once an epoch ends: not in the step), or testing
    Python numbers: nothing."""
    assert _project(tmp_path, call="None") == []
    assert _project(tmp_path, test="self.n_classes == 0") == []
