"""The project index never hangs, crashes or changes a file's findings beyond the facts that are
missing: import cycles, symlink loops, undecodable and unparsable files, big generated trees."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from torchperf_lint.analysis import project_index
from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC

UTILS = """\
import torch


def log_metrics(loss):
    print(loss.item())
"""
TRAIN = """\
import torch
import utils


def main(model, loader, opt):
    for x in loader:
        loss = model(x).sum()
        loss.backward()
        opt.step()
        utils.log_metrics(loss)
"""
CHAINED = SYNC + " (called every step from train.py:10)"


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv(project_index.CACHE_ENV, str(tmp_path / "cache"))
    project_index._PROJECTS.clear()
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "utils.py").write_text(UTILS)
    (root / "train.py").write_text(TRAIN)
    yield root
    project_index._PROJECTS.clear()


def utils_findings(root: Path):
    path = root / "utils.py"
    return [(f.code, f.line, f.message) for f in lint_source(path.read_text(), str(path))]


def test_import_cycle(root):
    (root / "utils.py").write_text("import train\n" + UTILS.replace("def log_metrics", "\ndef log_metrics"))
    (root / "train.py").write_text(TRAIN.replace("import utils", "import utils\nfrom train import main as again"))
    found = utils_findings(root)
    assert found == [("TPL102", 7, SYNC + " (called every step from train.py:11)")]


def test_symlink_loop_and_dangling_link(root):
    (root / "pkg").mkdir()
    os.symlink(root, root / "pkg" / "loop")  # a folder that contains itself
    os.symlink(root / "missing.py", root / "dangling.py")
    assert utils_findings(root) == [("TPL102", 5, CHAINED)]


def test_undecodable_and_unparsable_files_elsewhere(root):
    (root / "latin.py").write_bytes(b"import utils\n# caf\xe9\nutils.log_metrics(x)\n")
    (root / "broken.py").write_text("import utils\ndef f(:\n    utils.log_metrics(x)\n")
    (root / "fifo.py").unlink(missing_ok=True)
    os.mkfifo(root / "fifo.py")
    assert utils_findings(root) == [("TPL102", 5, CHAINED)]


def test_deep_base_class_chain_and_self_inheritance(root):
    lines = ["import torch", "import utils", "import lightning.pytorch as pl", "",
             "class A(A):", "    pass", "", "class B0(pl.LightningModule):", "    pass"]
    for index in range(1, 80):
        lines += ["", f"class B{index}(B{index - 1}):", "    pass"]
    lines += ["", "class Lit(B79):", "    def training_step(self, batch, batch_idx):",
              "        utils.log_metrics(batch)"]
    (root / "model.py").write_text("\n".join(lines) + "\n")
    found = utils_findings(root)
    assert [f[:2] for f in found] == [("TPL102", 5)]


def test_big_generated_tree_finishes_with_the_same_findings(root):
    generated = root / "generated"
    for package in range(30):
        folder = generated / f"p{package}"
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        for index in range(100):
            (folder / f"m{index}.py").write_text(
                f"import os\n\n\ndef f{index}(x):\n    return os.path.join(x, '{index}')\n")
    assert utils_findings(root) == [("TPL102", 5, CHAINED)]
    (project,) = project_index._PROJECTS.values()
    assert project.parsed == 1  # train.py; none of the 3,000 files that never import utils


def test_excluded_files_are_not_part_of_the_project(root):
    (root / "pyproject.toml").write_text('[tool.torchperf-lint]\nextend-exclude = ["legacy"]\n')
    (root / "legacy").mkdir()
    (root / "legacy" / "old_train.py").write_text(TRAIN)
    (root / "train.py").unlink()
    assert utils_findings(root) == []
    (root / "pyproject.toml").write_text("")
    project_index._PROJECTS.clear()
    assert utils_findings(root) == [("TPL102", 5, SYNC + " (called every step from legacy/old_train.py:10)")]


def test_a_project_whose_listing_is_empty_still_resolves_its_modules(root):
    """Every file left out of the listing (``extend-exclude``, hidden folders): no module is found
    to import the linted file, but its imports still resolve through the project (its framework
    base class in another module), as they do in a project with files to list."""
    (root / "pyproject.toml").write_text('[tool.torchperf-lint]\nextend-exclude = ["*.py"]\n')
    (root / "base.py").write_text("import lightning.pytorch as pl\n\n\nclass Base(pl.LightningModule):\n    pass\n")
    lit = root / "lit.py"
    lit.write_text(textwrap.dedent("""\
        import torch
        from base import Base


        class Lit(Base):
            def training_step(self, batch, batch_idx):
                loss = self.model(batch).sum()
                print(loss.item())
                return loss
        """))
    found = [(f.code, f.line, f.message) for f in lint_source(lit.read_text(), str(lit))]
    assert found == [("TPL102", 8, SYNC)]
    (project,) = project_index._PROJECTS.values()
    assert project.importers("lit") == []
