"""LLaVA-MoD's DPO trainer (holdout143): ``get_logp`` binds ``moe_loss = outputs.moe_loss`` in one
branch and ``moe_loss = None`` in the other, and returns it; ``compute_loss`` in another module
tests ``if moe_loss:`` every step. A binding to ``None`` beside others stands for no value: the
name holds a model output's loss field when it holds anything, and its truth test waits for the
device (R116). Bound to a number in the other branch, nothing is known."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

TRUTH = SYNC.format(what="testing a tensor's truth")

HELPER = """
    import torch


    class Base:
        def get_logp(self, model, inputs):
            outputs = model(**inputs, return_dict=True)
            if self.moe_enable:
                moe_loss = outputs.moe_loss
            else:
                moe_loss = {other}
            return outputs.logits.log_softmax(-1), moe_loss
"""
TRAINER = """
    import torch
    from transformers import Trainer
    from helper import Base


    class DPOTrainer(Trainer, Base):
        def compute_loss(self, model, inputs, return_outputs=False):
            logps, moe_loss = self.get_logp(model, inputs)
            losses = -logps.mean()
            if moe_loss:
                losses = losses + moe_loss
            return losses
"""


def _project(root, other):
    write(root, {"pyproject.toml": "", "helper.py": HELPER.replace("{other}", other), "trainer.py": TRAINER})
    return findings(root, "trainer.py")


def test_a_loss_field_or_none_returned_by_a_helper_is_tested_as_a_tensor(tmp_path):
    assert _project(tmp_path, "None") == [("TPL102", 10, 11, TRUTH)]


def test_a_loss_field_or_a_number_is_not_known(tmp_path):
    assert _project(tmp_path, "0.0") == []
