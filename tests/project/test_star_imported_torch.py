"""A module that gets torch only through ``from <project module> import *`` (TextBrewer's
``distiller_train.py``, holdout24; the lead, 2026-11-27) is a torch module: every rule runs on it,
with the names the star import brings in."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import CPU_SYNC as SYNC
from _project_files import findings_without_col, write

SYNCHRONIZE = SYNC.replace("`.cpu()`", "`torch.cuda.synchronize()`")

PROJECT = {
    "setup.py": "",
    "pkg/__init__.py": "",
    "pkg/utils.py": """
        import torch
        import torch.nn.functional as F
        from pkg.common import *
        """,
    "pkg/common.py": """
        import numpy as np
        """,
    "pkg/train.py": """
        from .utils import *


        def train(model, loader, optimizer):
            for batch in loader:
                loss = F.cross_entropy(model(batch[0].cuda()), batch[1].cuda())
                loss.backward()
                optimizer.step()
                print(loss.cpu())
                torch.cuda.synchronize()
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "pkg/train.py")


def test_torch_through_a_star_import_of_a_project_module(tmp_path):
    write(tmp_path, PROJECT)
    assert _findings(tmp_path) == [("TPL102", 9, SYNC), ("TPL102", 10, SYNCHRONIZE)]


def test_a_star_import_of_a_module_without_torch_brings_no_torch(tmp_path):
    files = dict(PROJECT)
    files["pkg/utils.py"] = "from pkg.common import *\n"
    write(tmp_path, files)
    assert _findings(tmp_path) == []


def test_torch_two_star_imports_down(tmp_path):
    files = dict(PROJECT)
    files["pkg/utils.py"] = "from pkg.common import *\n"
    files["pkg/common.py"] = "import torch\nimport torch.nn.functional as F\n"
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 9, SYNC), ("TPL102", 10, SYNCHRONIZE)]


def test_torch_through_a_star_import_beside_a_submodule_alias(tmp_path):
    """pytorch-YOLOv4's ``tool/region_loss.py``: ``import torch.nn as nn`` binds ``nn`` alone; the
    ``torch`` its ``torch.linspace(...).cuda()`` uses comes from ``from tool.torch_utils import *``
    (holdout27). A module that also binds ``torch`` itself reads its own import (same findings)."""
    files = dict(PROJECT)
    files["pkg/train.py"] = PROJECT["pkg/train.py"].replace(
        "from .utils import *", "import torch.nn as nn\n        from .utils import *")
    write(tmp_path, files)
    shifted = [("TPL102", 10, SYNC), ("TPL102", 11, SYNCHRONIZE)]
    assert _findings(tmp_path) == shifted
    files["pkg/train.py"] = PROJECT["pkg/train.py"].replace(
        "from .utils import *", "import torch.nn as nn\n        import torch\n        from .utils import *")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 11, SYNC), ("TPL102", 12, SYNCHRONIZE)]


def test_a_star_import_written_without_a_space(tmp_path):
    """STBP-for-training-SpikingNN's ``from spiking_model import*`` (holdout223): Python reads it as
    ``import *``; the text tests that decide whether a file may get torch from a star import
    looked for ``"import *"`` and skipped the file, so its module-level training loop, torch
    coming through the star import, got no finding."""
    files = dict(PROJECT)
    files["pkg/train.py"] = files["pkg/train.py"].replace("from .utils import *", "from .utils import*")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 9, SYNC), ("TPL102", 10, SYNCHRONIZE)]
