"""Report formats: text (flake8/ruff style), json (ruff's fields), sarif (2.1.0), github annotations;
json-lines, junit, gitlab and pylint live in formats.py.

Columns are 1-based in every format (the engine's are 0-based, as flake8 expects).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from .. import __version__
from ..catalog import CATALOG, SAFE, UNSAFE, fix_safety
from ..findings import Finding

FORMATS = ("text", "json", "json-lines", "junit", "gitlab", "pylint", "sarif", "github")
EXTRA_FORMATS = ("json-lines", "junit", "gitlab", "pylint")  # rendered by formats.py
TOOL_NAME = "torchperf-lint"
# The one place that says where the rule docs live.
DOCS_BASE_URL = "https://github.com/torchperf-lint/torchperf-lint/blob/main/docs/rules/"
INFORMATION_URI = "https://github.com/torchperf-lint/torchperf-lint"


def docs_url(code: str) -> str:
    return f"{DOCS_BASE_URL}{code}.md"


@dataclass
class Reported:
    path: str  # absolute
    display: str  # as shown: relative to the cwd when below it
    finding: Finding
    noqa_row: int
    cell: Optional[int] = None  # a notebook's code cell (1-based); then lines count within the cell


def display_path(path: str, cwd: Optional[str] = None) -> str:
    cwd = cwd or os.getcwd()
    try:
        relative = os.path.relpath(path, cwd)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith("..") else relative


def _end(finding: Finding):
    if finding.end_line:
        return finding.end_line, finding.end_col
    return finding.line, finding.col


def fixable(finding: Finding, unsafe: bool) -> bool:
    if finding.fix is None:
        return False
    return finding.fix.applicability == SAFE or (unsafe and finding.fix.applicability == UNSAFE)


def plural(n: int, word: str) -> str:
    """``1 fix``, ``3 fixes``, ``2 findings`` (English: -es after s, x, z, ch, sh)."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}{'es' if word.endswith(('s', 'x', 'z', 'ch', 'sh')) else 's'}"


def summary(reports: List[Reported], unsafe: bool, would_fix: Optional[int] = None) -> str:
    """``would_fix``: how many fixes --fix would apply (with those the first fixes make possible),
    when it can differ from the number of fixable findings."""
    if not reports:
        return "All checks passed!"
    n_fix = sum(fixable(r.finding, unsafe) for r in reports)
    n_hidden = 0 if unsafe else sum(
        r.finding.fix is not None and r.finding.fix.applicability == UNSAFE for r in reports
    )
    parts = []
    if n_fix and would_fix is not None and would_fix > n_fix:
        parts.append(f"{n_fix} fixable with --fix, which then fixes {would_fix - n_fix} more")
    elif n_fix and would_fix is not None and would_fix < n_fix:
        parts.append(f"{n_fix} fixable with --fix, in {plural(would_fix, 'fix')}")
    elif n_fix:
        parts.append(f"{n_fix} fixable with --fix")
    if n_hidden:
        parts.append(f"{n_hidden} more with --unsafe-fixes")
    tail = f" ({'; '.join(parts)})" if parts else ""
    return f"Found {plural(len(reports), 'finding')}{tail}."


def fixes_applied(results, cwd: str) -> str:
    """One line per file and fix kind of what a fix run changed (``results``: path -> FileResult),
    the fixes that earlier fixes made possible included and marked."""
    out = []
    for path in sorted(results, key=lambda p: display_path(p, cwd)):
        counts: dict = {}
        for code, description, round_number in results[path].applied:
            key = (code, description, round_number > 1)
            counts[key] = counts.get(key, 0) + 1
        for (code, description, later), count in counts.items():
            note = " (made possible by an earlier fix)" if later else ""
            times = f" ({count} times)" if count > 1 else ""
            out.append(f"  {display_path(path, cwd)}: {code} {description}{times}{note}\n")
    return "".join(out)


def text(reports: List[Reported], unsafe: bool) -> str:
    lines = []
    for r in reports:
        f = r.finding
        marker = "[*] " if fixable(f, unsafe) else ""
        where = f"{r.display}:cell {r.cell}" if r.cell is not None else r.display
        lines.append(f"{where}:{f.line}:{f.col + 1}: {f.code} {marker}{f.message}")
    return "\n".join(lines) + ("\n" if lines else "")


def _location(line: int, col: int) -> dict:
    return {"row": line, "column": col + 1}


def json_report(reports: List[Reported]) -> str:
    items = []
    for r in reports:
        f = r.finding
        fix = None
        if f.fix is not None:
            fix = {
                "applicability": f.fix.applicability,
                "message": f.fix.description,
                "edits": [
                    {"content": e.content, "location": _location(e.line, e.col),
                     "end_location": _location(e.end_line, e.end_col)}
                    for e in f.fix.edits
                ],
            }
        items.append({
            "code": f.code,
            "name": CATALOG[f.code].name if f.code in CATALOG else None,  # as ruff: the rule's name
            "severity": _level(f.code),
            "message": f.message,
            "filename": r.path,
            "location": _location(f.line, f.col),
            "end_location": _location(*_end(f)),
            "fix": fix,
            "url": docs_url(f.code),
            "noqa_row": r.noqa_row,
        })
        if r.cell is not None:
            items[-1]["cell"] = r.cell
        if f.related:  # the call chain that runs the finding's code every step
            items[-1]["related"] = [{"filename": display_path(path), "location": _location(line, 0), "message": note}
                                    for path, line, note in f.related]
    return json.dumps(items, indent=2) + "\n"


def _artifact(path: str) -> dict:
    """Relative to the working directory (the repository root in CI), with forward slashes."""
    shown = display_path(path)
    if os.path.isabs(shown):
        return {"uri": Path(path).as_uri()}
    return {"uri": Path(shown).as_posix(), "uriBaseId": "%SRCROOT%"}


def sarif(reports: List[Reported]) -> str:
    rules = []
    for code, entry in CATALOG.items():
        rules.append({
            "id": code,
            "name": entry.name,
            "shortDescription": {"text": entry.summary},
            "fullDescription": {"text": f"{code} {entry.name}: {entry.summary}"},
            "helpUri": docs_url(code),
            "defaultConfiguration": {"level": _level(code), "enabled": entry.default_on},
            "properties": {"fix": entry.fix, "fixSafety": fix_safety(code),
                           "tags": ["performance"] if code != "TPL900" else []},
        })
    index = {code: i for i, code in enumerate(CATALOG)}
    results = []
    for r in reports:
        f = r.finding
        end_line, end_col = _end(f)
        result = {
            "ruleId": f.code,
            "level": _level(f.code),
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": _artifact(r.path),
                    "region": {
                        "startLine": f.line,
                        "startColumn": f.col + 1,
                        "endLine": end_line,
                        "endColumn": end_col + 1,
                    },
                }
            }],
        }
        if f.related:
            result["relatedLocations"] = [
                {"id": number, "message": {"text": note}, "physicalLocation": {
                    "artifactLocation": _artifact(path), "region": {"startLine": line}}}
                for number, (path, line, note) in enumerate(f.related)]
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        if r.cell is not None:  # a notebook: the region's lines count within this code cell
            result["properties"] = {"cell": r.cell}
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(document, indent=2) + "\n"


def _level(code: str) -> str:
    return "error" if code == "TPL900" else "warning"


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(reports: List[Reported]) -> str:
    lines = []
    for r in reports:
        f = r.finding
        end_line, end_col = _end(f)
        props = ",".join((
            f"title={_escape_property(f'{TOOL_NAME} ({f.code})')}",
            f"file={_escape_property(r.display)}",
            f"line={f.line}",
            f"col={f.col + 1}",
            f"endLine={end_line}",
            f"endColumn={end_col + 1}",
        ))
        # the level SARIF gives it: warning for the rules, error for TPL900 (the tool could not check)
        cell = f"cell {r.cell}: " if r.cell is not None else ""
        lines.append(f"::{_level(f.code)} {props}::{_escape_data(f'{cell}{f.code} {f.message}')}")
    return "\n".join(lines) + ("\n" if lines else "")


def render(fmt: str, reports: List[Reported], unsafe: bool) -> str:
    """text, json, sarif and github (cli.py sends the formats of formats.py there)."""
    if fmt == "json":
        return json_report(reports)
    if fmt == "sarif":
        return sarif(reports)
    if fmt == "github":
        return github(reports)
    return text(reports, unsafe)
