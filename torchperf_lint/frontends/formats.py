"""The report formats CI systems read, as ruff writes them, and ``--statistics`` / ``--show-fixes``.

    json-lines  one JSON object per finding per line (the fields of ``--output-format json``)
    junit       JUnit XML: one test suite per file, one failing test case per finding
    gitlab      GitLab Code Quality: check_name, description, fingerprint, severity,
                location.path and location.lines.begin/end
    pylint      ``path:line: [CODE] message``

The fingerprint of a GitLab finding hashes its path, code, message and how many identical findings
come before it in the file, not its line: adding a line above it does not make it a new finding in
a merge request's Code Quality widget.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional
from xml.sax.saxutils import escape, quoteattr

from ..catalog import CATALOG
from .output import TOOL_NAME, Reported, _level, display_path, fixable, json_report


def json_lines(reports: List[Reported]) -> str:
    """The items of the JSON report (one builder: the fields cannot drift apart), one a line."""
    return "".join(json.dumps(item, sort_keys=True) + "\n" for item in json.loads(json_report(reports)))


def _cell(r: Reported) -> str:
    """A notebook finding's cell, as the text format names it; its lines count within the cell."""
    return f"cell {r.cell}" if r.cell is not None else ""


def pylint(reports: List[Reported]) -> str:
    return "".join(f"{r.display}:{_cell(r) + ':' if _cell(r) else ''}{r.finding.line}: [{r.finding.code}] "
                   f"{r.finding.message}\n" for r in reports)


def junit(reports: List[Reported]) -> str:
    by_file: Dict[str, List[Reported]] = {}
    for r in reports:
        by_file.setdefault(r.display, []).append(r)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="{TOOL_NAME}" tests="{len(reports)}" failures="{len(reports)}" errors="0">']
    if not reports:  # a passing suite, so that a CI report shows that the check ran
        out.append(f'    <testsuite name="{TOOL_NAME}" tests="1" disabled="0" errors="0" failures="0" '
                   f'package="{TOOL_NAME}">')
        out.append(f'        <testcase name="{TOOL_NAME}" classname="{TOOL_NAME}"/>')
        out.append('    </testsuite>')
    for display, found in by_file.items():
        out.append(f'    <testsuite name={quoteattr(display)} tests="{len(found)}" disabled="0" errors="0" '
                   f'failures="{len(found)}" package="{TOOL_NAME}">')
        classname = display[:-3] if display.endswith(".py") else display
        for r in found:
            f, where = r.finding, (_cell(r) + ", " if _cell(r) else "")
            out.append(f'        <testcase name={quoteattr(f"{TOOL_NAME}.{f.code}")} classname={quoteattr(classname)} '
                       f'line="{f.line}" column="{f.col + 1}">')
            out.append(f'            <failure message={quoteattr(f.message)}>'
                       f'{escape(where + f"line {f.line}, col {f.col + 1}, {f.code} {f.message}")}</failure>')
            out.append('        </testcase>')
        out.append('    </testsuite>')
    out.append('</testsuites>')
    return "\n".join(out) + "\n"


GITLAB_SEVERITY = {"warning": "major", "error": "critical"}


def _gitlab_path(r: Reported) -> str:
    return Path(display_path(r.path)).as_posix()


def gitlab(reports: List[Reported]) -> str:
    seen: Counter = Counter()
    items = []
    for r in reports:
        f = r.finding
        path = _gitlab_path(r)
        key = (path, f.code, f.message)
        seen[key] += 1
        fingerprint = hashlib.blake2b("\0".join((*key, str(seen[key]))).encode("utf-8"), digest_size=8).hexdigest()
        where = f"{_cell(r)}: " if _cell(r) else ""  # GitLab reads file lines; a notebook's count per cell
        items.append({
            "check_name": f.code,
            "description": f"{where}{f.code} ({CATALOG[f.code].name}): {f.message}" if f.code in CATALOG
            else f"{where}{f.code}: {f.message}",
            "fingerprint": fingerprint,
            "severity": GITLAB_SEVERITY[_level(f.code)],
            "location": {"path": path, "lines": {"begin": f.line, "end": f.end_line or f.line}},
        })
    return json.dumps(items, indent=2) + "\n"


def render_extra(fmt: str, reports: List[Reported]) -> str:
    return {"json-lines": json_lines, "junit": junit, "gitlab": gitlab, "pylint": pylint}[fmt](reports)


# ---- --statistics -------------------------------------------------------------------------------

def statistics(reports: List[Reported], unsafe: bool, as_json: bool) -> str:
    """The findings counted per code, most frequent first, as ``ruff check --statistics`` (since
    ruff's PR 21513): ``count<TAB>code<TAB>[*] name``, the marker ``[*]`` when ``--fix`` fixes every
    one of them, ``[~]`` some, ``[ ]`` none. JSON: code, name, count and fixable_count."""
    counts: Counter = Counter(r.finding.code for r in reports)
    fixes: Counter = Counter(r.finding.code for r in reports if fixable(r.finding, unsafe))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if as_json:
        return json.dumps([{"code": code, "name": _name(code), "count": count, "fixable_count": fixes[code]}
                           for code, count in rows], indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(count)) for _, count in rows)
    lines = []
    for code, count in rows:
        marker = "[*]" if fixes[code] == count else "[~]" if fixes[code] else "[ ]"
        lines.append(f"{count:>{width}}\t{code}\t{marker} {_name(code)}")
    return "\n".join(lines) + "\n"


def _name(code: str) -> str:
    entry = CATALOG.get(code)
    return entry.name if entry is not None else ""


# ---- --show-fixes (check) -----------------------------------------------------------------------

def fix_preview(report: Reported, cache: Dict[str, Optional[str]]) -> str:
    """The change the finding's fix makes, as the hunks of a unified diff indented under the
    finding (``cache``: path -> the file's text, read once)."""
    import difflib

    from ..fixing.fixer import apply_fixes
    from ..fixing.lines import split_lines
    from .runner import BadInput, decode

    fix = report.finding.fix
    if fix is None or not fix.edits:
        return ""
    if report.path not in cache:
        try:
            with open(report.path, "rb") as handle:
                cache[report.path] = decode(handle.read())[0]
        except (OSError, BadInput):
            cache[report.path] = None
    source = cache[report.path]
    if source is None:
        return ""
    fixed, applied = apply_fixes(source, [fix])
    if not applied or fixed == source:
        return ""
    # One line of context: the finding's line is above it; no ---/+++ lines (the file is named there).
    diff = list(difflib.unified_diff(split_lines(source), split_lines(fixed), n=1))[2:]
    title = f"    {'Fix' if fix.applicability == 'safe' else 'Unsafe fix'}: {fix.description}\n"
    return title + "".join(f"    {line.rstrip()}".rstrip() + "\n" for line in diff)
