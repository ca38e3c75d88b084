"""A ``src/`` folder that is no package, imported as ``src.<pkg>`` (a namespace package) by the
files that call into it (Open-MAGVIT2, holdout55): the index names the module without ``src.``,
the importer spells it with it; both are the same module, so the callee's importers are found."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write


EMA = """
    import torch


    class LitEma(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.register_buffer("num_updates", torch.tensor(0, dtype=torch.int))

        def forward(self, model):
            if self.num_updates >= 0:
                self.num_updates += 1
    """
LIT = """
    import lightning.pytorch as pl
    import torch
    from {package}.modules.ema import LitEma


    class VQModel(pl.LightningModule):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.model_ema = LitEma(self)

        def training_step(self, batch, batch_idx):
            return self.net(batch).mean()

        def on_train_batch_end(self, *args, **kwargs):
            self.model_ema(self)
    """


def _project(tmp_path: Path, package: str) -> None:
    write(tmp_path, {"setup.py": "", "main.py": "import torch\n", "src/vq/modules/ema.py": EMA,
                     "src/vq/models/lit.py": LIT.replace("{package}", package)})


def test_a_callee_imported_through_a_src_namespace_package_is_reached(tmp_path):
    _project(tmp_path, "src.vq")
    assert findings(tmp_path, "src/vq/modules/ema.py") == [
        ("TPL102", 10, 11, SYNC.format(what="testing a tensor's truth")
         + " (called every step from src/vq/models/lit.py:16 via on_train_batch_end)")]


def test_the_same_callee_imported_without_src_is_reached_too(tmp_path):
    _project(tmp_path, "vq")
    assert findings(tmp_path, "src/vq/modules/ema.py") == [
        ("TPL102", 10, 11, SYNC.format(what="testing a tensor's truth")
         + " (called every step from src/vq/models/lit.py:16 via on_train_batch_end)")]


def test_an_unrelated_src_import_reaches_nothing(tmp_path):
    _project(tmp_path, "src.other")
    assert findings(tmp_path, "src/vq/modules/ema.py") == []
