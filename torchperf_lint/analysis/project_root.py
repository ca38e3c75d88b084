"""The project a file belongs to (shared/rules.md "The project"): the nearest folder at or above it
that holds ``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``, below any Python
environment around it.

The CLI and the flake8 plugin both judge from it what is a test file (folders above the project do
not count) and which torch the project targets, so that the two front ends agree whatever the
folders above the project are named and wherever they are started from.
"""

from __future__ import annotations

import os
from typing import Dict, Optional

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
# Where installed packages live: a file under one belongs to the package installed there, not to a
# project whose folder holds the environment (a ``.venv`` inside the repository, as uv and many
# setups make it). Without this boundary an installed torch opened from an editor, or linted by a
# ``flake8 .`` that does not exclude ``.venv``, took the repository as its project and its index
# read the repository's files as torch's importers (the plugin benchmark over the torch installed
# in this repository's ``.venv`` summarised 283 of the repository's own files).
ENVIRONMENT_FOLDER_NAMES = ("site-packages", "dist-packages")
ENVIRONMENT_MARKER = "pyvenv.cfg"


def is_environment(folder: str) -> bool:
    """Is ``folder`` where an environment's packages are installed, or a virtual environment's own
    folder?"""
    return (os.path.basename(folder) in ENVIRONMENT_FOLDER_NAMES
            or os.path.isfile(os.path.join(folder, ENVIRONMENT_MARKER)))


def inside_environment(path: str) -> bool:
    """Is ``path`` (a file or a folder) in a Python environment: at or below an environment folder?"""
    folder = os.path.abspath(path)
    while True:
        if is_environment(folder):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def find_project_root(path: str, memo: Optional[Dict[str, Optional[str]]] = None) -> Optional[str]:
    """The absolute project root of ``path`` (a file or a folder), or None when no folder at or
    above it, up to the environment folder it is installed in if any, holds a marker. ``memo``
    (folder -> root) spares a run the same stat calls for every file of a folder; it is the
    caller's, so a long-lived process (an editor's server) that makes a new one per request sees a
    pyproject.toml made after it started."""
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
        if is_environment(folder):
            break  # (the markers above an environment are those of a project that holds it)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if memo is not None:
        for seen in walked:
            memo[seen] = root
    return root
