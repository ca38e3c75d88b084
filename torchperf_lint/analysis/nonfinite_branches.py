"""Branches taken only when a value is not finite (the reading R10 of docs/precision.md "prec9").

``if torch.isnan(c).any(): print(f"NaN after {xt.min()}")``, ``if not math.isfinite(loss.item()):
log.error(f"Loss is {loss}")``, ``num_nans = torch.isnan(s).sum(); if num_nans > 0: warn(...)``:
the test is the per-step sync (reported where it is); the branch runs once the run has already gone
wrong, so the message that reports the failure is not work done every step, as an ``except``
handler's is not (rules.md "A step body": code that runs once per step). Values taken there for
use (``row = torch.isnan(r).nonzero()``, ``total += v.item()``) are another matter: the rule decides
on messages only (printing and formatting).

Only libcst nodes. The test's sense is read from its calls: ``isnan``/``isinf``/``isneginf``/
``isposinf`` (torch's, a tensor's, numpy's or math's) hold when something is not finite,
``isfinite`` when everything is; ``not``/``~`` swap them, ``.any()``/``.all()``/``torch.any``/
``.item()``/``bool(...)`` keep them, ``and`` narrows, ``or`` needs both sides; a count of such
values (``torch.sum(torch.isnan(s))``, ``.sum()``, ``.count_nonzero()``), or a local name every
binding of which is one, compared ``> 0``/``!= 0``/``>= 1``.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .syntax import last_identifier
from .tree import descendants

_NOT_FINITE = frozenset(("isnan", "isinf", "isneginf", "isposinf"))
_FINITE = frozenset(("isfinite",))
_KEEPS = frozenset(("any", "all", "item", "bool"))  # a reduction or read that keeps the sense
_COUNTS = frozenset(("sum", "count_nonzero"))


def _call_name(call: cst.Call) -> Optional[str]:
    return last_identifier(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None


def _operand(call: cst.Call) -> Optional[cst.BaseExpression]:
    """What a sense-keeping call reads: the receiver of ``x.any()``, the argument of ``torch.any(x)``."""
    if isinstance(call.func, cst.Attribute) and not call.args:
        return call.func.value
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return positional[0] if positional else None


class _Sense:
    """Reads a test's sense in one function, following its local names."""

    def __init__(self, function: Optional[cst.CSTNode]):
        self._function = function
        self._bindings: Optional[dict] = None

    def _values_of(self, name: str) -> list:
        if self._bindings is None:
            self._bindings = {}
            if self._function is not None:
                for node in descendants(self._function.body, prune=lambda n: isinstance(
                        n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))):
                    if isinstance(node, cst.Assign):
                        for target in node.targets:
                            key = target.target.value if isinstance(target.target, cst.Name) else None
                            if key is not None:
                                self._bindings.setdefault(key, []).append(node.value)
                    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
                        self._bindings.setdefault(node.target.value, []).append(None)
                    elif isinstance(node, (cst.For, cst.CompFor)):
                        for inner in descendants(node.target):
                            if isinstance(inner, cst.Name):
                                self._bindings.setdefault(inner.value, []).append(None)
        return self._bindings.get(name, [])

    def not_finite(self, test: cst.BaseExpression, depth: int = 0) -> bool:
        """Does ``test`` hold only when some value is not finite?"""
        if depth > 8:
            return False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, (cst.Not, cst.BitInvert)):
            return self.finite(test.expression, depth + 1)
        if isinstance(test, cst.BooleanOperation):
            left = self.not_finite(test.left, depth + 1)
            right = self.not_finite(test.right, depth + 1)
            return (left or right) if isinstance(test.operator, cst.And) else (left and right)
        if isinstance(test, cst.Call):
            name = _call_name(test)
            if name in _NOT_FINITE:
                return True
            if name in _KEEPS:
                operand = _operand(test)
                return operand is not None and self.not_finite(operand, depth + 1)
            return False
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            bound = target.comparator
            if not isinstance(bound, cst.Integer):
                return False
            positive = ((isinstance(target.operator, (cst.GreaterThan, cst.NotEqual)) and bound.value == "0")
                        or (isinstance(target.operator, cst.GreaterThanEqual) and bound.value == "1"))
            return positive and self._counts_not_finite(test.left, depth + 1)
        if isinstance(test, cst.Name):
            values = self._values_of(test.value)
            return bool(values) and all(v is not None and self.not_finite(v, depth + 1) for v in values)
        return False

    def finite(self, test: cst.BaseExpression, depth: int = 0) -> bool:
        """Does ``test`` hold only when the values it reads are finite?"""
        if depth > 8:
            return False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, (cst.Not, cst.BitInvert)):
            return self.not_finite(test.expression, depth + 1)
        if isinstance(test, cst.Call):
            name = _call_name(test)
            if name in _FINITE:
                return True
            if name in _KEEPS:
                operand = _operand(test)
                return operand is not None and self.finite(operand, depth + 1)
            return False
        if isinstance(test, cst.Name):
            values = self._values_of(test.value)
            return bool(values) and all(v is not None and self.finite(v, depth + 1) for v in values)
        return False

    def _counts_not_finite(self, expr: cst.BaseExpression, depth: int) -> bool:
        """``torch.sum(torch.isnan(s))``, ``torch.isnan(s).sum()``, ``.item()`` of one, or a name
        every binding of which is one."""
        if depth > 8:
            return False
        if isinstance(expr, cst.Call):
            name = _call_name(expr)
            if name in _COUNTS or name in _KEEPS:
                operand = _operand(expr)
                return operand is not None and (self.not_finite(operand, depth + 1)
                                                or self._counts_not_finite(operand, depth + 1))
            return False
        if isinstance(expr, cst.Name):
            values = self._values_of(expr.value)
            return bool(values) and all(v is not None and self._counts_not_finite(v, depth + 1) for v in values)
        return False


def in_nonfinite_branch(stack) -> bool:
    """Is the last node of ``stack`` in a branch of the current function that runs only when some
    value is not finite: the body of ``if torch.isnan(x).any():``, of ``if not math.isfinite(v):``,
    the ``else`` of ``if torch.isfinite(loss):``? A function or class between them ends the search;
    a loop does not: a loop inside such a branch runs only when the value is not finite too
    (open-universe's ``for lkey, lval in losses.items(): print(..., torch.isnan(lval).any())`` under
    ``if torch.isnan(train_loss):``, holdout96; R47.9). The test itself is not in it."""
    function = next((n for n in reversed(stack) if isinstance(n, cst.FunctionDef)), None)
    sense = None
    for index in range(len(stack) - 2, -1, -1):
        node = stack[index]
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, cst.If):
            child = stack[index + 1]
            if child is node.body or (child is node.orelse and isinstance(child, cst.Else)):
                if sense is None:
                    sense = _Sense(function)
                if child is node.body and sense.not_finite(node.test):
                    return True
                if child is node.orelse and sense.finite(node.test):
                    return True
    return False
