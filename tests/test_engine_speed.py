"""The engine's shortcuts (issue 11) keep its results: unvalidated parsing, the level-wise unit
survey, and units without a loop skipped for rules that report only inside one."""

import ast

import libcst as cst
import pytest

from torchperf_lint import engine
from torchperf_lint.engine import lint_source, parse_unvalidated
from torchperf_lint.rules import RULES
from torchperf_lint.segments import split_units

SOURCES = [
    "x = " + "-" * 300 + "y\n",
    "x = " + " + ".join(["a"] * 300) + "\n",
    "f(a and b or c and d and e)\n",
    "def f():\n    for i in range(3):\n        x[i]: int = not -y\n    while x: pass\n",
    "async def g():\n    async for i in it:\n        await i\n",
    "del x\nglobal a\n{1: 2, **x}\nprint(f'{x!r:>{w}}')\n",
    "match x:\n    case [1, {'a': b}] if b:\n        pass\n    case _:\n        pass\n",
    "try:\n    pass\nexcept* E as e:\n    pass\n",
    "lambda *a, b=1, **k: a if b else k\n",
    "class A:\n    x = [i for i in range(3)]\n    def m(self):\n        return 1\n",
]


@pytest.mark.parametrize("source", SOURCES)
def test_survey_matches_shape_and_sees_loops(source):
    for unit in split_units(ast.parse(source)):
        depth, _, width, _ = unit.shape()
        loops = any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) for s in unit.nodes for n in ast.walk(s))
        assert unit.survey() == (depth, width, loops)


@pytest.mark.parametrize("source", SOURCES)
def test_unvalidated_parse_is_the_same_tree_and_validation_comes_back(source):
    tree = parse_unvalidated(source)
    assert tree.code == source
    assert tree.deep_equals(cst.parse_module(source))
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")  # nodes built after the parse are validated again


LOOPLESS = '''
import torch

def log_metrics(loss):
    """Called for every batch; while training it prints the value."""
    print(loss.item())
'''


def test_loop_rules_do_not_parse_units_without_a_loop(monkeypatch):
    parsed = []
    real = engine.parse_unvalidated
    monkeypatch.setattr(engine, "parse_unvalidated", lambda code: parsed.append(code) or real(code))
    assert RULES["TPL102"].may_match(LOOPLESS)  # the docstring's words pass the text prefilter
    assert lint_source(LOOPLESS, codes={"TPL102"}) == []
    assert parsed == []
    looped = LOOPLESS.replace("    print(loss.item())", "    for batch in loader:\n        print(loss.item())")
    findings = lint_source(looped, codes={"TPL102"})
    assert len(parsed) == 1 and [f.code for f in findings] == ["TPL102"]


def test_rules_that_need_a_loop_say_so():
    assert {code for code, rule in RULES.items() if rule.needs_loop} == {
        "TPL102", "TPL103", "TPL104", "TPL305", "TPL602"}
