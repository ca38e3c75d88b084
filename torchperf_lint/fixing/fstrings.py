"""Fixes inside f-strings, by the rules of the Python that runs the linter.

Before Python 3.12 (PEP 701) the expression part of an f-string may not contain the f-string's own
quote character, a backslash, a comment, or (in a single-quoted f-string) a line break:
``f"{torch.amp.GradScaler("cuda")}"`` is a syntax error on 3.11. A fix that inserts ``"cuda"``
there is written with the other quote (``'cuda'``) when that quote is free in the whole f-string
(no nested string uses it), and is not offered otherwise. From 3.12 on, any text valid outside an
f-string is valid inside one: nothing to do.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from typing import List, Optional, Sequence, Tuple

from ..findings import Edit

NESTED_QUOTES_ALLOWED = sys.version_info >= (3, 12)
_PREFIX = re.compile(r"[A-Za-z]*")
# The string literals fixes write: plain, no escapes.
_SIMPLE_STRING = re.compile(r"""(?P<q>["'])(?P<body>[^"'\\\n]*)(?P=q)""")

# (start line, start col, end line, end col, quote of the f-string: ', ", ''' or """)
Region = Tuple[int, int, int, int, str]


def fstring_regions(lines: Sequence[str]) -> List[Region]:
    """Where the f-strings of a file are (only where the running Python restricts them)."""
    if NESTED_QUOTES_ALLOWED or not may_hold_fstrings("".join(lines)):
        return []
    return fstring_regions_or_none(lines) or []


def may_hold_fstrings(text: str) -> bool:
    return "f'" in text or 'f"' in text or "F'" in text or 'F"' in text


def fstring_regions_or_none(lines: Sequence[str]) -> Optional[List[Region]]:
    """The f-strings of some lines (tokenized whatever they hold), or None where they do not
    tokenize."""
    if NESTED_QUOTES_ALLOWED:
        return []
    text = "".join(lines)
    regions: List[Region] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.STRING:
                continue
            prefix = _PREFIX.match(token.string).group(0)
            if "f" not in prefix.lower():
                continue
            body = token.string[len(prefix):]
            quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
            regions.append((token.start[0], token.start[1], token.end[0], token.end[1], quote))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return regions


def _inside(region: Region, line: int, col: int) -> bool:
    start_line, start_col, end_line, end_col, _ = region
    return (start_line, start_col) < (line, col) < (end_line, end_col)


def touches_fstring(regions: Sequence[Region], line: int, col: int, end_line: int, end_col: int) -> bool:
    """Does the span (a finding's node) lie in, or hold, an f-string?"""
    return any(_inside(r, line, col) or _inside(r, end_line, end_col)
               or (line, col) <= (r[0], r[1]) < (end_line, end_col) for r in regions)


def fit_edits(edits: Sequence[Edit], regions: Sequence[Region], lines: Sequence[str]) -> Optional[Tuple[Edit, ...]]:
    """The edits, each one that lands inside an f-string written so that the running Python
    accepts it there; None when one cannot be."""
    out = []
    for edit in edits:
        region = next((r for r in regions if _inside(r, edit.line, edit.col)
                       or _inside(r, edit.end_line, edit.end_col)), None)
        if region is None:
            out.append(edit)
            continue
        content = _fitted(edit.content, region, lines)
        if content is None:
            return None
        out.append(Edit(edit.line, edit.col, edit.end_line, edit.end_col, content))
    return tuple(out)


def _region_text(region: Region, lines: Sequence[str]) -> str:
    start_line, start_col, end_line, end_col, _ = region
    if start_line == end_line:
        return lines[start_line - 1][start_col:end_col]
    return lines[start_line - 1][start_col:] + "".join(lines[start_line:end_line - 1]) + lines[end_line - 1][:end_col]


def _fitted(content: str, region: Region, lines: Sequence[str]) -> Optional[str]:
    quote = region[4]
    if "\\" in content or "#" in content or (len(quote) == 1 and "\n" in content):
        return None
    if quote not in content:
        return content
    if len(quote) == 3:
        return None  # a triple quote in a fix's text: never written by a fix, never guessed at
    other = "'" if quote == '"' else '"'
    body = _region_text(region, lines)
    inner = body[body.index(quote) + 1:-1]
    if other in inner:
        return None  # a nested string already uses the other quote: no quote is free
    content = _SIMPLE_STRING.sub(lambda m: other + m.group("body") + other, content)
    return None if quote in content else content
