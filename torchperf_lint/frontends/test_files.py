"""Which files are unit tests: the CLI and the flake8 plugin skip them unless told otherwise.

Unit tests are not hot paths, and they build odd set-ups on purpose (a DataLoader without workers
over three samples, a sampler never reshuffled): findings there are noise. A file is a test file
when its name is ``test_*.py``, ``*_test.py`` or ``conftest.py``, or when a directory on its path
from the project root down (project_root.py: the nearest folder with pyproject.toml, setup.cfg,
setup.py or .git) is named ``tests`` or ``test``. The CLI and the flake8 plugin judge alike, so a
project checked out under ``/tmp/x/tests/proj/`` is linted by both, from wherever they start.
A file named ``test.py`` is *not* a test file: in many research repositories it is the evaluation
script, which runs on the GPU like training does.

The setting that turns them back on: ``include-tests = true`` in ``[tool.torchperf-lint]`` or
``--include-tests`` for the CLI; ``--tpl-include-tests`` (``tpl-include-tests = true``) for flake8.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Optional

from ..analysis.project_root import find_project_root
TEST_DIRECTORIES = frozenset(("tests", "test"))


def is_test_file(path: str, root: Optional[str] = None) -> bool:
    """Whether ``path`` is a unit-test file. Directories above ``root`` do not count (a project
    checked out under ``~/test/`` is not a test suite); without a root, the file's project root
    (the working directory when no folder above the file marks a project)."""
    if root is None:
        root = find_project_root(path) or os.getcwd()
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, os.path.abspath(root))
    except ValueError:  # another drive on Windows
        relative = absolute
    if relative.startswith(os.pardir):
        relative = path  # outside the root: judge the path as it was given
    parts = PurePath(relative).parts
    if not parts:
        return False
    name = parts[-1]
    if name == "conftest.py" or (name.startswith("test_") and name.endswith(".py")):
        return True
    if name.endswith("_test.py"):
        return True
    return any(part in TEST_DIRECTORIES for part in parts[:-1])
