"""R144: a helper re-exported by a package's ``__init__.py`` (``from .utils import *``) and imported
from the package by a module in a folder without ``__init__.py`` that also holds a file of the
package's name (VRP-DACT, holdout161: ``agent/ppo.py`` does ``from utils import clip_grad_norms``
beside ``agent/utils.py``, which lacks it; the root's ``utils/utils.py`` defines it). Two facts:
the importer walk reads a module that did not import the helper's own module again as a candidate
importer of the package, and the module's own folder is not where the import comes from when its
file there never names what is imported (Python would raise)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

HELPERS = """
    import math

    import torch


    def clip_grad_norms(param_groups, max_norm=math.inf):
        grad_norms = [torch.nn.utils.clip_grad_norm_(g["params"], max_norm) for g in param_groups]
        return [min(g_norm, max_norm) for g_norm in grad_norms]
    """
PPO = """
    import torch
    from utils import clip_grad_norms


    def train_batch(model, loader, optimizer):
        for x in loader:
            loss = model(x.cuda()).sum()
            optimizer.zero_grad()
            loss.backward()
            clip_grad_norms(optimizer.param_groups, 1.0)
            optimizer.step()
    """
MIN_SYNC = SYNC.format(what="builtin `min()` of tensors")


def _project(tmp_path, agent_utils: str):
    write(tmp_path, {"setup.py": "", "utils/__init__.py": "from .utils import *\n", "utils/utils.py": HELPERS,
                     "agent/ppo.py": PPO, "agent/utils.py": agent_utils})


def test_a_helper_a_package_reexports_is_reached_from_a_folder_beside_a_namesake(tmp_path):
    _project(tmp_path, "def move(x):\n    return x\n")
    assert findings(tmp_path, "utils/utils.py") == [
        ("TPL102", 8, 12, MIN_SYNC + " (called every step from agent/ppo.py:10)")]


def test_a_namesake_in_the_own_folder_that_defines_the_name_is_the_one_imported(tmp_path):
    """The twin: ``agent/utils.py`` defines ``clip_grad_norms`` too, so the module's own folder (on
    its ``sys.path`` when run as a script) provides it: the root's helper is not reached."""
    _project(tmp_path, "def clip_grad_norms(groups, max_norm):\n    return []\n")
    assert findings(tmp_path, "utils/utils.py") == []
