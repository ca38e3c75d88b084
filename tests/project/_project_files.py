"""Writing a fixture project's files."""
import textwrap
from pathlib import Path


def write(root: Path, files: dict) -> None:
    """``files``: {relative path: source, dedented}; folders are made as needed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
