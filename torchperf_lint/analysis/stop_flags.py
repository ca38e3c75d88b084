"""Flags that stop a loop (rules.md "Where a value lives": a value that decides whether a loop stops
is host-needed; the lead's reading R3).

Decoding loops often set a flag and leave a few lines later: GPT-SoVITS' autoregressive decoder
writes ``if torch.argmax(logits, dim=-1)[0] == self.EOS or ...: stop = True`` and then
``if stop: ... break``. The first test decides whether the loop stops as surely as ``if ...: break``
would: the host must have its value every time round.
"""

from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

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
