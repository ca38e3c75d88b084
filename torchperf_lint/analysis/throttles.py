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
per period, not every step. The same test the other way round guards a branch that moves the mark
itself (``if now - last_log > log_every: ...; last_log = now``, also inside an ``if`` of that branch:
a rank gate around the save and the reset): that branch runs once per period.
A test against a fixed number (``if step < warmup: continue``) is no
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


def _ast_throttle(test) -> Optional[tuple]:
    """(counter, mark, below) when ``test`` compares a counter with a mark: ``below`` True for
    ``c < m + k`` / ``c - m < k`` (not there yet), False for ``c >= m + k`` / ``c - m > k``."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    below = isinstance(op, (ast.Lt, ast.LtE))
    if not below and not isinstance(op, (ast.Gt, ast.GtE)):
        return None
    for small, large, small_below in ((left, right, below), (right, left, not below)):
        if isinstance(small, ast.BinOp) and isinstance(small.op, ast.Sub):  # c - m < k
            return _ast_key(small.left), _ast_key(small.right), small_below
        if isinstance(large, ast.BinOp) and isinstance(large.op, ast.Add) and _ast_key(small) is not None:
            for mark in (large.left, large.right):  # c < m + k
                if _ast_key(mark) is not None:
                    return _ast_key(small), _ast_key(mark), small_below
    return None


def _ast_resets(statements: Sequence[ast.stmt], counter: str, mark: str, nested: bool = False) -> bool:
    """Do ``statements`` set the mark to the counter; with ``nested``, also inside an ``if`` among
    them (``if is_main_process: save(...); last_save = global_step``: the work the branch does is
    in that ``if``, with the reset)?"""
    return any(
        (isinstance(s, ast.Assign) and len(s.targets) == 1 and _ast_key(s.targets[0]) == mark
         and _ast_key(s.value) == counter)
        or (nested and isinstance(s, ast.If) and _ast_resets(s.body, counter, mark, nested))
        for s in statements
    )


def ast_throttles(test, statements: Sequence[ast.stmt]) -> bool:
    """Is ``test`` (of an ``if`` among ``statements`` whose body leaves) a throttle: below a mark that
    ``statements`` reset to the counter, alone or as one operand of ``and``/``or``; or a latch that
    ``statements`` set (``if self.logged_train_batch: return`` ... ``self.logged_train_batch = True``)?"""
    tests = test.values if isinstance(test, ast.BoolOp) else [test]
    for one in tests:
        found = _ast_throttle(one)
        if (found is not None and found[2] and None not in found[:2] and found[0] != found[1]
                and _ast_resets(statements, found[0], found[1])):
            return True
    return _ast_early_latch(test, statements)


def _ast_early_latch(test, statements: Sequence[ast.stmt]) -> bool:
    """The ast twin of _cst_early_latch."""
    return _ast_sets_flag(test, statements, True)


def ast_throttled_branch(test, body: Sequence[ast.stmt], methods=None) -> bool:
    """Is ``test`` (of an ``if`` with ``body``) "the counter has passed the mark", alone or as an
    operand of ``and``, with ``body`` moving the mark up to the counter (vicreg's ``if now -
    last_logging > log_freq_time: ...; last_logging = now``)? Its body runs once per period.
    ``methods``: the bodies of the enclosing class's methods by name, for a latch a called method
    sets (_ast_latched)."""
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for one in tests:
        found = _ast_throttle(one)
        if (found is not None and not found[2] and None not in found[:2] and found[0] != found[1]
                and _ast_resets(body, found[0], found[1], nested=True)):
            return True
    return _ast_latched(test, body, methods)


def _ast_latched(test, body: Sequence[ast.stmt], methods=None) -> bool:
    """The ast twin of _cst_latched; also a latch that a method of the class called at the top level
    of the body turns off (plms-graph2text's ``if not self.already_saved_batch:
    self.save_readable_batch(batch)``, whose method ends with ``self.already_saved_batch = True``:
    R183). Only the index reads calls, so only this twin looks into the called method."""
    if _ast_sets_flag(test, body, False):
        return True
    if not methods:
        return False
    for stmt in body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
                and call.func.attr in methods and _ast_sets_flag(test, methods[call.func.attr], False)):
            return True
    return False


def _ast_sets_flag(test, statements: Sequence[ast.stmt], when_tested: bool) -> bool:
    """Do ``statements`` set the flag ``test`` reads (``self.flag``, or ``not self.flag``) to
    ``when_tested`` (``not when_tested`` for the negated test)?"""
    wanted = when_tested
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, wanted = test.operand, not when_tested
    key = _ast_key(test)
    return key is not None and any(
        isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is wanted
        and any(_ast_key(t) == key for t in stmt.targets) for stmt in statements)


# --- libcst ---------------------------------------------------------------------------------------


def _cst_key(node) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        owner = _cst_key(node.value)
        return f"{owner}.{node.attr.value}" if owner is not None else None
    return None


def _cst_throttle(test) -> Optional[tuple]:
    """The libcst twin of _ast_throttle."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    op, left, right = target.operator, test.left, target.comparator
    below = isinstance(op, (cst.LessThan, cst.LessThanEqual))
    if not below and not isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        return None
    for small, large, small_below in ((left, right, below), (right, left, not below)):
        if isinstance(small, cst.BinaryOperation) and isinstance(small.operator, cst.Subtract):
            return _cst_key(small.left), _cst_key(small.right), small_below
        if (isinstance(large, cst.BinaryOperation) and isinstance(large.operator, cst.Add)
                and _cst_key(small) is not None):
            for mark in (large.left, large.right):
                if _cst_key(mark) is not None:
                    return _cst_key(small), _cst_key(mark), small_below
    return None


def _cst_resets(statements, counter: str, mark: str, nested: bool = False) -> bool:
    """The libcst twin of _ast_resets."""
    for statement in statements:
        if nested and isinstance(statement, cst.If) and _cst_resets(
                getattr(statement.body, "body", ()), counter, mark, nested):
            return True
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and _cst_key(small.targets[0].target) == mark and _cst_key(small.value) == counter):
                return True
    return False


def _cst_operands(test, only_and: bool = False):
    if isinstance(test, cst.BooleanOperation) and (not only_and or isinstance(test.operator, cst.And)):
        yield from _cst_operands(test.left, only_and)
        yield from _cst_operands(test.right, only_and)
    else:
        yield test


def cst_throttles(test, statements) -> bool:
    """The libcst twin of ast_throttles."""
    for one in _cst_operands(test):
        found = _cst_throttle(one)
        if (found is not None and found[2] and None not in found[:2] and found[0] != found[1]
                and _cst_resets(statements, found[0], found[1])):
            return True
    return _cst_early_latch(test, statements)


def _cst_early_latch(test, statements) -> bool:
    """A latch ahead of what it guards: ``if self.logged_train_batch: return`` and, among the same
    statements, ``self.logged_train_batch = True`` (w2v2-speaker's ``InputMonitor`` callback dumps
    the first batch once): what follows the exit runs once until something clears the flag, not
    every step (rules.md "An interval": an early exit, what follows it is the interval)."""
    return _cst_sets_flag(test, statements, True)


def cst_throttled_branch(branch: cst.If) -> bool:
    """The libcst twin of ast_throttled_branch, for an ``if`` node."""
    statements = getattr(branch.body, "body", ())
    for one in _cst_operands(branch.test, only_and=True):
        found = _cst_throttle(one)
        if (found is not None and not found[2] and None not in found[:2] and found[0] != found[1]
                and _cst_resets(statements, found[0], found[1], nested=True)):
            return True
    return _cst_latched(branch)


def _cst_latched(branch: cst.If) -> bool:
    """A latch, the throttle's simplest form: ``if self.need_sync: ...; self.need_sync = False``
    (or ``if not done: ...; done = True``): the branch turns its own test off, at the top level of
    its body, so it runs once until something sets the flag again (dinov2's
    ``fsdp_synchronize_streams``): not every step (rules.md "An interval")."""
    return _cst_sets_flag(branch.test, getattr(branch.body, "body", ()), False)


def _cst_sets_flag(test, statements, when_tested: bool) -> bool:
    """The libcst twin of _ast_sets_flag."""
    wanted = "True" if when_tested else "False"
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, wanted = test.expression, "False" if when_tested else "True"
    key = _cst_key(test)
    if key is None:
        return False
    for statement in statements:
        for small in getattr(statement, "body", ()) if isinstance(statement, cst.SimpleStatementLine) else ():
            if (isinstance(small, cst.Assign) and isinstance(small.value, cst.Name) and small.value.value == wanted
                    and any(_cst_key(t.target) == key for t in small.targets)):
                return True
    return False
