"""Budgets: a branch that counts its own runs and stops at a number (rules.md "An interval": it picks
the first few times, as ``if i < 5:`` does on a loop counter).

    mistakes_printed = 0
    for x, y in loader:
        ...
        for i in range(n):
            if not correct[i] and mistakes_printed < 5:
                mistakes_printed += 1
                print("%d + %d = %d" % (a[i], b[i], c[i]))   # at most five times in all

The test (alone or one operand of ``and``) is a name below a number, the branch adds to that name,
and the name is set (``name = ...``) nowhere inside a loop of the function, so the budget is spent
once per call, never refilled per step. A container filled up to a bound is one too (CycleGAN's
image pool: ``if len(buffer) < buffer_size: buffer.append(b.cpu())`` runs until the pool is full). A name reset inside a loop (``printed = 0`` per batch) is no
budget: the branch then runs up to N times every step.
"""

from __future__ import annotations

import ast
from typing import Optional, Sequence, Tuple

import libcst as cst

from .tree import ast_less_than_sides, descendants, less_than_sides


def _below_number(test) -> Optional[Tuple[str, bool]]:
    """(name, False) for ``name < N`` / ``name <= N`` / ``N > name`` (N an integer); (name, True) for
    ``len(name) < bound`` (a container filled up to a bound: a number, a name or an attribute)."""
    sides = less_than_sides(test)
    if sides is None:
        return None
    left, right = sides
    if isinstance(left, cst.Name) and isinstance(right, cst.Integer):
        return left.value, False
    if (isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "len"
            and len(left.args) == 1 and isinstance(left.args[0].value, cst.Name)
            and isinstance(right, (cst.Integer, cst.Name, cst.Attribute))):
        return left.args[0].value.value, True
    return None


def _operands(test):
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from _operands(test.left)
        yield from _operands(test.right)
    else:
        yield test


def _adds_to(body, name: str, container: bool) -> bool:
    """Does a statement of the branch itself (not a nested block) add to ``name`` (``name += ...``;
    for a container also ``name.append(...)``/``name.extend(...)``)?"""
    for statement in getattr(body, "body", ()):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if (isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign)
                        and isinstance(small.target, cst.Name) and small.target.value == name):
                    return True
                if container and isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    func = small.value.func
                    if (isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend")
                            and isinstance(func.value, cst.Name) and func.value.value == name):
                        return True
    return False


def _set_in_a_loop(scope, name: str) -> bool:
    if scope is None:
        return True  # no scope to read (not known to be a budget)
    for loop in descendants(scope, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
                            and n is not scope):
        if not isinstance(loop, (cst.For, cst.While)):
            continue
        for node in descendants(loop.body):
            if isinstance(node, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets):
                return True
    return False


def spends_budget(branch: cst.If, scope: Optional[cst.CSTNode]) -> bool:
    """Is ``branch`` (an ``if`` in the function or module ``scope``: a unit's module for module-level
    code, OFormer's training scripts) a budget (module docstring)?"""
    for operand in _operands(branch.test):
        found = _below_number(operand)
        if found is not None and _adds_to(branch.body, *found) and not _set_in_a_loop(scope, found[0]):
            return True
    return False


# --- ast (the project index: a call under a budget is not a per-step call) ----------------------


def _ast_below_number(test) -> Optional[Tuple[str, bool]]:
    sides = ast_less_than_sides(test)
    if sides is None:
        return None
    left, right = sides
    if isinstance(left, ast.Name) and isinstance(right, ast.Constant) and type(right.value) is int:
        return left.id, False
    if (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
            and len(left.args) == 1 and isinstance(left.args[0], ast.Name)
            and (isinstance(right, (ast.Name, ast.Attribute))
                 or (isinstance(right, ast.Constant) and type(right.value) is int))):
        return left.args[0].id, True
    return None


def _ast_adds_to(body: Sequence[ast.stmt], name: str, container: bool) -> bool:
    for statement in body:
        if (isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add)
                and isinstance(statement.target, ast.Name) and statement.target.id == name):
            return True
        if container and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            func = statement.value.func
            if (isinstance(func, ast.Attribute) and func.attr in ("append", "extend")
                    and isinstance(func.value, ast.Name) and func.value.id == name):
                return True
    return False


def _ast_set_in_a_loop(scope_body: Sequence[ast.stmt], name: str) -> bool:
    pending = list(scope_body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == name for t in inner.targets):
                    return True
            continue
        pending.extend(ast.iter_child_nodes(node))
    return False


def ast_spends_budget(branch: ast.If, scope_body: Sequence[ast.stmt]) -> bool:
    """The ast twin of spends_budget (``scope_body``: the statements of the function or module)."""
    tests = branch.test.values if isinstance(branch.test, ast.BoolOp) and isinstance(branch.test.op, ast.And) \
        else [branch.test]
    for test in tests:
        found = _ast_below_number(test)
        if found is not None and _ast_adds_to(branch.body, *found) and not _ast_set_in_a_loop(scope_body, found[0]):
            return True
    return False
