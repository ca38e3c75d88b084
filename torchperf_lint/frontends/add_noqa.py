"""``check --add-noqa``: a ``# noqa: TPLnnn`` comment on every line that has a finding, as ruff's
``--add-noqa`` does, so that a project can adopt the linter now and fix later.

On the line flake8 reads the comment from (the finding's ``noqa_row``: the last line of a
multi-line string or backslash continuation): a line with no comment gets ``  # noqa: CODES``;
an existing ``# noqa: E501`` becomes ``# noqa: E501, TPL101`` (other tools' codes kept); any other
comment stays, after the new one (``x = f()  # noqa: TPL101 # why``). Running it twice changes
nothing: the findings it silenced are gone. A file is rewritten atomically (a temporary file in the
same folder, flushed to disk, then renamed over it), keeping its encoding, line ends and mode.
"""

from __future__ import annotations

import sys
import tokenize
from typing import Dict, Iterable, List, Set, Tuple

from ..fixing.lines import normalise_newlines, split_lines
from .runner import NOQA_INLINE, BadInput, decode


def _comments(lines: List[str]) -> Dict[int, int]:
    """line -> column (in characters) of the comment that ends it; raises on a file that does not
    tokenize (then no comment can be placed safely)."""
    found: Dict[int, int] = {}
    readline = iter([normalise_newlines(line) for line in lines]).__next__
    for tok in tokenize.generate_tokens(readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.start[1]
    return found


def _with_codes(line: str, comment_col: int, codes: Iterable[str]) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    new = ", ".join(sorted(codes))
    if comment_col < 0:
        return f"{body}  # noqa: {new}{ending}"
    comment = body[comment_col:]
    match = NOQA_INLINE.search(comment)
    if match is not None and match.group("codes"):
        listed = match.group("codes").rstrip(", \t")
        at = comment_col + match.start("codes") + len(listed)
        return f"{body[:at]}, {new}{body[at:]}{ending}"
    return f"{body[:comment_col]}# noqa: {new} {body[comment_col:]}{ending}"


def add_noqa_text(source: str, rows: Dict[int, Set[str]]) -> Tuple[str, int]:
    """The source with the codes added at each row, and how many lines changed."""
    lines = split_lines(source)
    try:
        comments = _comments(lines)
    except (tokenize.TokenError, SyntaxError, IndentationError, StopIteration):
        return source, 0
    changed = 0
    for row, codes in sorted(rows.items()):
        if not 0 < row <= len(lines) or not codes:
            continue
        lines[row - 1] = _with_codes(lines[row - 1], comments.get(row, -1), codes)
        changed += 1
    return "".join(lines), changed


def _write(path: str, data: bytes, expected: bytes) -> bool:
    """One atomic write (atomic_write.py), only over the bytes the comments were computed from; a
    failure leaves the file as it was and is said on stderr."""
    from .atomic_write import WriteFailed, write_atomic

    try:
        write_atomic(path, data, expected=expected, must_exist=True)
    except WriteFailed as failure:
        print(f"torchperf-lint: error: {path}: could not add noqa comments: {failure}; the file is unchanged",
              file=sys.stderr)
        return False
    return True


def add_noqa_file(path: str, rows: Dict[int, Set[str]]) -> int:
    """Add the comments to one file; the number of lines changed (0 when it cannot be read,
    decoded or tokenized: nothing is written then)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        source, encoding = decode(raw)
    except (OSError, BadInput):
        return 0
    new_source, changed = add_noqa_text(source, rows)
    if not changed:
        return 0
    return changed if _write(path, new_source.encode(encoding), raw) else 0


def add_noqa(results) -> int:
    """``results``: path -> FileResult of a check run. The number of lines that got a comment."""
    total = 0
    for path, result in results.items():
        if getattr(result, "cells", None) is not None:
            total += add_noqa_notebook(path, result)
            continue
        rows: Dict[int, Set[str]] = {}
        for finding, row in zip(result.findings, result.noqa_rows):
            rows.setdefault(row, set()).add(finding.code)
        if rows:
            total += add_noqa_file(path, rows)
    return total


def add_noqa_notebook(path: str, result) -> int:
    """A notebook's comments go into the sources of its cells (rows count within a cell): the
    notebook is edited as ``--fix`` edits it, cell sources only, every other byte kept."""
    from .notebook import NotebookError, read_notebook

    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        notebook = read_notebook(raw)
    except (OSError, NotebookError):
        return 0
    if notebook is None:
        return 0
    starts = {cell.number: cell.start for cell in notebook.cells if cell.start}
    rows: Dict[int, Set[str]] = {}
    for finding, row, number in zip(result.findings, result.noqa_rows, result.cells):
        if number in starts and finding.code != "TPL900":
            rows.setdefault(starts[number] - 1 + row, set()).add(finding.code)
    new_module, changed = add_noqa_text(notebook.source, rows)
    if not changed:
        return 0
    try:
        new_text, _ = notebook.write(new_module)
    except NotebookError:
        return 0
    data = new_text.encode("utf-8")
    data = b"\xef\xbb\xbf" + data if raw.startswith(b"\xef\xbb\xbf") else data
    return changed if _write(path, data, raw) else 0
