"""The index reads which parameters a function binds again (R103) from its statements alone, and
walks its expressions too only when the module's text may hold an assignment expression (``:=``):
a fifth of the summaries of a library (benchmarks/CLI.md). Both walks must find the same names."""

from __future__ import annotations

import ast
import textwrap

from _diagnostics import SYNC_TEMPLATE, found
from test_residual_forms_27 import REBOUND_CALLEE as WALRUS_REBOUND  # (R103's fixture: "mean" closes the branch)
from torchperf_lint.analysis.project_index import _rebound_parameters

BINDERS = """\
def f(a, b, c, d, e, g, h, k, m, n, p, q, r, s, t, u):
    if a:
        b = 1
    else:
        for c in range(3):
            pass
        else:
            d += 1
    while a:
        with open(p) as e:
            pass
    try:
        g: int = 2
    except ValueError:
        del h
    finally:
        k = float(k)
    match a:
        case 1:
            m = 3
    n: int
    def inner():
        q = 1
    class Inner:
        r = 1
    lam = lambda s: s
    t.attr = 1
    u[0] = 1
"""


def _function(text: str):
    return ast.parse(textwrap.dedent(text)).body[0]


def test_statements_bind_in_every_block_and_nested_definitions_do_not():
    function = _function(BINDERS)
    params = {arg.arg for arg in function.args.args}
    expected = frozenset("bcdegh m".replace(" ", ""))  # k keeps its value; n, q, r, s, t, u are not bound here
    assert _rebound_parameters(function, params, walrus=False) == expected
    assert _rebound_parameters(function, params, walrus=True) == expected


def test_an_assignment_expression_binds_only_where_the_expressions_are_walked():
    function = _function("def f(mode, x):\n    if (mode := x.mode):\n        pass\n    print([y for y in x])\n")
    assert _rebound_parameters(function, {"mode", "x"}, walrus=True) == frozenset({"mode"})
    # without the walk of expressions the walrus is not seen: the summariser asks for that walk
    # whenever the module's text holds ``:=`` (the test below, through the whole engine)
    assert _rebound_parameters(function, {"mode", "x"}, walrus=False) == frozenset()


def test_a_parameter_bound_again_by_an_assignment_expression_carries_no_callers_literal():
    """Every per-step call hands ``"mean"``, so ``to_list`` is no step body; bound again by
    ``:=`` before the test, the branch may run every step (R103 through the module's text)."""
    assert found(WALRUS_REBOUND.replace("{rebind}", "")) == []
    rebound = WALRUS_REBOUND.replace("{rebind}", "print(reduction := str(reduction))\n    ")
    assert found(rebound) == [("TPL102", 5, 11, SYNC_TEMPLATE.format(what="`.tolist()`")
                               + " (called every step from train.py:17 via evaluate)")]
