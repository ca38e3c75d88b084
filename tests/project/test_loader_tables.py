"""A dict of loaders by split (USB, holdout88; reading R47.7): ``AlgorithmBase.train`` iterates
``zip(self.loader_dict["train_lb"], self.loader_dict["train_ulb"])`` and calls ``self.train_step``,
which each algorithm overrides in its own module: an item of ``loader_dict`` is a loader, so the
loop is a step loop and every override is a step body ("Step loops a class inherits")."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

BASE = """
    import torch


    class AlgorithmBase:
        def train(self):
            for epoch in range(self.epochs):
                for data_lb, data_ulb in zip(self.{table}["train_lb"], self.{table}["train_ulb"]):
                    self.call_hook("before_train_step")
                    self.out_dict, self.log_dict = self.train_step(**data_lb, **data_ulb)
                    self.call_hook("after_train_step")

        def train_step(self, x_lb, y_lb, x_ulb_w):
            raise NotImplementedError
    """
FIXMATCH = """
    import torch

    from algorithmbase import AlgorithmBase


    class FixMatch(AlgorithmBase):
        def train_step(self, x_lb, y_lb, x_ulb_w):
            sup_loss = self.ce_loss(self.model(x_lb), y_lb)
            log_dict = self.process_log_dict(sup_loss=sup_loss.item())
            return {"loss": sup_loss}, log_dict
    """


def test_an_override_run_by_a_loop_over_a_dict_of_loaders_is_a_step_body(tmp_path):
    write(tmp_path, {"setup.py": "", "algorithmbase.py": BASE.replace("{table}", "loader_dict"),
                     "fixmatch.py": FIXMATCH})
    assert findings(tmp_path, "fixmatch.py") == [
        ("TPL102", 9, 50, SYNC.format(what="`.item()`") + " (called every step from algorithmbase.py:9)")]


def test_a_loop_over_items_of_another_dict_is_not_known_to_take_batches(tmp_path):
    """``self.schedule_dict[...]`` names no loaders: the loop is not known to iterate batches, and
    it runs no update the file shows."""
    write(tmp_path, {"setup.py": "", "algorithmbase.py": BASE.replace("{table}", "schedule_dict"),
                     "fixmatch.py": FIXMATCH})
    assert findings(tmp_path, "fixmatch.py") == []
