"""The project a file belongs to (shared/rules.md "The project"): the nearest folder at or above it
that holds ``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``.

The CLI and the flake8 plugin both judge from it what is a test file (folders above the project do
not count) and which torch the project targets, so that the two front ends agree whatever the
folders above the project are named and wherever they are started from.
"""

from __future__ import annotations

import os
from typing import Dict, Optional

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")


def find_project_root(path: str, memo: Optional[Dict[str, Optional[str]]] = None) -> Optional[str]:
    """The absolute project root of ``path`` (a file or a folder), or None when no folder at or
    above it holds a marker. ``memo`` (folder -> root) spares a run the same stat calls for every
    file of a folder; it is the caller's, so a long-lived process (an editor's server) that makes
    a new one per request sees a pyproject.toml made after it started."""
    absolute = os.path.abspath(path)
    folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    walked = []
    root: Optional[str] = None
    while True:
        if memo is not None and folder in memo:
            root = memo[folder]
            break
        walked.append(folder)
        if any(os.path.exists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS):
            root = folder
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if memo is not None:
        for seen in walked:
            memo[seen] = root
    return root
