"""Applying fixes to a file's text: whole non-overlapping fixes, bottom-up, repeated until stable."""

from __future__ import annotations

import ast
from typing import Callable, List, Optional, Tuple

from ..findings import Fix, applicable
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


def apply_fixes(source: str, fixes: List[Fix]) -> Tuple[str, List[int]]:
    """Apply each fix whose edits overlap no edit of a fix applied before it (a fix is applied
    whole or not at all); return the text and the indexes of the fixes applied. A fix identical
    to one applied (two findings, one remedy) counts as applied."""
    lines = split_lines(source)  # as Python counts lines, like the edits' positions
    starts = _offsets(lines)

    def offset(line: int, col: int) -> int:
        return starts[min(line - 1, len(lines))] + col

    def spans(fix: Fix):
        return sorted((offset(e.line, e.col), offset(e.end_line, e.end_col), e.content) for e in fix.edits)

    order = sorted(range(len(fixes)), key=lambda i: spans(fixes[i])[0][:2] if fixes[i].edits else (0, 0))
    chosen: List[Tuple[int, int, str]] = []
    seen, applied = set(), []
    for index in order:
        mine = spans(fixes[index])
        key = tuple(mine)
        if key in seen:
            applied.append(index)
            continue
        if not mine or any(_overlap(a, b) for a in mine for b in chosen):
            continue
        chosen.extend(mine)
        seen.add(key)
        applied.append(index)
    for begin, end, content in sorted(chosen, reverse=True):
        source = source[:begin] + content + source[end:]
    return source, sorted(applied)


def _overlap(a: Tuple[int, int, str], b: Tuple[int, int, str]) -> bool:
    """Two edits conflict when their spans intersect, or when both insert at one point."""
    (a0, a1, _), (b0, b1, _) = a, b
    return max(a0, b0) < min(a1, b1) or a0 == b0


def fix_loop(
    source: str,
    analyse: Callable[[str], tuple],
    unsafe: bool,
    first: Optional[tuple] = None,
    applied: Optional[List[Tuple[str, str, int]]] = None,
):
    """Apply the applicable fixes of ``analyse(source)[0]`` round after round until none is left.

    ``analyse`` returns a tuple whose first item is the findings (the CLI's also carries the noqa
    rows, and leaves silenced findings out, so that they are not fixed); ``first`` is the analysis
    of ``source`` when the caller already has it. Returns
    (source, fixes applied, the last analysis, error): on an error (fixed code that does not
    parse) the original source and its analysis come back. ``applied``, when given, receives
    (code, fix description, round) for every fix applied, the later rounds' included (fixes that
    the first ones made possible).
    """
    original = source
    analysis = first = first if first is not None else analyse(source)
    total = 0
    done: List[Tuple[str, str, int]] = []
    for round_number in range(1, MAX_ROUNDS + 1):
        findings = [f for f in analysis[0] if applicable(f, unsafe)]
        if not findings:
            break
        new_source, chosen = apply_fixes(source, [f.fix for f in findings])
        if new_source == source:
            break
        try:
            # A BOM the caller left in (lint_source accepts one; Python's parser rejects it in a str).
            ast.parse(new_source[1:] if new_source.startswith("\ufeff") else new_source)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            codes = ", ".join(sorted({f.code for f in first[0] if applicable(f, unsafe)}))
            return original, 0, first, (
                f"the fixes for {codes} would leave code that does not parse "
                f"({type(error).__name__}: {error}); nothing was written (please report this)"
            )
        source, total = new_source, total + len(chosen)
        done.extend((findings[i].code, findings[i].fix.description, round_number) for i in chosen)
        analysis = analyse(source)
    if applied is not None:
        applied.extend(done)
    return source, total, analysis, None

