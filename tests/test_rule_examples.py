"""Every rule's own examples (Fixit-style) run as tests: flagged lines carry ``# TPLxxx``."""

import ast
import re
import textwrap

import pytest

from torchperf_lint.engine import lint_source
from torchperf_lint.engine import fix_source
from torchperf_lint.rules import RULES

EXAMPLES = [
    pytest.param(code, kind, i, id=f"{code}-{kind}-{i}")
    for code, rule in sorted(RULES.items())
    for kind, examples in (("valid", rule.VALID), ("invalid", rule.INVALID))
    for i in range(len(examples))
]


def expected_lines(source: str, code: str):
    return {n for n, line in enumerate(source.splitlines(), 1) if re.search(rf"#\s*{code}\b", line)}


def test_every_rule_has_flagged_and_silent_examples():
    for code, rule in RULES.items():
        assert rule.VALID and rule.INVALID, code
        assert all(expected_lines(textwrap.dedent(src), code) for src in rule.INVALID), code


@pytest.mark.parametrize("code,kind,index", EXAMPLES)
def test_rule_example(code, kind, index):
    rule = RULES[code]
    source = textwrap.dedent((rule.VALID if kind == "valid" else rule.INVALID)[index])
    found = {f.line for f in lint_source(source, codes=RULES.keys()) if f.code == code}
    assert found == (expected_lines(source, code) if kind == "invalid" else set())


FIXES = [
    pytest.param(code, before, after, id=f"{code}-fix-{i}")
    for code, rule in sorted(RULES.items())
    for i, (before, after) in enumerate(rule.FIXES)
]


@pytest.mark.parametrize("code,before,after", FIXES)
def test_rule_fix(code, before, after):
    fixed, count = fix_source(before, codes=[code], unsafe=True)
    assert count >= 1
    assert fixed == after
    ast.parse(fixed)
    again, more = fix_source(fixed, codes=[code], unsafe=True)
    assert (again, more) == (fixed, 0), "applying fixes twice must change nothing"
