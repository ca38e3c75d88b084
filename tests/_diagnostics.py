"""Whole diagnostics for tests that assert more than (line, code): the finding's position, message
and fix, so a rule that drops its message or offers a fix it should not still fails."""

from __future__ import annotations

import textwrap

from torchperf_lint.catalog import CATALOG
from torchperf_lint.engine import lint_source

ALL_CODES = list(CATALOG)


def rule_diagnostics(source: str, code: str):
    """(line, col, message, fix applicability, fix description) of each finding of ``code``."""
    found = lint_source(textwrap.dedent(source), codes=[code])
    return [(f.line, f.col, f.message, f.fix and f.fix.applicability, f.fix and f.fix.description)
            for f in found if f.code == code]


def all_diagnostics(source: str, *codes: str):
    """(code, line, col, message, fix) per finding of every rule, or only of ``codes``;
    fix = None or (applicability, description, edits)."""
    rows = []
    for f in lint_source(textwrap.dedent(source), codes=ALL_CODES):
        if codes and f.code not in codes:
            continue
        fix = None if f.fix is None else (f.fix.applicability, f.fix.description, tuple(f.fix.edits or ()))
        rows.append((f.code, f.line, f.col, f.message, fix))
    return rows
