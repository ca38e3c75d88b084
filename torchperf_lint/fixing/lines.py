"""Lines as Python's tokenizer counts them.

Only ``\\n``, ``\\r\\n`` and ``\\r`` end a line of Python source. ``str.splitlines`` also splits at
form feeds, vertical tabs, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029, which Python treats as
ordinary characters: a file holding one of them would have its findings, ``# noqa`` comments and
fix edits counted one line off. Every line index in the linter comes from ``split_lines``.
"""

from __future__ import annotations

import re
from typing import List

# The line length fixes keep to when the project sets none (black's and ruff's default); the
# configured one is read by the front ends (frontends/line_length.py). Here, not with the edits, so
# that reading it does not import libcst (the CLI's start-up when every file is in its cache).
DEFAULT_LINE_LENGTH = 88

# Characters str.splitlines breaks at beyond \n: if none is present, splitlines is right (and fast).
_SPLITLINES_EXTRA = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> List[str]:
    """The lines of ``text`` with their line ends, split where Python's tokenizer splits them."""
    if _SPLITLINES_EXTRA.search(text) is None:
        return text.splitlines(keepends=True)
    return _LINE.findall(text)


def normalise_newlines(text: str) -> str:
    """``\\r\\n`` and ``\\r`` as ``\\n`` (what flake8 hands its plugins): line numbers and columns are
    unchanged, and every regex with ``^``/``$`` and ``re.M`` sees the lines Python sees."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def newline_of(text: str) -> str:
    """The line end of the file's first line (``\\n`` when there is none): fixes insert that one."""
    index = text.find("\n")
    cr = text.find("\r")
    if cr != -1 and (index == -1 or cr < index):
        return "\r\n" if text[cr + 1 : cr + 2] == "\n" else "\r"
    return "\n"
