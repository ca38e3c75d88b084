"""SingingVocoders (holdout61): the base task's ``__init__`` calls ``self.build_losses_and_metrics()``,
which each task overrides to bind ``self.mix_loss = univloss(self.config)`` (a lower-case project
class in another file); ``training_step`` calls ``self.mix_loss.GDloss(...)`` every step. An
attribute that methods other than ``__init__`` bind to one class only is an instance of it."""

from __future__ import annotations

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write


LOSS = """
    import torch


    class univloss(torch.nn.Module):
        def GDloss(self, fake, true):
            loss = (fake - true).abs().mean()
            return loss, {"GD": loss.item()}
    """
TASK = """
    import lightning.pytorch as pl
    import torch
    from losses import univloss, OtherLoss


    class BaseTask(pl.LightningModule):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.mix_loss = None
            self.build_losses_and_metrics()

        def build_losses_and_metrics(self):
            raise NotImplementedError


    class VocoderTask(BaseTask):
        def build_losses_and_metrics(self):
            self.mix_loss = {built}

        def training_step(self, batch, batch_idx):
            loss, log = self.mix_loss.GDloss(self.generator(batch["mel"]), batch["audio"])
            return loss
    """


def test_an_attribute_a_builder_method_binds_to_one_class_is_an_instance_of_it(tmp_path):
    write(tmp_path, {"setup.py": "", "losses.py": LOSS, "task.py": TASK.replace("{built}", "univloss(self.config)")})
    assert findings(tmp_path, "losses.py") == [
        ("TPL102", 7, 28, SYNC + " (called every step from task.py:22 via training_step)")]


def test_an_attribute_bound_to_something_else_too_is_not_followed(tmp_path):
    """Another class in another builder, a parameter, or a choice between classes: not one class."""
    other_builder = ("\n        def build_other(self):\n            self.mix_loss = OtherLoss()\n")
    handed = "\n        def reset(self, loss):\n            self.mix_loss = loss\n"
    cases = {"two": TASK.replace("{built}", "univloss(self.config)") + other_builder,
             "param": TASK.replace("{built}", "univloss(self.config)") + handed,
             "choice": TASK.replace("{built}", "univloss(self.config) if self.config else OtherLoss()")}
    for name, task in cases.items():
        root = tmp_path / name
        write(root, {"setup.py": "", "losses.py": LOSS, "task.py": task})
        assert findings(root, "losses.py") == [], name
