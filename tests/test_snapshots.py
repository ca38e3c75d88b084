"""Snapshot tests of whole diagnostics, in the manner of ruff's (insta) snapshots.

For every rule's ``VALID``/``INVALID`` examples and every case in ``tests/spec_cases/``, the linter's
complete output (every code enabled) is rendered to text: code, position, the full message, the
source line it points at, the fix's applicability (safe/unsafe/none), its description, its edits
and the text that applying it alone gives, and what a whole ``--fix`` run (safe, then unsafe) makes
of the file. One file per rule under ``tests/snapshots/`` (``TPL101.snap`` holds TPL101's examples
and the ``tpl101_*`` spec cases; ``scripts.snap`` the ``script_*`` cases) is compared with it.

A comparison of (line, code) pairs passes a linter that drops a message, offers a "safe" fix where
none is allowed, or writes another edit; this one does not.

Update mode: ``TPL_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py`` rewrites the
snapshots (review them with ``git diff tests/snapshots``). Without it, a missing snapshot fails;
nothing is ever written silently.
"""

from __future__ import annotations

import difflib
import os
import pathlib
import textwrap
from typing import List, Tuple

import pytest

from torchperf_lint.catalog import CATALOG
from torchperf_lint.engine import fix_source, lint_source
from torchperf_lint.fixing.fixer import apply_fixes
from torchperf_lint.rules import RULES

TESTS = pathlib.Path(__file__).parent
SNAPSHOTS = TESTS / "snapshots"
CASES = TESTS / "spec_cases"
ALL_CODES = sorted(CATALOG)
UPDATE = os.environ.get("TPL_UPDATE_SNAPSHOTS") == "1"
# These two cases exist to overflow the parser; they are linted in a child process by
# test_spec_conformance (a crash there must not take the test run with it) and are not snapshotted.
_UNSAFE_IN_PROCESS = {"tpl900_pos_nested_too_deep", "tpl900_pos_recursion_limit"}


def _fix_text(fix) -> Tuple[str, list]:
    """(applicability, edits) of a finding's fix; edits computed (lazy fixes resolved)."""
    if fix is None:
        return "none", []
    edits = list(fix.edits or ())
    return fix.applicability, edits


def render_case(title: str, source: str, filename: str = "<string>") -> str:
    """The whole diagnostics of one source as stable text."""
    out: List[str] = [f"=== {title} ==="]
    lines = source.splitlines()
    findings = lint_source(source, filename=filename, codes=ALL_CODES)
    if not findings:
        out.append("(no findings)")
    for finding in findings:
        # Positions as flake8 prints them: 1-based lines and columns.
        out.append(f"{finding.code} {finding.line}:{finding.col + 1}-{finding.end_line}:{finding.end_col + 1} "
                   f"{finding.message}")
        if 1 <= finding.line <= len(lines):
            text = lines[finding.line - 1]
            out.append(f"    | {text}")
            out.append(f"    | {' ' * finding.col}^")
        applicability, edits = _fix_text(finding.fix)
        if finding.fix is None:
            out.append("  fix: none")
            continue
        out.append(f"  fix: {applicability}: {finding.fix.description}")
        if not edits:
            out.append("    (computes no edit: not offered)")
            continue
        for edit in edits:
            out.append(f"    edit {edit.line}:{edit.col + 1}-{edit.end_line}:{edit.end_col + 1} -> {edit.content!r}")
        fixed, _ = apply_fixes(source, [finding.fix])
        out.extend("    " + line for line in _diff(source, fixed))
    safe_result = None
    for unsafe in (False, True):
        label = "fix --unsafe-fixes" if unsafe else "fix"
        try:
            fixed, count = fix_source(source, codes=ALL_CODES, unsafe=unsafe, filename=filename)
        except ValueError as error:
            out.append(f"--- {label}: error: {error}")
            continue
        if unsafe and (fixed, count) == safe_result:
            out.append(f"--- {label}: the same")
            continue
        out.append(f"--- {label}: {count} applied")
        out.extend("    " + line for line in _diff(source, fixed))
        safe_result = (fixed, count)
    return "\n".join(out) + "\n"


def _diff(before: str, after: str) -> List[str]:
    if before == after:
        return ["(no change)"]
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", n=0, lineterm="")
    return [line.rstrip() if line.strip() else line for line in list(diff)[2:]]


def _rule_sources(code: str) -> List[Tuple[str, str, str]]:
    """(title, source, filename) of what one rule's snapshot holds."""
    items = []
    rule = RULES.get(code)
    if rule is not None:
        for kind, examples in (("VALID", rule.VALID), ("INVALID", rule.INVALID)):
            for index, example in enumerate(examples):
                items.append((f"{kind}[{index}]", textwrap.dedent(example), "<string>"))
    prefix = "script_" if code == "scripts" else f"{code.lower()}_"
    for path in sorted(CASES.glob(f"{prefix}*.py")):
        if path.stem in _UNSAFE_IN_PROCESS:
            continue
        source = path.read_text(encoding="utf-8")
        items.append((f"spec_cases/{path.name}", source, str(path.relative_to(TESTS.parent))))
    return items


SNAPSHOT_NAMES = sorted(RULES) + ["TPL900", "scripts"]


def render_snapshot(name: str) -> str:
    header = (
        f"# Snapshot of {name}: whole diagnostics of its examples and spec cases (every code on).\n"
        "# Generated; regenerate with: TPL_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py\n"
        "# Positions are line:col, both 1-based, as flake8 prints them; edits: start-end -> new text.\n\n"
    )
    return header + "\n".join(render_case(*item) for item in _rule_sources(name))


def test_every_case_is_in_a_snapshot():
    """A spec case whose prefix names no snapshot would be checked by nothing here."""
    names = {n.lower() for n in SNAPSHOT_NAMES} | {"script"}
    for path in CASES.glob("*.py"):
        assert path.stem.split("_")[0] in names, path.name


def test_no_stale_snapshot_files():
    expected = {f"{name}.snap" for name in SNAPSHOT_NAMES}
    present = {p.name for p in SNAPSHOTS.glob("*.snap")} if SNAPSHOTS.exists() else set()
    stale = present - expected
    if UPDATE:
        for name in stale:
            (SNAPSHOTS / name).unlink()
        return
    assert not stale, f"snapshot files no rule produces: {sorted(stale)}"


@pytest.mark.parametrize("name", SNAPSHOT_NAMES)
def test_snapshot(name: str):
    path = SNAPSHOTS / f"{name}.snap"
    actual = render_snapshot(name)
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        pytest.fail(f"no snapshot {path.relative_to(TESTS.parent)}; create it with "
                    "TPL_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py and review it")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                              f"{path.name} (snapshot)", f"{path.name} (now)", lineterm=""))
        pytest.fail(f"{path.name} differs from the linter's output (if the change is intended, run "
                    f"TPL_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py):\n{diff}")
