"""Throttles: an early ``continue``/``return`` until a counter passes a mark that is moved up to it
each time the rest runs (rules.md "An interval": an early ``return``/``continue`` under a test on the
step counter; what follows it is the interval).

    cur_nimg += batch_size
    if (not done) and (cur_nimg < tick_start_nimg + kimg_per_tick * 1000):
        continue
    ...                         # once per tick
    tick_start_nimg = cur_nimg

The test is "below the mark" (``c < m + k``, ``c - m < k``, or the same written with ``>``), and the
statements it stands among reset the mark to the counter (``m = c``): what follows the exit runs once
per period, not every step. A test against a fixed number (``if step < warmup: continue``) is no
throttle: after the warm-up everything runs every step. ``ast`` (the project index) and libcst (the
rules) read it the same way.
"""

from __future__ import annotations

import ast
from typing import Optional, Sequence

import libcst as cst

# --- ast ------------------------------------------------------------------------------------------


def _ast_key(node) -> Optional[str]:
    """``a.b.c`` for a name or an attribute chain on one (Load and Store alike), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _ast_key(node.value)
        return f"{owner}.{node.attr}" if owner is not None else None
    return None


def _ast_below(test) -> Optional[tuple]:
    """(counter, mark) when ``test`` says the counter is still below the mark."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, (ast.Gt, ast.GtE)):
        left, right = right, left
    elif not isinstance(op, (ast.Lt, ast.LtE)):
        return None
    if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Sub):  # c - m < k
        return _ast_key(left.left), _ast_key(left.right)
    if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Add):  # c < m + k
        for mark in (right.left, right.right):
            if _ast_key(mark) is not None:
                return _ast_key(left), _ast_key(mark)
    return None


def _ast_resets(statements: Sequence[ast.stmt], counter: str, mark: str) -> bool:
    return any(
        isinstance(s, ast.Assign) and len(s.targets) == 1 and _ast_key(s.targets[0]) == mark
        and _ast_key(s.value) == counter
        for s in statements
    )


def ast_throttles(test, statements: Sequence[ast.stmt]) -> bool:
    """Is ``test`` (of an ``if`` among ``statements`` whose body leaves) a throttle: below a mark that
    ``statements`` reset to the counter, alone or as one operand of ``and``/``or``?"""
    tests = test.values if isinstance(test, ast.BoolOp) else [test]
    for one in tests:
        found = _ast_below(one)
        if found is not None and None not in found and found[0] != found[1] and _ast_resets(statements, *found):
            return True
    return False


# --- libcst ---------------------------------------------------------------------------------------


def _cst_key(node) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        owner = _cst_key(node.value)
        return f"{owner}.{node.attr.value}" if owner is not None else None
    return None


def _cst_below(test) -> Optional[tuple]:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    op, left, right = target.operator, test.left, target.comparator
    if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        left, right = right, left
    elif not isinstance(op, (cst.LessThan, cst.LessThanEqual)):
        return None
    if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Subtract):
        return _cst_key(left.left), _cst_key(left.right)
    if isinstance(right, cst.BinaryOperation) and isinstance(right.operator, cst.Add):
        for mark in (right.left, right.right):
            if _cst_key(mark) is not None:
                return _cst_key(left), _cst_key(mark)
    return None


def _cst_resets(statements, counter: str, mark: str) -> bool:
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and _cst_key(small.targets[0].target) == mark and _cst_key(small.value) == counter):
                return True
    return False


def _cst_operands(test):
    if isinstance(test, cst.BooleanOperation):
        yield from _cst_operands(test.left)
        yield from _cst_operands(test.right)
    else:
        yield test


def cst_throttles(test, statements) -> bool:
    """The libcst twin of ast_throttles."""
    for one in _cst_operands(test):
        found = _cst_below(one)
        if found is not None and None not in found and found[0] != found[1] and _cst_resets(statements, *found):
            return True
    return False
