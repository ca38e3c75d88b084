"""A method that hands its parameters to a sibling method which hands them to a host library hands
them to it too (the lead, 2026-11-26, from holdout17's GeoSeg; R3: a numpy consumer is host-needed)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import CPU_SYNC as SYNC
from _project_files import findings, write


GEOSEG_LIKE = {
    "setup.py": "",
    "tools/__init__.py": "",
    "tools/metric.py": """
        import numpy as np


        class Evaluator(object):
            def __init__(self, num_class):
                self.num_class = num_class
                self.confusion_matrix = np.zeros((self.num_class,) * 2)

            def _generate_matrix(self, gt_image, pre_image):
                mask = (gt_image >= 0) & (gt_image < self.num_class)
                label = self.num_class * gt_image[mask].astype('int') + pre_image[mask]
                count = np.bincount(label, minlength=self.num_class ** 2)
                return count.reshape(self.num_class, self.num_class)

            def add_batch(self, gt_image, pre_image):
                assert gt_image.shape == pre_image.shape
                self.confusion_matrix += self._generate_matrix(gt_image, pre_image)
        """,
    "train_supervision.py": """
        import torch
        import lightning.pytorch as pl
        from tools.metric import Evaluator


        class Supervision_Train(pl.LightningModule):
            def __init__(self, net):
                super().__init__()
                self.net = net
                self.metrics_train = Evaluator(num_class=6)

            def training_step(self, batch, batch_idx):
                img, mask = batch['img'], batch['gt_semantic_seg']
                prediction = self.net(img)
                pre_mask = prediction.argmax(dim=1)
                for i in range(mask.shape[0]):
                    self.metrics_train.add_batch(mask[i].cpu().numpy(), pre_mask[i].cpu().numpy())
                return prediction.mean()
        """,
}


def _findings(root: Path):
    return findings(root, "train_supervision.py")


def test_arrays_handed_to_a_numpy_metric_through_a_sibling_method_are_host_needed(tmp_path):
    write(tmp_path, GEOSEG_LIKE)
    assert _findings(tmp_path) == []


def test_a_sibling_that_keeps_them_in_torch_needs_no_host_copy(tmp_path):
    files = dict(GEOSEG_LIKE)
    files["tools/metric.py"] = files["tools/metric.py"].replace("count = np.bincount(", "count = label.bincount(")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 17, 41, SYNC), ("TPL102", 17, 64, SYNC)]
