"""Messages that read a value the ``if`` around them has just waited for (TPL102; issue 20, holdout7).

A warning or error branch often repeats, in its message, the value its test read::

    if not math.isfinite(loss.item()):
        error_msg = f"Loss is {loss.item()}, attempting to stop training"
    if num_nans > 0:
        logger.warning(f"{num_nans} samples failed")

The test is the sync that runs every step (the rule reports it there). When the branch is taken,
the host has just waited for the device to finish that value, and the message reads the same value
again: nothing new is queued on the device in front of that read, so it stalls no pipeline (rules.md
TPL102: the pitfall is the host waiting for the device's queued work in every iteration), and the
remedy named at the test (check every N steps, or keep the check on the device) removes both. Only
a read of a value the test itself read and that exists already (a name, its attributes or
constant items: not ``torch.min(y)`` computed again), in the ``if``'s body, before any statement that may
queue device work or rebind a name the read uses, counts; a different value formatted in the branch
(``f"{name}"`` of a batch field) is read after work the test did not wait for and stays reported.
The rule asks this for messages only (printed or formatted values): a value taken for use in the
branch (``if torch.isfinite(v): total += v.item()``) is the per-step work itself.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import libcst as cst

from .syntax import assigned_names
from .tree import descendants

_BARRIERS = (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _already_computed(expr: cst.BaseExpression) -> bool:
    """A name, or attributes and constant items of one (``loss``, ``out.loss``, ``scores[0]``): a
    value that exists once the test has waited, whose read launches nothing. ``torch.min(y)``
    written again in the message computes the reduction again, on the device, and waits for it
    (vits' ``print("min value is", torch.min(y))``, a holdout3 finding judged true)."""
    if isinstance(expr, cst.Name):
        return True
    if isinstance(expr, cst.Attribute):
        return _already_computed(expr.value)
    if isinstance(expr, cst.Subscript):
        return _already_computed(expr.value) and all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Integer, cst.SimpleString))
            for e in expr.slice)
    return False


def _names_in(expr: cst.CSTNode) -> set:
    return {n.value for n in descendants(expr) if isinstance(n, cst.Name)}


def _bound_names(statement: cst.CSTNode) -> set:
    """Names a statement (or the statements nested in it) binds: assignment targets, ``for``
    targets, walrus targets."""
    names = set()
    for node in descendants(statement):
        if isinstance(node, cst.AssignTarget):
            names |= set(assigned_names(node.target))
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            names |= set(assigned_names(node.target))
        elif isinstance(node, cst.NamedExpr):
            names |= set(assigned_names(node.target))
        elif isinstance(node, (cst.For, cst.CompFor)):
            names |= set(assigned_names(node.target))
    return names


def _queues_nothing(statement: cst.CSTNode, host_only: Callable[[cst.CSTNode], bool]) -> bool:
    """A simple statement ``host_only`` accepts, or an ``if`` whose test and branches are made of
    such statements (``if isinstance(name, list): name = name[0]``)."""
    if isinstance(statement, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
        return host_only(statement)
    if isinstance(statement, cst.If):
        if not host_only(cst.SimpleStatementLine(body=[cst.Expr(statement.test)])):
            return False
        blocks = [statement.body]
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            return _queues_nothing(orelse, host_only) and all(
                _queues_nothing(s, host_only) for s in _block_statements(statement.body))
        if orelse is not None:
            blocks.append(orelse.body)
        return all(_queues_nothing(s, host_only) for block in blocks for s in _block_statements(block))
    return False


def _block_statements(block) -> Sequence[cst.CSTNode]:
    body = getattr(block, "body", ())  # statements, or the small statements of ``if t: a; b``
    return body if isinstance(body, (list, tuple)) else ()


def rereads_tested_value(stack: Sequence[cst.CSTNode], reads: Iterable[cst.BaseExpression],
                         test_waits_on: Callable[[cst.BaseExpression, cst.BaseExpression], bool],
                         host_only: Callable[[cst.CSTNode], bool]) -> bool:
    """Is the current node (the last of ``stack``) in the body of the innermost ``if`` around it
    (within the same loop and function), and is every value in ``reads`` (the expressions the
    finding would read: a sync's receiver, the tensors a message formats) one that the ``if``'s
    test waits for (``test_waits_on(test, read)``), with only statements that queue no device work
    (``host_only``) and rebind none of the read's names between the test and the statement that
    reads it?"""
    reads = list(reads)
    if not reads or not all(_already_computed(r) for r in reads):
        return False
    for index in range(len(stack) - 2, 0, -1):
        node = stack[index]
        if isinstance(node, _BARRIERS):
            return False
        if not isinstance(node, cst.If):
            continue
        if stack[index + 1] is not node.body or index + 2 >= len(stack):
            return False  # in the test, or in the ``else``: the innermost ``if`` is not a guard of it
        statement = stack[index + 2]
        statements = list(_block_statements(node.body))
        position = next((i for i, s in enumerate(statements) if s is statement), None)
        if position is None:
            return False
        names = set().union(*(_names_in(r) for r in reads))
        for before in statements[:position]:
            if not _queues_nothing(before, host_only) or _bound_names(before) & names:
                return False
        return all(test_waits_on(node.test, read) for read in reads)
    return False
