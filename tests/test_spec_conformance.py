"""Spec conformance suite for torchperf-lint.

Each file in ``tests/spec_cases/`` is one hand-written case, checked against
/work/shared/rules.md (the pitfall catalog):

* ``# codes: TPL101,TPL102`` in the first lines: the codes the case is about.
  Only findings of these codes are compared.
* ``# expect: TPL101`` (comma-separated for several) trailing a line: a finding
  of that code is expected at that line ("report at" of the spec).  Every other
  line must have no finding of the declared codes.
* ``# xfail: reason`` in the first lines: a known linter bug; the case is
  marked ``xfail(strict=True)`` so it starts failing loudly once fixed.

Every rule is linted with all codes enabled, opt-in ones included.
Run ``python tests/test_spec_conformance.py`` for precision/recall per rule.
"""
from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
from collections import Counter

import pytest

from torchperf_lint.catalog import CATALOG
from torchperf_lint.engine import lint_source

CASES_DIR = pathlib.Path(__file__).parent / "spec_cases"
ALL_CODES = list(CATALOG)

_CODE = re.compile(r"TPL\d{3}")
_CODES_RE = re.compile(r"#\s*codes:\s*([A-Z0-9,\s]+)")
_EXPECT_RE = re.compile(r"#\s*expect:\s*([A-Z0-9,\s]+)")
_XFAIL_RE = re.compile(r"#\s*xfail:\s*(.+)$")
_HEADER_LINES = 5


def parse_case(path: pathlib.Path):
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    codes: set[str] = set()
    xfail = None
    for line in lines[:_HEADER_LINES]:
        m = _CODES_RE.search(line)
        if m:
            codes |= set(_CODE.findall(m.group(1)))
        m = _XFAIL_RE.search(line)
        if m:
            xfail = m.group(1).strip()
    expected: set[tuple[int, str]] = set()
    for lineno, line in enumerate(lines, start=1):
        m = _EXPECT_RE.search(line)
        if m:
            for code in _CODE.findall(m.group(1)):
                expected.add((lineno, code))
    return source, codes, expected, xfail


_ISOLATED_RUNNER = """
import json, sys
from torchperf_lint.catalog import CATALOG
from torchperf_lint.engine import lint_source
path = sys.argv[1]
source = open(path, encoding="utf-8").read()
findings = lint_source(source, filename=path, codes=list(CATALOG))
print(json.dumps([[f.line, f.code] for f in findings]))
"""


def _lint_isolated(path: pathlib.Path):
    """TPL900 cases may crash or hang the interpreter: lint them in a child."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _ISOLATED_RUNNER, str(path)],
            capture_output=True, text=True, timeout=60,
        )
    except subprocess.TimeoutExpired:
        return {(0, "TIMEOUT")}
    if proc.returncode != 0:
        return {(0, f"CRASH(rc={proc.returncode})")}
    return {(line, code) for line, code in json.loads(proc.stdout.strip().splitlines()[-1])}


def actual_findings(source: str, path: pathlib.Path, codes: set[str]):
    if "TPL900" in codes:
        found = _lint_isolated(path)
        return {(line, code) for line, code in found if code in codes or line == 0}
    findings = lint_source(source, filename=str(path), codes=ALL_CODES)
    return {(f.line, f.code) for f in findings if f.code in codes}


def _case_params():
    params = []
    for path in sorted(CASES_DIR.glob("*.py")):
        _, codes, _, xfail = parse_case(path)
        marks = []
        if xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=xfail))
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def test_every_case_declares_codes():
    for path in sorted(CASES_DIR.glob("*.py")):
        _, codes, expected, _ = parse_case(path)
        assert codes, f"{path.name}: no '# codes:' header"
        assert all(code in CATALOG for code in codes), path.name
        assert {c for _, c in expected} <= codes, f"{path.name}: expects an undeclared code"


def test_every_rule_has_four_positive_and_four_negative_cases():
    positive: Counter = Counter()
    negative: Counter = Counter()
    for path in sorted(CASES_DIR.glob("*.py")):
        _, codes, expected, _ = parse_case(path)
        expected_codes = {c for _, c in expected}
        for code in codes:
            if code in expected_codes:
                positive[code] += 1
            else:
                negative[code] += 1
    for code in ALL_CODES:
        if code == "TPL900":
            continue
        assert positive[code] >= 4, (code, positive[code])
        assert negative[code] >= 4, (code, negative[code])


@pytest.mark.parametrize("path", _case_params())
def test_spec_case(path: pathlib.Path):
    source, codes, expected, _ = parse_case(path)
    actual = actual_findings(source, path, codes)
    missing = sorted(expected - actual)
    unexpected = sorted(actual - expected)
    assert not missing and not unexpected, (
        f"{path.name}: missing (line, code) {missing}; unexpected {unexpected}"
    )


def measure():
    """Precision/recall over all (line, code) pairs of all cases."""
    tp: Counter = Counter()
    fp: Counter = Counter()
    fn: Counter = Counter()
    for path in sorted(CASES_DIR.glob("*.py")):
        source, codes, expected, _ = parse_case(path)
        actual = actual_findings(source, path, codes)
        for _, code in actual & expected:
            tp[code] += 1
        for _, code in actual - expected:
            if code in CATALOG:
                fp[code] += 1
        for _, code in expected - actual:
            fn[code] += 1
    rows = []
    for code in ALL_CODES + ["ALL"]:
        if code == "ALL":
            t, f_p, f_n = sum(tp.values()), sum(fp.values()), sum(fn.values())
        else:
            t, f_p, f_n = tp[code], fp[code], fn[code]
        prec = t / (t + f_p) if t + f_p else 1.0
        rec = t / (t + f_n) if t + f_n else 1.0
        rows.append((code, t, f_p, f_n, prec, rec))
    return rows


if __name__ == "__main__":
    print(f"{'code':7} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>6} {'recall':>6}")
    for code, t, f_p, f_n, prec, rec in measure():
        print(f"{code:7} {t:4} {f_p:4} {f_n:4} {prec:6.3f} {rec:6.3f}")
    sys.exit(0)
