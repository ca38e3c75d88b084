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
    return _ast_gated(stmt, is_interval, leaves)


# Module-level functions, not closures of the call: two closures that call each other hold each
# other's cells, a reference cycle per call that only the cyclic collector frees (the engine
# pauses it while it lints, and the project index asks this of every ``if``/``else``).
def _ast_branch(statements, by_test: bool, is_interval: Callable, leaves: Callable) -> bool:
    return by_test or leaves(statements) or any(
        type(s) is ast.If and _ast_gated(s, is_interval, leaves) for s in statements)


def _ast_gated(node: ast.If, is_interval: Callable, leaves: Callable) -> bool:
    if not node.orelse:
        return leaves(node.body) and is_interval(node.test)
    return (_ast_branch(node.body, is_interval(node.test), is_interval, leaves)
            and _ast_branch(node.orelse, False, is_interval, leaves))


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
    return _cst_gated(stmt, is_interval, leaves)


def _cst_branch(suite, by_test: bool, is_interval: Callable, leaves: Callable) -> bool:
    return by_test or leaves(suite) or any(
        isinstance(s, cst.If) and _cst_gated(s, is_interval, leaves) for s in _statements(suite))


def _cst_gated(node: cst.If, is_interval: Callable, leaves: Callable) -> bool:
    other = node.orelse
    if other is None:
        return leaves(node.body) and is_interval(node.test)
    other_gated = (_cst_gated(other, is_interval, leaves) if isinstance(other, cst.If)
                   else _cst_branch(other.body, False, is_interval, leaves))
    return other_gated and _cst_branch(node.body, is_interval(node.test), is_interval, leaves)
