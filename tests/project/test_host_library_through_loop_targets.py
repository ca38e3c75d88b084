"""A copy handed to a metrics class whose method takes the arrays apart in a ``for`` over ``zip``
and hands the items to numpy (ptsemseg's ``runningScore.update``, holdout71): ``for lt, lp in
zip(label_trues, label_preds): self.confusion_matrix += self._fast_hist(lt.flatten(), ...)``, whose
``np.bincount`` reads them. The host must have the copies every validation batch (R3; rules.md "A
step body": values handed to ``np.*``)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write


METRICS = """
    import numpy as np


    class RunningScore:
        def __init__(self, n_classes):
            self.n_classes = n_classes
            self.confusion_matrix = np.zeros((n_classes, n_classes))

        def _fast_hist(self, label_true, label_pred, n_class):
            mask = (label_true >= 0) & (label_true < n_class)
            return np.bincount(n_class * label_true[mask].astype(int) + label_pred[mask],
                               minlength=n_class ** 2).reshape(n_class, n_class)

        def update(self, label_trues, label_preds):
            for lt, lp in {iterated}:
                self.confusion_matrix += {counted}
    """
TRAIN = """
    import torch

    from metrics import RunningScore


    def train(model, loader, val_loader, optimizer, loss_fn, validate_each_step):
        running_metrics_val = RunningScore(19)
        for i, (images, labels) in enumerate(loader):
            loss = loss_fn(model(images.cuda()), labels.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if {gate}:
                with torch.no_grad():
                    for images_val, labels_val in val_loader:
                        outputs = model(images_val.cuda())
                        pred = outputs.data.max(1)[1].cpu().numpy()
                        gt = labels_val.cuda().data.cpu().numpy()
                        running_metrics_val.update(gt, pred)
    """


def test_items_of_a_zip_handed_to_numpy_make_the_copies_host_needed(tmp_path):
    metrics = METRICS.replace("{iterated}", "zip(label_trues, label_preds)").replace(
        "{counted}", "self._fast_hist(lt.flatten(), lp.flatten(), self.n_classes)")
    for gate in ("(i + 1) % 1000 == 0", "validate_each_step"):
        write(tmp_path, {"setup.py": "", "metrics.py": metrics, "train.py": TRAIN.replace("{gate}", gate)})
        assert findings(tmp_path, "train.py") == [], gate


def test_items_only_counted_in_python_leave_the_copies_syncs(tmp_path):
    """The twin: the items are only compared in Python, so nothing makes the copies host-needed; a
    validation pass the training loop runs every step (under a flag) copies every step (R8 does not
    apply: the loop around it trains). Under an interval the pass is evaluation (R139): silent."""
    metrics = METRICS.replace("{iterated}", "zip(label_trues, label_preds)").replace("{counted}", "int(lt == lp)")
    write(tmp_path, {"setup.py": "", "metrics.py": metrics, "train.py": TRAIN.replace("{gate}", "validate_each_step")})
    assert findings(tmp_path, "train.py") == [
        ("TPL102", 17, 27, SYNC.format(what="`.cpu()`")), ("TPL102", 18, 25, SYNC.format(what="`.cpu()`"))]
    write(tmp_path, {"setup.py": "", "metrics.py": metrics, "train.py": TRAIN.replace("{gate}", "(i + 1) % 1000 == 0")})
    assert findings(tmp_path, "train.py") == []
