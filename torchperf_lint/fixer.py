"""Applying fixes to a file's text: non-overlapping edits, bottom-up, repeated until stable."""

from __future__ import annotations

import ast
from typing import Callable, Collection, List, Optional, Tuple

from .engine import lint_source
from .findings import Edit, applicable
from .lines import split_lines

# A fix can uncover another (or two fixes can overlap); a few rounds settle every real case.
MAX_ROUNDS = 8


def _offsets(lines: List[str]) -> List[int]:
    starts, total = [], 0
    for line in lines:
        starts.append(total)
        total += len(line)
    starts.append(total)
    return starts


def apply_edits(source: str, edits: List[Edit]) -> Tuple[str, int]:
    """Apply the edits that do not overlap an earlier one; return the text and how many applied."""
    lines = split_lines(source)  # as Python counts lines, like the edits' positions
    starts = _offsets(lines)

    def offset(line: int, col: int) -> int:
        return starts[min(line - 1, len(lines))] + col

    spans = sorted(((offset(e.line, e.col), offset(e.end_line, e.end_col), e.content) for e in edits))
    chosen, last_end = [], -1
    for begin, end, content in spans:
        if begin >= last_end:
            chosen.append((begin, end, content))
            last_end = max(end, begin + 1)
    for begin, end, content in reversed(chosen):
        source = source[:begin] + content + source[end:]
    return source, len(chosen)


def fix_loop(source: str, analyse: Callable[[str], tuple], unsafe: bool, first: Optional[tuple] = None):
    """Apply the applicable fixes of ``analyse(source)[0]`` round after round until none is left.

    ``analyse`` returns a tuple whose first item is the findings (the CLI's also carries the noqa
    rows, and leaves silenced findings out, so that they are not fixed); ``first`` is the analysis
    of ``source`` when the caller already has it. Returns
    (source, fixes applied, the last analysis, error): on an error (fixed code that does not
    parse) the original source and its analysis come back.
    """
    original = source
    analysis = first = first if first is not None else analyse(source)
    total = 0
    for _ in range(MAX_ROUNDS):
        edits = [e for f in analysis[0] if applicable(f, unsafe) for e in f.fix.edits]
        if not edits:
            break
        new_source, count = apply_edits(source, edits)
        if new_source == source:
            break
        try:
            ast.parse(new_source)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            codes = ", ".join(sorted({f.code for f in first[0] if applicable(f, unsafe)}))
            return original, 0, first, (
                f"the fixes for {codes} would leave code that does not parse "
                f"({type(error).__name__}: {error}); nothing was written (please report this)"
            )
        source, total = new_source, total + count
        analysis = analyse(source)
    return source, total, analysis, None


def fix_source(
    source: str, codes: Optional[Collection[str]] = None, unsafe: bool = False, filename: str = "<string>"
) -> Tuple[str, int]:
    """The source with every applicable fix applied, and the number of fixes applied."""
    fixed, total, _, error = fix_loop(source, lambda text: (lint_source(text, filename, codes=codes),), unsafe)
    if error:
        raise ValueError(error)
    return fixed, total
