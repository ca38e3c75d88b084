"""A parameter annotated with a project class, in another file, is an instance of it: a copy handed
to one of its methods that hands it to numpy is host-needed (openvla's ``action_tokenizer:
ActionTokenizer`` ... ``action_tokenizer.decode_token_ids_to_actions(preds.cpu().numpy())``, judged
false on holdout36; R3 through R34)."""

from __future__ import annotations

from pathlib import Path

from torchperf_lint.engine import lint_source

from _diagnostics import CPU_SYNC as SYNC
from _project_files import findings, write


OPENVLA_LIKE = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/tok.py": """
        import numpy as np


        class ActionTokenizer:
            def decode_token_ids_to_actions(self, action_token_ids):
                ids = np.clip(action_token_ids, 0, 255)
                return self.bins[ids]
        """,
    "pkg/train.py": """
        import torch
        from pkg.tok import ActionTokenizer


        def run(model, loader, opt, action_tokenizer: ActionTokenizer):
            for batch in loader:
                out = model(batch["x"].cuda())
                loss = out.mean()
                loss.backward()
                opt.step()
                preds = out.argmax(-1)
                acts = torch.tensor(action_tokenizer.decode_token_ids_to_actions(preds.cpu().numpy()))
        """,
}


def _findings(root: Path):
    return findings(root, "pkg/train.py")


def test_a_copy_handed_to_a_numpy_method_of_an_annotated_parameter_is_host_needed(tmp_path):
    write(tmp_path, OPENVLA_LIKE)
    assert _findings(tmp_path) == []


def test_a_method_that_keeps_it_in_torch_or_no_annotation_leaves_the_copy_flagged(tmp_path):
    files = dict(OPENVLA_LIKE)
    files["pkg/tok.py"] = files["pkg/tok.py"].replace("np.clip(action_token_ids, 0, 255)",
                                                      "action_token_ids.clamp(0, 255)")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 12, 73, SYNC)]
    files = dict(OPENVLA_LIKE)
    files["pkg/train.py"] = files["pkg/train.py"].replace("action_tokenizer: ActionTokenizer", "action_tokenizer")
    write(tmp_path / "plain", files)
    path = tmp_path / "plain" / "pkg" / "train.py"
    assert [(f.line, f.col) for f in lint_source(path.read_text(), str(path), codes=("TPL102",))] == [(12, 73)]


def _bound_in_the_function(files: dict) -> dict:
    """openvla's own spelling: ``action_tokenizer = ActionTokenizer(...)`` in the training function,
    the class imported from another file."""
    files = dict(files)
    files["pkg/train.py"] = files["pkg/train.py"].replace(
        "opt, action_tokenizer: ActionTokenizer):\n",
        "opt, processor):\n            action_tokenizer = ActionTokenizer(processor.tokenizer)\n")
    return files


def test_a_name_bound_to_an_instance_of_a_class_imported_from_another_file_is_that_class(tmp_path):
    write(tmp_path, _bound_in_the_function(OPENVLA_LIKE))
    assert "ActionTokenizer(processor.tokenizer)" in (tmp_path / "pkg" / "train.py").read_text()
    assert _findings(tmp_path) == []


def test_an_imported_class_whose_method_keeps_the_value_in_torch_leaves_the_copy_flagged(tmp_path):
    files = _bound_in_the_function(OPENVLA_LIKE)
    files["pkg/tok.py"] = files["pkg/tok.py"].replace("np.clip(action_token_ids, 0, 255)",
                                                      "action_token_ids.clamp(0, 255)")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 13, 73, SYNC)]
