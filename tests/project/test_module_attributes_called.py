"""yolov9's ``ComputeLoss`` (holdout135), a plain class whose ``__init__`` binds ``self.assigner =
TaskAlignedAssigner(...)``, an ``nn.Module`` of another module; ``__call__``, run every step from
``train.py``, calls ``self.assigner(...)`` and divides by ``max(target_scores.sum(), 1)``, then tests
``if fg_mask.sum():``. Calling a module attribute runs its ``forward``: a model's output, possibly on
the device (R90), as ``model(x)`` is."""

from __future__ import annotations

from pathlib import Path

from _project_files import findings, write

ASSIGNER = """
    import torch
    from torch import nn
    from scipy_assign import assign


    class TaskAlignedAssigner({base}):
        def __init__(self, topk=13):
            {init}
            self.topk = topk

        {forward}(self, scores, targets):
            {body}
"""
LOSS = """
    import torch
    from torch import nn
    from utils.assigner import TaskAlignedAssigner


    class ComputeLoss:
        def __init__(self, model):
            self.bce = nn.BCEWithLogitsLoss(reduction="none")
            self.assigner = TaskAlignedAssigner(topk=10)

        def __call__(self, p, targets):
            preds = p[1] if isinstance(p, tuple) else p
            target_labels, target_bboxes, target_scores, fg_mask = self.assigner(preds.detach(), targets)
            target_scores_sum = max(target_scores.sum(), 1)
            loss = self.bce(preds, target_scores.to(preds.dtype)).sum() / target_scores_sum
            if fg_mask.sum():
                loss = loss + self.box_loss(preds, target_bboxes, fg_mask)
            return loss

        def box_loss(self, preds, boxes, mask):
            return (preds - boxes).abs().mean()
"""
TRAIN = """
    import torch
    from utils.loss import ComputeLoss


    def train(model, loader, optimizer):
        compute_loss = ComputeLoss(model)
        for imgs, targets in loader:
            pred = model(imgs.cuda())
            loss = compute_loss(pred, targets.cuda())
            loss.backward()
            optimizer.step()
"""
CHAIN = " (called every step from train.py:9)"
SYNC = ("{what} waits for the device in every iteration; keep values on the device (`total += loss.detach()`) and "
        "sync once after the loop or every N steps (runtime_guard: sync report)")


def _project(root: Path, module: bool) -> list:
    assigner = ASSIGNER.replace("{base}", "nn.Module" if module else "object").replace(
        "{init}", "super().__init__()" if module else "pass").replace("{forward}", "def forward" if module else "def __call__").replace(
        "{body}", "labels, boxes, assigned, mask = assign(scores, targets)\n            return labels, boxes, assigned, mask")
    write(root, {"setup.py": "", "utils/__init__.py": "", "utils/assigner.py": assigner, "utils/loss.py": LOSS,
                 "train.py": TRAIN})
    return findings(root, "utils/loss.py")


def test_calling_a_module_attribute_gives_a_model_output(tmp_path):
    assert _project(tmp_path, module=True) == [
        ("TPL102", 14, 28, SYNC.format(what="builtin `max()` of tensors") + CHAIN),
        ("TPL102", 16, 11, SYNC.format(what="testing a tensor's truth") + CHAIN)]


def test_an_attribute_of_a_plain_class_says_nothing(tmp_path):
    """The same ``self.assigner(...)`` of a class that is no ``nn.Module``, whose ``__call__`` hands
    back the items of what another library returns: not known to be tensors, silent. (An
    ``nn.Module``'s forward handing back the same is a model's output: reported above.)"""
    assert _project(tmp_path, module=False) == []
