"""R7 along the call chain (issue 20, holdout5): a helper that every visible caller runs from a
loop that trains nothing, with autograd off, keeps the results of inference it copies to the host
(Deformable-DETR's COCO evaluator, called from ``@torch.no_grad() evaluate()`` in another file);
Lightning runs ``validation_step``/``test_step`` with autograd off, training nothing. Each file is
linted by its real path so that the project index finds the others."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

TOLIST = SYNC.format(what="`.tolist()`")
ITEM = SYNC.format(what="`.item()`")
CPU = SYNC.format(what="`.cpu()`")


EVALUATOR = """
    import torch


    class Evaluator:
        def __init__(self):
            self.results = []
            self.total = 0.0

        def update(self, predictions):
            for image_id, pred in predictions.items():
                boxes = pred["boxes"].tolist()
                scores = pred["scores"].tolist()
                self.results.extend([{"image_id": image_id, "bbox": b, "score": scores[k]}
                                     for k, b in enumerate(boxes)])
                self.total += pred["scores"].sum().item()
    """

EVALUATE = """
    import torch
    from evaluator import Evaluator


    @torch.no_grad()
    def evaluate(model, loader):
        evaluator = Evaluator()
        for images, targets in loader:
            outputs = model(images.cuda())
            targets = [{k: v.cuda() for k, v in t.items()} for t in targets]
            res = {t["image_id"].item(): o for t, o in zip(targets, outputs)}
            evaluator.update(res)
        return evaluator
    """

TRAIN = """
    import torch
    from evaluator import Evaluator


    def train(model, loader, optimizer):
        evaluator = Evaluator()
        for images, targets in loader:
            outputs = model(images.cuda())
            outputs.loss.backward()
            optimizer.step()
            evaluator.update(outputs)
    """


def test_r7_a_helper_every_caller_runs_from_a_no_grad_loop_that_trains_nothing(tmp_path):
    """The copies the helper keeps (put into result dicts, iterated by a comprehension) are the
    results of inference; the score summed per batch with ``.item()`` stays flagged, with its chain;
    the image id taken as a dict key is one the host files results under (R3)."""
    write(tmp_path, {"setup.py": "", "evaluator.py": EVALUATOR, "engine.py": EVALUATE})
    chain = " (called every step from engine.py:12)"
    assert findings(tmp_path, "evaluator.py") == [("TPL102", 15, 26, ITEM + chain)]
    assert findings(tmp_path, "engine.py") == []


def test_r7_a_helper_a_training_loop_also_calls_keeps_its_copies_flagged(tmp_path):
    """Flagged twin: another visible caller runs the helper from a loop that steps the optimizer,
    so not every way to it runs inference; the training loop's dict-key id is no longer in R7's
    scope either (here there is none: the twin of engine.py's key is silent only there)."""
    write(tmp_path, {"setup.py": "", "evaluator.py": EVALUATOR, "engine.py": EVALUATE, "train.py": TRAIN})
    chain = " (called every step from engine.py:12)"
    assert findings(tmp_path, "evaluator.py") == [
        ("TPL102", 11, 20, TOLIST + chain),
        ("TPL102", 12, 21, TOLIST + chain),
        ("TPL102", 15, 26, ITEM + chain),
    ]


def test_r8_a_helper_called_from_an_evaluation_loop_with_autograd_on_drops_its_copies_not_its_item(tmp_path):
    """The same evaluation loop without ``@torch.no_grad()``: R7 no longer holds (autograd is on),
    but the loop still trains nothing, so the helper's copies are results on their way to the host
    (R8); the metric's ``.item()`` stays flagged. The image id taken as a dict key in the loop is
    host-needed with autograd on too (R31, R95)."""
    write(tmp_path, {"setup.py": "", "evaluator.py": EVALUATOR,
                     "engine.py": EVALUATE.replace("    @torch.no_grad()\n", "")})
    chain = " (called every step from engine.py:11)"
    assert findings(tmp_path, "evaluator.py") == [("TPL102", 15, 26, ITEM + chain)]
    assert findings(tmp_path, "engine.py") == []


LIGHTNING = """
    import torch
    import lightning.pytorch as pl


    class Lit(pl.LightningModule):
        def __init__(self, model):
            super().__init__()
            self.model = model
            self.dumps = []

        def {step}(self, batch, batch_idx):
            out = self.model(batch)
            item = {{"pred": out.cpu().numpy()}}
            self.dumps.append(item)
            self.log("acc", out.mean().item())
            return out.mean()
    """


def test_r7_lightning_evaluation_steps_run_inference(tmp_path):
    """Lightning runs ``validation_step`` and ``test_step`` with autograd off, in a loop that trains
    nothing (rules.md keeps them step bodies): a copy they keep is a result; the metric's ``.item()``
    stays flagged."""
    for step in ("validation_step", "test_step"):
        write(tmp_path, {"setup.py": "", "lit.py": LIGHTNING.format(step=step)})
        assert findings(tmp_path, "lit.py") == [("TPL102", 15, 24, ITEM)], step


def test_r7_lightning_training_step_keeps_its_copies_flagged(tmp_path):
    """Flagged twin: the same body as ``training_step``."""
    write(tmp_path, {"setup.py": "", "lit.py": LIGHTNING.format(step="training_step")})
    assert findings(tmp_path, "lit.py") == [("TPL102", 13, 24, CPU), ("TPL102", 15, 24, ITEM)]
