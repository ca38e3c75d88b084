"""Writing a fixture project's files, and linting one of them by its real path (so that the
project index finds the others)."""
import textwrap
from pathlib import Path

from torchperf_lint.engine import lint_source


def write(root: Path, files: dict) -> None:
    """``files``: {relative path: source, dedented}; folders are made as needed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _lint(root: Path, name: str, codes):
    path = root / name
    return lint_source(path.read_text(), str(path), codes=codes)


def findings(root: Path, name: str, codes=("TPL102",)):
    """(code, line, col, message) of each finding of ``codes`` (None: the default rules) in ``root / name``."""
    return [(f.code, f.line, f.col, f.message) for f in _lint(root, name, codes)]


def findings_without_col(root: Path, name: str, codes=("TPL102",)):
    """(code, line, message) of each finding of ``codes`` (None: the default rules) in ``root / name``."""
    return [(f.code, f.line, f.message) for f in _lint(root, name, codes)]


def findings_with_fix(root: Path, name: str, codes=("TPL102",)):
    """(code, line, col, message, fix) of each finding of ``codes`` in ``root / name``."""
    return [(f.code, f.line, f.col, f.message, f.fix) for f in _lint(root, name, codes)]
