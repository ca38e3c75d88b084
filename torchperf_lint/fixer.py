"""Applying fixes to a file's text: non-overlapping edits, bottom-up, repeated until stable."""

from __future__ import annotations

from typing import Collection, List, Optional, Tuple

from .catalog import SAFE, UNSAFE
from .engine import lint_source
from .findings import Edit, Finding

# A fix can uncover another (or two fixes can overlap); a few rounds settle every real case.
MAX_ROUNDS = 8


def applicable(finding: Finding, unsafe: bool) -> bool:
    if finding.fix is None:
        return False
    return finding.fix.applicability == SAFE or (unsafe and finding.fix.applicability == UNSAFE)


def _offsets(lines: List[str]) -> List[int]:
    starts, total = [], 0
    for line in lines:
        starts.append(total)
        total += len(line)
    starts.append(total)
    return starts


def apply_edits(source: str, edits: List[Edit]) -> Tuple[str, int]:
    """Apply the edits that do not overlap an earlier one; return the text and how many applied."""
    lines = source.splitlines(keepends=True)
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


def fix_source(
    source: str, codes: Optional[Collection[str]] = None, unsafe: bool = False, filename: str = "<string>"
) -> Tuple[str, int]:
    """The source with every applicable fix applied, and the number of fixes applied."""
    total = 0
    for _ in range(MAX_ROUNDS):
        findings = lint_source(source, filename, codes=codes)
        edits = [e for f in findings if applicable(f, unsafe) for e in f.fix.edits]
        if not edits:
            break
        new_source, count = apply_edits(source, edits)
        if new_source == source:
            break
        source, total = new_source, total + count
    return source, total
