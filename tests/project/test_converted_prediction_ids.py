"""R80: an id read with ``int(x.item()) if isinstance(x, torch.Tensor) else x`` and kept in a
prediction record is host-needed (R44's kept prediction field through the conditional conversion):
LAVIS's VQA tasks (holdout123), whose ``valid_step`` override a base task's evaluation loop in
another module calls for every batch."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write

BASE_TASK = """
    import torch


    class BaseTask:
        def valid_step(self, model, samples):
            raise NotImplementedError

        def evaluation(self, model, data_loader):
            results = []
            for samples in data_loader:
                eval_output = self.valid_step(model=model, samples=samples)
                results.extend(eval_output)
            return results
"""
VQA = """
    import torch

    from pkg.base_task import BaseTask


    class VQATask(BaseTask):
        def valid_step(self, model, samples):
            answers = model.predict_answers(samples=samples, answer_list=self.answer_list)
            pred_qa_pairs = []
            for answer, ques_id in zip(answers, samples["question_id"]):
                ques_id = int(ques_id.item()) if isinstance(ques_id, torch.Tensor) else {otherwise}
                pred_qa_pairs.append({"{key}": ques_id, "answer": answer})
            return pred_qa_pairs
"""
CALLED = " (called every step from pkg/base_task.py:11)"


def _project(root: Path, otherwise: str = "ques_id", key: str = "question_id") -> list:
    write(root, {"setup.py": "", "pkg/__init__.py": "", "pkg/base_task.py": BASE_TASK,
                 "pkg/vqa.py": VQA.replace("{otherwise}", otherwise).replace("{key}", key)})
    return findings(root, "pkg/vqa.py")


def test_an_id_converted_when_it_is_a_tensor_and_kept_beside_the_answer_is_host_needed(tmp_path):
    assert _project(tmp_path) == []


def test_a_conversion_to_something_else_or_a_metric_stays_flagged(tmp_path):
    """The other branch is not the value as it was (``else -1``), or the record files the number
    under a key that says it measures (``"loss"``): R44's metric, per batch."""
    assert _project(tmp_path / "other", otherwise="-1") == [("TPL102", 11, 26, SYNC + CALLED)]
    assert _project(tmp_path / "metric", key="loss") == [("TPL102", 11, 26, SYNC + CALLED)]
