"""TOFU's ``get_batch_loss`` (holdout143) builds ``loss_function = nn.CrossEntropyLoss(reduction=
"none")`` and returns ``loss_function(...)``; an HF ``compute_loss`` in another module prints a mean
of what it returns every step. What a project function returns is read by return_kinds: a local
name bound to a torch module built on the spot is called as that module (R110)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

PRINTING = SYNC.format(what="printing a tensor")

DATA_MODULE = """
    import torch
    from torch import nn


    def get_batch_loss(output, labels):
        {build}
        loss = loss_function(output.transpose(-1, -2), labels).sum(dim=-1)
        return loss
"""
TRAINER = """
    import torch
    from transformers import Trainer
    from data_module import get_batch_loss


    class ForgettingTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False):
            input_ids, labels = inputs
            with torch.no_grad():
                outputs = model(input_ids, labels=labels)
                kl_term = (-1 * get_batch_loss(outputs.logits, labels)).mean()
            print(kl_term)
            loss = model(input_ids, labels=labels).loss
            return loss
"""


def _project(root, build):
    write(root, {"pyproject.toml": "", "data_module.py": DATA_MODULE.replace("{build}", build),
                 "trainer.py": TRAINER})
    return findings(root, "trainer.py")


def test_a_local_torch_loss_module_called_in_a_helper_returns_a_tensor(tmp_path):
    assert _project(tmp_path, 'loss_function = nn.CrossEntropyLoss(reduction="none")') == [
        ("TPL102", 12, 8, PRINTING)]


def test_a_local_bound_to_anything_else_says_nothing(tmp_path):
    """Bound to a project function (what it returns is not read here), or once to a module and once
    to something else, the call's result stays unknown and ``print`` of it is not reported."""
    assert _project(tmp_path / "function", "loss_function = make_loss()") == []
    assert _project(tmp_path / "mixed", 'loss_function = nn.CrossEntropyLoss(reduction="none")\n'
                    '    if labels is None:\n        loss_function = make_loss()') == []
