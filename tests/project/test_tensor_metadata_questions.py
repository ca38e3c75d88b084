"""R81: a tensor's ``is_*`` questions (``is_inference()``, ``is_pinned()``, ``is_leaf``) read its
metadata, not its data: Python bools, no wait. minimind's ``compute_per_token_logps`` (holdout125),
called every step from the GRPO loop of another module, asks ``input_ids.is_inference()`` before
cloning."""

from __future__ import annotations

from pathlib import Path

from _project_files import findings, write

HELPER = """
    import torch
    from torch import Tensor


    def compute_per_token_logps(model, input_ids: Tensor, n_keep: int) -> Tensor:
        input_ids = input_ids.detach().clone() if {test} else input_ids
        logits = model(input_ids).logits[:, :-1, :]
        return logits.log_softmax(dim=-1)[:, -n_keep:]
"""
TRAIN = """
    import torch
    from pkg.logps import compute_per_token_logps


    def train(model, ref_model, loader, optimizer):
        for input_ids in loader:
            with torch.no_grad():
                ref = compute_per_token_logps(ref_model, input_ids.cuda(), 8)
            loss = (compute_per_token_logps(model, input_ids.cuda(), 8) - ref).mean()
            loss.backward()
            optimizer.step()
"""
TRUTH = ("testing a tensor's truth waits for the device in every iteration; keep values on the device (`total += "
         "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report) (called every "
         "step from pkg/train.py:8)")


def _project(root: Path, test: str) -> list:
    write(root, {"setup.py": "", "pkg/__init__.py": "", "pkg/train.py": TRAIN,
                 "pkg/logps.py": HELPER.replace("{test}", test)})
    return findings(root, "pkg/logps.py")


def test_metadata_questions_of_a_tensor_are_python_bools(tmp_path):
    for index, test in enumerate(("input_ids.is_inference()", "input_ids.is_pinned()", "input_ids.is_leaf",
                                  "input_ids.is_floating_point()")):
        assert _project(tmp_path / str(index), test) == [], test


def test_a_question_about_the_tensors_values_stays_flagged(tmp_path):
    assert _project(tmp_path, "input_ids.any()") == [("TPL102", 6, 46, TRUTH)]
