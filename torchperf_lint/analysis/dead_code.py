"""Blocks that never run: the body of ``if False:`` / ``if 0:`` / ``while False:``, and the ``else``
of ``if True:`` (reading R47.1); the statements after ``exit()``/``sys.exit()`` in a block (R146),
and after ``return`` or ``raise`` (R198).

Research code keeps debug and visualisation blocks switched off with a constant test (GVHMR's
``if False:  # visualize bbx_xys from an iPhone view`` in ``training_step``, holdout79). Nothing
there runs, so nothing there waits for the device or re-allocates every step: a TPL102 or TPL103
finding inside such a block is not reported (engine.py; a rule that describes the code as written,
a CPU factory moved at once, still is), and a call there is no call site the step-body walk follows
(project_index's summary skips the block). Only literal constants count: a name that is ``False``
today (``DEBUG = False``) is a setting the user may turn on.
"""

from __future__ import annotations

import ast
import re
from typing import List, Optional, Tuple

# A file without one of these texts has no constant test: the common case costs one search.
_CONSTANT_TEST = re.compile(r"\b(?:if|while|elif)[ \t(]+(?:False|True|0|1|None)[ \t)]*:")
# ... searched first without its leading ``\b``: a pattern that starts with a word boundary is tried
# at every position of the text, one that starts with ``if``/``while`` only where those letters
# are (``elif`` holds ``if``). Every text the first pattern matches, this one matches too; the
# search costs a third (0.07 of the flake8 plugin's 0.95 cpu-s over torch's nn/ and utils/ before).
_CONSTANT_TEST_LETTERS = re.compile(r"(?:if|while)[ \t(]+(?:False|True|0|1|None)[ \t)]*:")


def constant_truth(test: ast.expr) -> Optional[bool]:
    """The truth of a test that is a literal constant (``False``, ``0``, ``None``, ``True``, ``1``,
    ``""``); None for anything else."""
    if type(test) is ast.Constant and (test.value is None or type(test.value) in (bool, int, str)):
        return bool(test.value)
    return None


def never_runs(stmt: ast.stmt) -> Tuple[list, ...]:
    """The statement lists of ``stmt`` (an ``if`` or ``while``) that never run: the body of a false
    test, the ``else`` of a true ``if``. Empty for other statements."""
    kind = type(stmt)
    if kind is ast.If:
        truth = constant_truth(stmt.test)
        if truth is False:
            return (stmt.body,)
        if truth is True and stmt.orelse:
            return (stmt.orelse,)
    elif kind is ast.While and constant_truth(stmt.test) is False:
        return (stmt.body,)  # (its ``else`` runs: the loop ends at once)
    return ()


_EXIT_FUNCTIONS = frozenset(("exit", "quit"))
_EXIT_METHODS = frozenset((("sys", "exit"), ("os", "_exit")))


def exits(stmt: ast.stmt) -> bool:
    """Is ``stmt`` a call that ends the process: ``exit()``, ``quit()``, ``sys.exit(...)``,
    ``os._exit(...)`` (R146)? What follows it in its block never runs (yolact_edge's ``__main__``
    benchmark loop after ``exit()``, holdout135)."""
    if type(stmt) is not ast.Expr or type(stmt.value) is not ast.Call:
        return False
    func = stmt.value.func
    if type(func) is ast.Name:
        return func.id in _EXIT_FUNCTIONS
    return type(func) is ast.Attribute and type(func.value) is ast.Name and (func.value.id, func.attr) in _EXIT_METHODS


def ends_block(stmt: ast.stmt) -> bool:
    """Does ``stmt`` end its block, so that the statements after it never run: an exit call (R146),
    ``return`` or ``raise`` (Multi-Singer's ``sync``: ``return`` above the ``torch.cuda.synchronize``
    it kept for profiling, holdout225; R198)?"""
    return type(stmt) in (ast.Return, ast.Raise) or exits(stmt)


# A ``return``/``raise`` line followed (past blank and comment lines) by a statement at the same
# indentation: the text test before the statements are walked for R198 (most files have none).
_STATEMENT_AFTER_END = re.compile(r"\n([ \t]+)(?:return|raise)\b[^\n]*\n(?:[ \t]*(?:#[^\n]*)?\n)*\1(?![ \t#\n])")


def _after_exit(block: list) -> Optional[Tuple[int, int]]:
    """(first, last) lines of the statements after an exit call, ``return`` or ``raise`` in
    ``block``, if any."""
    for index, stmt in enumerate(block[:-1]):
        if ends_block(stmt):
            rest = block[index + 1:]
            return rest[0].lineno, rest[-1].end_lineno or rest[-1].lineno
    return None


def dead_line_ranges(source: str, tree: ast.Module) -> List[Tuple[int, int]]:
    """(first, last) lines of every block of ``tree`` that never runs, outermost only; also the
    statements after an exit call (R146), ``return`` or ``raise`` (R198) in their block."""
    constant = _CONSTANT_TEST_LETTERS.search(source) is not None and _CONSTANT_TEST.search(source) is not None
    exiting = ("exit(" in source or "quit(" in source
               or (("return" in source or "raise" in source) and _STATEMENT_AFTER_END.search(source) is not None))
    if not constant and not exiting:
        return []
    found: List[Tuple[int, int]] = []
    stack = [tree.body]
    while stack:
        statements = stack.pop()
        if exiting:
            rest = _after_exit(statements)
            if rest is not None:
                found.append(rest)
                statements = [s for s in statements if s.lineno < rest[0]]
        for stmt in statements:
            dead = never_runs(stmt) if constant else ()
            for block in dead:
                if block:
                    found.append((block[0].lineno, block[-1].end_lineno or block[-1].lineno))
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(stmt, field, None)
                if children and not any(children is block for block in dead):
                    if field in ("handlers", "cases"):
                        stack.extend(child.body for child in children)
                    else:
                        stack.append(children)
    return found


def in_dead_block(line: int, ranges: List[Tuple[int, int]]) -> bool:
    return any(first <= line <= last for first, last in ranges)
