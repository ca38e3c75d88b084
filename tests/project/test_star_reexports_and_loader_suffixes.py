"""Dassl.pytorch (holdout11; the lead, 2026-11-27, the thirteenth session): ``TrainerX.run_epoch``
iterates ``self.train_loader_x`` (a loader named with the suffix of its stream) and calls
``losses.update(loss_summary)`` every step, ``losses = MetricMeter()`` imported ``from dassl.utils``,
whose ``__init__.py`` re-exports it with ``from .meters import *``. ``MetricMeter.update`` calls
``.item()`` on every tensor of the summary: a sync every step, in another file."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write


PROJECT = {
    "setup.py": "",
    "dassl/__init__.py": "",
    "dassl/utils/__init__.py": "from .tools import *\nfrom .meters import *\n",
    "dassl/utils/tools.py": "def mkdir_if_missing(path):\n    return path\n",
    "dassl/utils/meters.py": """
        import torch


        class MetricMeter:
            def __init__(self):
                self.meters = {}

            def update(self, input_dict):
                for k, v in input_dict.items():
                    if isinstance(v, torch.Tensor):
                        v = v.item()
                    self.meters[k] = v
        """,
    "dassl/engine/__init__.py": "",
    "dassl/engine/trainer.py": """
        import torch

        from dassl.utils import MetricMeter


        class TrainerX:
            def run_epoch(self):
                losses = MetricMeter()
                for self.batch_idx, batch in enumerate(self.train_loader_x):
                    loss_summary = self.forward_backward(batch)
                    losses.update(loss_summary)

            def forward_backward(self, batch):
                loss = self.model(batch.cuda()).mean()
                loss.backward()
                return {"loss": loss}
        """,
}


def _findings(root: Path):
    return findings(root, "dassl/utils/meters.py")


def test_a_class_re_exported_by_a_star_import_is_reached_from_a_loop_over_a_suffixed_loader(tmp_path):
    write(tmp_path, PROJECT)
    assert _findings(tmp_path) == [
        ("TPL102", 11, 20, SYNC + " (called every step from dassl/engine/trainer.py:11)")]


def test_a_name_the_star_imported_modules_do_not_define_stays_unresolved(tmp_path):
    """Flagged twin's negative: the package re-exports ``tools`` only, so ``MetricMeter`` is not
    the project's class (an installed one of that name): silent."""
    write(tmp_path, {**PROJECT, "dassl/utils/__init__.py": "from .tools import *\n"})
    assert _findings(tmp_path) == []


def test_a_loader_name_with_another_suffix_is_no_loader(tmp_path):
    """``self.train_loader_cfg`` names a configuration, not a loader: the loop over it is no loop
    over a data loader, and the index does not see the backward that ``forward_backward`` runs
    there as the loop's own (silent, as before the suffixes were read)."""
    files = dict(PROJECT)
    files["dassl/engine/trainer.py"] = files["dassl/engine/trainer.py"].replace("train_loader_x", "train_loader_cfg")
    write(tmp_path, files)
    assert _findings(tmp_path) == []


def test_packages_that_star_import_each_other_are_read_a_bounded_number_of_times(tmp_path):
    """A package's ``__init__`` star-imports eight modules that star-import each other (the web of
    xrayto3D-benchmark's package, whose root star-imports seven subpackages that import names back
    from it): a name nobody defines sends the lookup round the web. It is followed two star levels
    deep and through no module twice on one path (unbounded, one file of xrayto3D-benchmark made 6.1
    million lookups, a minute; this smaller web ends either way): the class is still found through
    the web and the finding is the first test's."""
    files = dict(PROJECT)
    names = [f"m{i}" for i in range(8)]
    for name in names:
        files[f"dassl/utils/{name}.py"] = "".join(f"from .{other} import *\n" for other in names if other != name)
    files["dassl/utils/__init__.py"] = "".join(f"from .{name} import *\n" for name in names) + "from .meters import *\n"
    files["dassl/engine/trainer.py"] = files["dassl/engine/trainer.py"].replace(
        "losses.update(loss_summary)",
        "losses.update(loss_summary)\n                    other = Missing()\n                    other.update(loss_summary)")
    files["dassl/engine/trainer.py"] = files["dassl/engine/trainer.py"].replace(
        "from dassl.utils import MetricMeter", "from dassl.utils import MetricMeter, Missing")
    write(tmp_path, files)
    assert _findings(tmp_path) == [
        ("TPL102", 11, 20, SYNC + " (called every step from dassl/engine/trainer.py:11)")]
