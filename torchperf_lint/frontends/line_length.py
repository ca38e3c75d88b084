"""The project's line length, which fixes do not push a line past.

Read from the settings of the tools that enforce one: flake8 (``max-line-length`` in
``setup.cfg``/``tox.ini``/``.flake8``, section ``[flake8]``), ruff (``line-length`` in
``[tool.ruff]`` of pyproject.toml or at the top of ``ruff.toml``/``.ruff.toml``, and
``[tool.ruff.lint.pycodestyle] max-line-length``) and black (``[tool.black] line-length``). The
nearest directory, from the one given upward, that sets any of them decides; when it sets several,
the smallest wins (a fix must pass every one of them). 88 (black's and ruff's default) when none is
set. Unreadable or malformed files are skipped: a line length is never worth failing a run for.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

from .config import ConfigError, flake8_section

from ..fixing.lines import DEFAULT_LINE_LENGTH  # noqa: F401 (the default lives with the line helpers)

_FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")
_RUFF_FILES = (".ruff.toml", "ruff.toml")


def configured_line_length(start: Path) -> int:
    """The line length configured for the project that ``start`` (a file or directory) is in."""
    try:
        directory = Path(start).resolve()
    except (OSError, RuntimeError):
        return DEFAULT_LINE_LENGTH
    if not directory.is_dir():
        directory = directory.parent
    for folder in (directory, *directory.parents):
        found = _lengths_in(folder)
        if found:
            return min(found)
    return DEFAULT_LINE_LENGTH


def _lengths_in(folder: Path) -> List[int]:
    found: List[int] = []
    for name in _FLAKE8_FILES:
        value = _flake8_length(folder / name)
        if value is not None:
            found.append(value)
    pyproject = _toml(folder / "pyproject.toml")
    tool = pyproject.get("tool", {}) if isinstance(pyproject.get("tool"), dict) else {}
    found.extend(_ruff_lengths(tool.get("ruff")))
    black = tool.get("black")
    if isinstance(black, dict):
        found.extend(_positive(black.get("line-length")))
    for name in _RUFF_FILES:
        found.extend(_ruff_lengths(_toml(folder / name)))
    return found


def _flake8_length(path: Path) -> Optional[int]:
    try:
        section = flake8_section(path) if path.is_file() else None
    except ConfigError:  # undecodable or unreadable: the configuration reader says so, not this
        return None
    if section is None or "max-line-length" not in section:
        return None
    found = _positive(section["max-line-length"].split("#", 1)[0].strip())
    return found[0] if found else None


def _ruff_lengths(section) -> List[int]:
    if not isinstance(section, dict):
        return []
    found = _positive(section.get("line-length"))
    lint = section.get("lint")
    for table in (lint.get("pycodestyle") if isinstance(lint, dict) else None, section.get("pycodestyle")):
        if isinstance(table, dict):
            found.extend(_positive(table.get("max-line-length")))
    return found


def _positive(value) -> List[int]:
    if isinstance(value, bool):
        return []
    try:
        number = int(value)
    except (TypeError, ValueError):
        return []
    return [number] if number > 0 else []


def _toml(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        try:
            import tomli as tomllib
        except ImportError:
            return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
