"""Two forms of Speech-Transformer (holdout19; the lead, 2026-11-27):

- ``from loss import cal_performance`` in ``src/solver/solver.py`` resolves only through the
  ``PYTHONPATH`` its run script sets (``src/transformer``): the one project file ``loss.py`` that
  defines ``cal_performance`` is the module (script_folders, 5.). Two files defining it, or a file
  named so that does not define it, leave the import unresolved (an installed package).
- ``gold = gold.contiguous().view(-1)`` rebinds a parameter from itself: what the caller passed
  decides where it lives, so the helper it is handed on to does not get a host value
  (argument_places.HostNames; it did, and ``cal_loss``'s ``.item()`` went silent)."""

from __future__ import annotations

from pathlib import Path

from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write


PROJECT = {
    "setup.py": "",
    "src/__init__.py": "",
    "src/solver/__init__.py": "",
    "src/transformer/__init__.py": "",
    "src/transformer/loss.py": """
        import torch


        def cal_performance(pred, gold, smoothing=0.0):
            gold = gold.contiguous().view(-1)
            loss = cal_loss(pred, gold, smoothing)
            n_correct = pred.argmax(1).eq(gold).sum().item()
            return loss, n_correct


        def cal_loss(pred, gold, smoothing=0.0):
            non_pad_mask = gold.ne(-1)
            n_word = non_pad_mask.sum().item()
            return torch.nn.functional.cross_entropy(pred, gold, reduction="sum") / n_word
        """,
    "src/solver/solver.py": """
        import torch

        from loss import cal_performance


        class Solver:
            def __init__(self, model, loader, optimizer):
                self.model = model
                self.loader = loader
                self.optimizer = optimizer

            def train(self):
                for x, y in self.loader:
                    pred = self.model(x.cuda())
                    loss, n_correct = cal_performance(pred, y.cuda())
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
        """,
}


def _findings(root: Path):
    return findings(root, "src/transformer/loss.py")


def test_an_import_only_the_run_scripts_path_resolves_reaches_the_one_file_defining_it(tmp_path):
    write(tmp_path, PROJECT)
    assert _findings(tmp_path) == [
        ("TPL102", 7, 16, SYNC + " (called every step from src/solver/solver.py:15)"),
        ("TPL102", 13, 13, SYNC + " (called every step from src/solver/solver.py:15 via cal_performance)"),
    ]


def test_two_files_defining_the_name_or_none_leave_the_import_unresolved(tmp_path):
    files = dict(PROJECT)
    files["tools/loss.py"] = "def cal_performance(pred, gold):\n    return pred\n"
    write(tmp_path, files)
    assert _findings(tmp_path) == []


def test_a_file_of_that_name_that_does_not_define_the_name_is_not_the_module(tmp_path):
    files = dict(PROJECT)
    files["src/transformer/loss.py"] = files["src/transformer/loss.py"].replace(
        "def cal_performance(", "def cal_scores(")
    files["src/transformer/metrics.py"] = "from loss import cal_scores as cal_performance\n"
    write(tmp_path, files)
    assert _findings(tmp_path) == []


def test_a_parameter_rebound_from_itself_is_not_a_host_value(tmp_path):
    """The caller hands ``y.cuda()``; a batch label rebound by ``.view`` stays where it was. Rebound
    to a host copy (``gold.cpu()``, itself a sync), ``cal_loss``'s ``gold`` is on the host."""
    write(tmp_path / "moved", PROJECT)
    assert [f[1] for f in _findings(tmp_path / "moved")] == [7, 13]
    files = dict(PROJECT)
    files["src/transformer/loss.py"] = files["src/transformer/loss.py"].replace(
        "gold = gold.contiguous().view(-1)", "gold = gold.cpu()")
    write(tmp_path / "copied", files)
    assert [f[1] for f in _findings(tmp_path / "copied")] == [5, 7]


LIB_ON_PATH = {
    "setup.py": "",
    "tools/_init_paths.py": """
        import os.path as osp
        import sys


        def add_path(path):
            if path not in sys.path:
                sys.path.insert(0, path)


        add_path(osp.join(osp.dirname(__file__), "..", "lib"))
        """,
    "tools/train.py": """
        import _init_paths
        from core.function import train
        """,
    "lib/core/__init__.py": "",
    "lib/core/evaluate.py": """
        import torch


        def accuracy(output, target):
            correct = (output.argmax(1) == target).sum().item()
            return correct / len(target)
        """,
    "lib/core/function.py": """
        import torch

        from core.evaluate import accuracy


        def train(model, loader, optimizer):
            for images, target in loader:
                output = model(images.cuda())
                loss = torch.nn.functional.cross_entropy(output, target.cuda())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                acc = accuracy(output, target.cuda())
        """,
}


def test_a_dotted_import_of_a_folder_a_helper_function_puts_on_the_path_reaches_its_one_file(tmp_path):
    """HRNet's ``tools/_init_paths.py`` puts ``lib`` on ``sys.path`` through a helper function, and
    ``lib/core/function.py`` imports ``from core.evaluate import accuracy``: the one file at
    ``.../core/evaluate.py`` defining ``accuracy`` is the module (script_folders, 5., dotted). A
    second ``core/evaluate.py`` defining it leaves the import unresolved."""
    write(tmp_path, LIB_ON_PATH)
    path = tmp_path / "lib/core/evaluate.py"
    found = [(f.code, f.line, f.col, f.message) for f in lint_source(path.read_text(), str(path), codes=("TPL102",))]
    assert found == [("TPL102", 5, 14, SYNC
                      + " (called every step from lib/core/function.py:13)")]
    twice = tmp_path / "twice"
    write(twice, {**LIB_ON_PATH, "other/core/__init__.py": "",
                  "other/core/evaluate.py": "def accuracy(output, target):\n    return 0\n"})
    path = twice / "lib/core/evaluate.py"
    assert lint_source(path.read_text(), str(path), codes=("TPL102",)) == []


STAR_ON_SCRIPT_PATH = {
    "setup.py": "",
    "code/model/__init__.py": "",
    "code/model/embedder.py": "import torch\nimport torch.nn as nn\n",
    "code/model/network.py": """
        from model.embedder import *


        class RenderingNetwork(nn.Module):
            def volume_rendering(self, z_vals, density):
                dists = z_vals[:, 1:] - z_vals[:, :-1]
                return torch.cat([dists, torch.zeros(dists.shape[0], 1).cuda()], -1) * density
        """,
    "code/training/train.py": """
        import sys
        sys.path.append("../code")
        from model.network import RenderingNetwork
        """,
}


def test_a_star_import_that_only_the_script_s_folder_resolves_binds_torch(tmp_path):
    """volsdf's ``code/model/network.py`` gets torch only through ``from model.embedder import *``,
    which resolves when the scripts run from ``code/``: the one project file at the end of
    ``model/embedder.py`` is the module (script_folders, 5., for a star import), so the file imports
    torch (R25) and its CPU factory moved with ``.cuda()`` is found. Two such files leave the star
    unresolved: no torch, no finding (rules.md)."""
    write(tmp_path, STAR_ON_SCRIPT_PATH)
    path = tmp_path / "code/model/network.py"
    found = [(f.code, f.line, f.col, f.message) for f in lint_source(path.read_text(), str(path), codes=("TPL101",))]
    assert found == [("TPL101", 7, 33, "tensor is created on the CPU and then copied to the device; pass `device=` to "
                      "`torch.zeros(...)` to create it there (runtime_guard: device-native creation)")]
    twice = tmp_path / "twice"
    write(twice, {**STAR_ON_SCRIPT_PATH, "other/model/__init__.py": "", "other/model/embedder.py": "X = 1\n"})
    path = twice / "code/model/network.py"
    assert lint_source(path.read_text(), str(path), codes=("TPL101",)) == []
