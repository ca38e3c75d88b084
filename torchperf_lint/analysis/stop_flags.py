"""Flags that stop a loop (rules.md "Where a value lives": a value that decides whether a loop stops
is host-needed; the lead's reading R3).

Decoding loops often set a flag and leave a few lines later: GPT-SoVITS' autoregressive decoder
writes ``if torch.argmax(logits, dim=-1)[0] == self.EOS or ...: stop = True`` and then
``if stop: ... break``. The first test decides whether the loop stops as surely as ``if ...: break``
would: the host must have its value every time round.
"""

from __future__ import annotations

import ast
from typing import Iterable, List, Optional

import libcst as cst

from .names import bound_names
from .segments import BLOCK_FIELDS, walk_statements
from .syntax import branch_leaves
from .tree import descendants

_NESTED = (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _statements(block) -> Iterable[cst.CSTNode]:
    body = getattr(block, "body", ())
    return body if isinstance(body, (list, tuple)) else ()


def flag_set_true(branch) -> Optional[str]:
    """The name a branch sets to ``True`` at its own level (``stop = True``), or None."""
    for statement in _statements(branch):
        for small in (statement.body if isinstance(statement, cst.SimpleStatementLine) else ()):
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and isinstance(small.value, cst.Name) and small.value.value == "True"):
                return small.targets[0].target.value
    return None


def _reads(test: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in descendants(test))


def sets_stop_flag(branch, loop: cst.CSTNode) -> bool:
    """Does ``branch`` (the body of an ``if`` in ``loop``) set a flag (``stop = True``) that the loop
    stops on: the test of an ``if`` in the loop's own body (not in a nested loop or function) whose
    branch leaves the loop, or the loop's ``while`` test?"""
    name = flag_set_true(branch)
    if name is None:
        return False
    if isinstance(loop, cst.While) and _reads(loop.test, name):
        return True
    return any(isinstance(n, cst.If) and _reads(n.test, name) and branch_leaves(n.body)
               for n in descendants(loop.body, prune=lambda n: isinstance(n, _NESTED)))


_AST_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_AST_NESTED = _AST_LOOPS + (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def loop_stop_calls(body) -> List[int]:
    """Lines of the calls whose results a loop of the function stops on: in a loop whose own body
    ``break``s, a call's value bound to names (``loss_val, acc_val = validate()``) that an ``if`` of
    the same loop tests (``if loss_val < best: ... bad_counter += 1``, then ``if bad_counter ==
    patience: break``: the early stop of a full-batch GCN, GCNII and pyGAT of holdout14). What the
    callee returns decides whether the loop stops: the host must have it every time round
    (rules.md "Where a value lives"). A loop without a ``break`` of its own needs none of it."""
    lines: List[int] = []
    for stmt, owner in walk_statements(body):
        if owner is not None or type(stmt) not in _AST_LOOPS:
            continue
        own = list(_own_statements(stmt.body))
        if not any(type(s) is ast.Break for s in own):
            continue
        tested = {n.id for s in own if type(s) is ast.If for n in ast.walk(s.test) if type(n) is ast.Name}
        if not tested:
            continue
        for s in own:
            if type(s) is ast.Assign and type(s.value) is ast.Call and any(
                    name in tested for target in s.targets for name in bound_names(target)):
                lines.append(s.value.lineno)
    return lines


def _own_statements(statements) -> Iterable[ast.stmt]:
    """A loop body's statements, its ``if``/``with``/``try`` blocks included, not nested loops or
    definitions."""
    pending = list(reversed(statements))
    while pending:
        stmt = pending.pop()
        yield stmt
        if isinstance(stmt, _AST_NESTED):
            continue
        for field in BLOCK_FIELDS.get(type(stmt), ()):
            children = getattr(stmt, field)
            if field in ("handlers", "cases"):
                for holder in reversed(children):
                    pending.extend(reversed(holder.body))
            else:
                pending.extend(reversed(children))
