"""The project a file belongs to (shared/rules.md "The project"): the nearest folder at or above it
that holds ``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``.

The CLI and the flake8 plugin both judge from it what is a test file (folders above the project do
not count) and which torch the project targets, so that the two front ends agree whatever the
folders above the project are named and wherever they are started from.
"""

from __future__ import annotations

import os
from typing import Optional

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")


def find_project_root(path: str) -> Optional[str]:
    """The absolute project root of ``path`` (a file or a folder), or None when no folder at or
    above it holds a marker."""
    absolute = os.path.abspath(path)
    folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    # Not memoised: a few stat calls per folder level, and a long-lived process (an editor's
    # server) must see a pyproject.toml made after it started.
    while True:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
