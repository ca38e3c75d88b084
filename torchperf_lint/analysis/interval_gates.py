"""Gates: an ``if`` after which the rest of a function runs only at an interval (rules.md "An
interval": an early ``return``/``continue`` under a test on the step counter; what follows it is the
interval), also when the early exits sit in the branches of an ``if``/``else``::

    if steps == 0:
        if not args.sample_at_first:
            return
    else:
        if steps % args.sample_every_n_steps != 0:
            return
    sample(...)          # runs at step 0 and every N steps, never on the steps between

Every path past such an ``if`` has gone through an interval: a branch either leaves (``return``,
``continue``), runs under an interval test of its own ``if`` (the body of ``if steps == 0:``), or
passes a gate among its statements. A branch that does neither (the ``else`` of a plain
``if flag:``) lets every step through, and the ``if`` is no gate. The ``ast`` form serves the project
index, the libcst form the walk; the callers hand in their own interval test and exit test.
"""

from __future__ import annotations

import ast
from typing import Callable

import libcst as cst


def ast_gates_what_follows(stmt: ast.If, is_interval: Callable, leaves: Callable) -> bool:
    """Does every path past ``stmt`` go through an interval? (``leaves(statements)``: the list ends
    by leaving the function or the loop round.)"""

    def branch(statements, by_test: bool) -> bool:
        return by_test or leaves(statements) or any(type(s) is ast.If and gated(s) for s in statements)

    def gated(node: ast.If) -> bool:
        if not node.orelse:
            return leaves(node.body) and is_interval(node.test)
        return branch(node.body, is_interval(node.test)) and branch(node.orelse, False)

    return gated(stmt)


def _statements(suite) -> list:
    body = getattr(suite, "body", ())
    return list(body) if isinstance(body, (list, tuple)) else []


def cst_leaves(suite) -> bool:
    """Does the suite end by ``return``, ``continue`` or ``raise``?"""
    statements = _statements(suite)
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Continue, cst.Raise))


def cst_gates_what_follows(stmt: cst.If, is_interval: Callable, leaves: Callable = cst_leaves) -> bool:
    """``ast_gates_what_follows`` on libcst (an ``elif`` is an ``If`` in ``orelse``)."""

    def branch(suite, by_test: bool) -> bool:
        return by_test or leaves(suite) or any(isinstance(s, cst.If) and gated(s) for s in _statements(suite))

    def gated(node: cst.If) -> bool:
        other = node.orelse
        if other is None:
            return leaves(node.body) and is_interval(node.test)
        other_gated = gated(other) if isinstance(other, cst.If) else branch(other.body, False)
        return other_gated and branch(node.body, is_interval(node.test))

    return gated(stmt)
