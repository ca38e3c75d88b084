"""Imports of a script's own folder and of the folders it puts on ``sys.path`` (rules.md "The
project": the project's own imports resolved as Python resolves them; analysis/script_folders.py)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from torchperf_lint.analysis import project_index
from torchperf_lint.analysis.script_folders import sys_path_folders

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col as findings, write


def bindings(root: Path, name: str) -> dict:
    project = project_index.project_for(str(root / name))
    module = project.module(str(root / name))
    return {local: bound for local, bound in module.bindings.items() if local not in ("torch", "os", "sys")}


HELPER = """
    import torch


    def log_losses(losses):
        for name, value in losses.items():
            print(name, value.item())
    """

TRAIN = """
    import torch
    from utils import log_losses


    def main(model, loader, opt):
        for x in loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            log_losses({"loss": loss})
    """

# ``utils`` is also a package on PyPI: only a ``utils.py`` beside the script is the project's.
SCRIPTS = {
    "pyproject.toml": "",
    "tools/utils.py": HELPER,
    "tools/train.py": TRAIN,
    "scripts/train.py": TRAIN,
    "scripts/notes.txt": "scripts/ holds no utils.py: `utils` is an installed package there\n",
}


def test_a_script_imports_the_helper_beside_it(tmp_path):
    write(tmp_path, SCRIPTS)
    assert bindings(tmp_path, "tools/train.py") == {"log_losses": "tools.utils.log_losses"}
    assert findings(tmp_path, "tools/utils.py") == [
        ("TPL102", 6, SYNC + " (called every step from tools/train.py:10)"),
    ]


def test_a_name_not_beside_the_script_stays_an_installed_package(tmp_path):
    write(tmp_path, SCRIPTS)
    assert bindings(tmp_path, "scripts/train.py") == {"log_losses": "utils.log_losses"}
    # only tools/train.py reaches the helper: the chain names it, never scripts/train.py
    assert findings(tmp_path, "tools/utils.py") == [
        ("TPL102", 6, SYNC + " (called every step from tools/train.py:10)"),
    ]


def test_the_root_s_module_wins_over_a_package_s_sibling_but_not_over_a_script_s(tmp_path):
    """A module of a package is imported by its dotted name: an absolute ``import utils`` there is
    the root's ``utils.py`` when there is one, its sibling only when there is none. A script folder
    (no ``__init__.py``) is first on ``sys.path`` when the script runs: its sibling wins."""
    write(tmp_path, {
        "pyproject.toml": "",
        "utils.py": HELPER,
        "pkg/__init__.py": "",
        "pkg/utils.py": HELPER,
        "pkg/train.py": TRAIN,
        "pkg/configs.py": "LR = 0.1\n",
        "pkg/model.py": """
            try:
                from .configs import LR
            except ImportError:
                from configs import LR
            """,
        "tools/utils.py": HELPER,
        "tools/train.py": TRAIN,
        "tools/eval.py": "from configs import LR\nfrom utils import log_losses\nfrom settings import log_losses\n",
        "tools/configs.py": "LR = 0.1\n",
        "settings.py": HELPER,
    })
    assert bindings(tmp_path, "pkg/train.py") == {"log_losses": "utils.log_losses"}
    assert bindings(tmp_path, "tools/train.py") == {"log_losses": "tools.utils.log_losses"}
    assert bindings(tmp_path, "pkg/model.py") == {"LR": "pkg.configs.LR"}
    # the last import of a name binds it
    assert bindings(tmp_path, "tools/eval.py") == {"LR": "tools.configs.LR", "log_losses": "settings.log_losses"}


def test_folders_a_script_puts_on_sys_path(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "GPT_SoVITS/module/__init__.py": "",
        "GPT_SoVITS/module/losses.py": "def kl(a, b):\n    return a\n",
        "GPT_SoVITS/text/cleaner.py": "def clean(t):\n    return t\n",
        "webui.py": """
            import os
            import sys
            now_dir = os.getcwd()
            sys.path.append(now_dir)
            sys.path.append("%s/GPT_SoVITS" % (now_dir))
            from module.losses import kl
            from text import cleaner
            import logging
            """,
        "GPT_SoVITS/logging.py": "",
        "tools/common.py": "def helper():\n    return 1\n",
        "tools/sub/run.py": """
            import os
            import sys
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
            from common import helper
            """,
        "tools/sub/other.py": """
            import sys
            from pathlib import Path
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
            from common import helper
            """,
        "inner/pyproject.toml": "",
        "inner/outside.py": """
            import sys
            sys.path.append("/usr/lib/python3/dist-packages")
            sys.path.append("../elsewhere")
            from common import helper
            """,
        "elsewhere/common.py": "def helper():\n    return 1\n",
    })
    # ``logging`` is the standard library's: an appended folder cannot shadow it
    assert bindings(tmp_path, "webui.py") == {"kl": "GPT_SoVITS.module.losses.kl",
                                              "cleaner": "GPT_SoVITS.text.cleaner", "logging": "logging"}
    assert bindings(tmp_path, "tools/sub/run.py") == {"helper": "tools.common.helper"}
    assert bindings(tmp_path, "tools/sub/other.py") == {"Path": "pathlib.Path", "helper": "tools.common.helper"}
    # a folder outside the project (inner/ is a project of its own) is not followed
    assert bindings(tmp_path, "inner/outside.py") == {"helper": "common.helper"}


def _folders(text: str):
    return [tuple(item) for item in sys_path_folders(ast.parse(textwrap.dedent(text)))]


def test_the_forms_of_a_folder_put_on_sys_path():
    assert _folders("""
        import os, sys
        from pathlib import Path
        sys.path.append(os.path.dirname(__file__))
        sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "lib")))
        sys.path.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
        sys.path.insert(0, str(Path(__file__).parent / "third_party"))
        sys.path.append("src")
        here = os.path.dirname(__file__)
        sys.path.append(here + "/vendor")
        sys.path.append(f"{here}/models")
        if True:
            sys.path.insert(0, os.getcwd())
        """) == [
        ("append", "file", "."),
        ("insert", "file", "../lib"),
        ("append", "file", ".."),
        ("insert", "file", "third_party"),
        ("append", "cwd", "src"),
        ("append", "file", "vendor"),
        ("append", "file", "models"),
        ("insert", "cwd", "."),
    ]


def test_what_is_not_a_folder_put_on_sys_path_is_not_recorded():
    assert _folders("""
        import os, sys
        sys.path.insert(1, "lib")
        sys.path.append(os.environ["EXTRA"])
        sys.path.append(__file__)
        sys.path.append("/opt/abs")
        paths = [sys.path.append("x") for _ in range(1)]

        def setup():
            sys.path.append("inside_a_function")
        """) == []


def test_a_long_module_level_concatenation_is_no_path_and_does_not_exhaust_the_stack():
    long_text = " + ".join(['"a"'] * 2000)
    assert _folders(f"""
        import sys
        TEXT = {long_text}
        sys.path.append("lib")
        """) == [("append", "cwd", "lib")]
