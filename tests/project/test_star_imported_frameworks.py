"""R73: a framework base named through a star import of a project module that imports the framework
(RWKV-infctx-trainer, holdout125: ``from .module.CoreDependencies import *`` in ``model.py``, where
``CoreDependencies.py`` says ``import lightning as L``, then ``class RWKV(L.LightningModule)``) is that
framework's base, as Python binds it: the class's ``training_step`` is a step body, and what it calls
runs every step."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import EMPTY_CACHE, ITEM_SYNC as SYNC
from _project_files import findings, write
from torchperf_lint import engine

DEPENDENCIES = """
    import torch
    import lightning as L
"""
NOT_A_FRAMEWORK = """
    import torch
    import collections as L
"""

MODEL = """
    from .deps import *


    class Net(L.LightningModule):
        def training_step(self, batch, batch_idx):
            loss = self.compute_loss(batch)
            torch.cuda.empty_cache()
            return loss

        def compute_loss(self, batch):
            loss = self.net(batch).mean()
            self.tokens += batch.sum().item()
            return loss
"""
REPORTED = [
    ("TPL102", 12, 23, SYNC + " (called every step from pkg/model.py:6 via training_step)"),
    ("TPL103", 7, 8, EMPTY_CACHE),
]


def _project(root: Path, dependencies: str, model: str = MODEL, star: str = "from .deps import *") -> list:
    write(root, {"setup.py": "", "pkg/__init__.py": "", "pkg/deps.py": dependencies,
                 "pkg/model.py": model.replace("from .deps import *", star)})
    return sorted(findings(root, "pkg/model.py", codes=("TPL102", "TPL103")))


def test_a_lightning_base_bound_by_a_star_imported_module_makes_training_step_a_step_body(tmp_path):
    assert _project(tmp_path, DEPENDENCIES) == REPORTED


def test_through_a_star_import_of_a_star_import(tmp_path):
    """``model.py`` star-imports ``common.py``, which star-imports ``deps.py``: two levels."""
    write(tmp_path, {"pkg/common.py": "from .deps import *\n"})
    assert _project(tmp_path, DEPENDENCIES, star="from .common import *") == REPORTED


def test_the_same_name_bound_to_something_else_is_no_framework(tmp_path):
    """``L`` bound to another module there: ``L.LightningModule`` is no Lightning base, and the
    method named ``training_step`` runs when someone calls it (nothing here does)."""
    assert _project(tmp_path, NOT_A_FRAMEWORK) == []


def test_a_name_the_module_binds_itself_wins_over_the_star_import(tmp_path):
    """``import collections as L`` after the star import binds ``L`` in the module itself."""
    model = MODEL.replace("from .deps import *", "from .deps import *\nimport collections as L")
    assert _project(tmp_path, DEPENDENCIES, model=model) == []


def test_the_star_imported_module_is_a_dependency_of_the_findings(tmp_path):
    """The findings rest on ``deps.py``'s import: the finding cache must read them again when it
    changes (the step-body walk lists it among the modules it read)."""
    assert _project(tmp_path, DEPENDENCIES) == REPORTED
    model = str(tmp_path / "pkg" / "model.py")
    assert str(tmp_path / "pkg" / "deps.py") in {stamp[0] for stamp in engine.dependencies_of(model)}
    # again in the same process: the class's ancestry now comes from the project's memo, which
    # must bring the star-imported module back into the walk's reading
    assert findings(tmp_path, "pkg/model.py", codes=("TPL102", "TPL103"))
    assert str(tmp_path / "pkg" / "deps.py") in {stamp[0] for stamp in engine.dependencies_of(model)}
