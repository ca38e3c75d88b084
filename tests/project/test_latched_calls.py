"""A call under a latch (``if need_sync: sync(); need_sync = False``) in another module's step loop
runs once, not every step: the project index reads the latch as the rules do (throttles.py, the
ast and libcst twins; the lead, 2026-11-27, from dinov2's ``fsdp_synchronize_streams``)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import SYNC_TEMPLATE
from _project_files import findings_without_col, write

SYNC = SYNC_TEMPLATE.format(what="`torch.cuda.synchronize()`")

LATCHED = {
    "setup.py": "",
    "helpers.py": """
        import torch


        def sync_streams():
            torch.cuda.synchronize()
        """,
    "train.py": """
        import torch
        from helpers import sync_streams


        def train(model, loader, optimizer):
            need_sync = True
            for x in loader:
                model(x.cuda()).sum().backward()
                optimizer.step()
                if need_sync:
                    sync_streams()
                    need_sync = False
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "helpers.py")


def test_a_helper_called_under_a_latch_runs_once(tmp_path):
    write(tmp_path, LATCHED)
    assert _findings(tmp_path) == []


def test_a_flag_the_branch_leaves_on_is_a_setting(tmp_path):
    files = dict(LATCHED)
    files["train.py"] = files["train.py"].replace("need_sync = False", "synced = True")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 5, SYNC + " (called every step from train.py:11)")]


def test_a_helper_called_under_np_mod_runs_every_n_steps(tmp_path):
    """``if np.mod(step, 100):`` (no comparison) is ``%`` by name: the index reads the helper's call
    under it as an interval, as the walker reads the test (ChangeFormer's ``np.mod``)."""
    files = dict(LATCHED)
    files["train.py"] = files["train.py"].replace("need_sync = True", "import numpy as np").replace(
        "for x in loader:", "for step, x in enumerate(loader):").replace(
        "if need_sync:", "if not np.mod(step, 100):").replace("                    need_sync = False\n", "")
    write(tmp_path / "mod", files)
    assert _findings(tmp_path / "mod") == []
    files["train.py"] = files["train.py"].replace("if not np.mod(step, 100):", "if not np.sign(step):")
    write(tmp_path / "sign", files)
    assert [f[:2] for f in _findings(tmp_path / "sign")] == [("TPL102", 5)]
