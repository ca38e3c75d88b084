"""What a unit's ``ast`` says before libcst parses it: the rules' second prefilter.

libcst costs several times the ``ast`` walk of the same code, and on library code most units that
pass a rule's text prefilter hold nothing it can report (``device=`` already passed, numpy's
``zeros``, a word in a docstring). A rule's ``ast_may_match`` reads the unit's ast through a
``UnitAst``, which walks the statements once, on first use, for all rules that ask.

The answers err on "maybe": a rule may only say no where its libcst checks would find nothing
(tests/test_engine_speed.py compares every example with the prefilters switched off).
"""

from __future__ import annotations

import ast
from typing import List, Optional, Sequence, Set

from .edit_reuse import statement_part
from .names import ImportTable, canonical, dotted_name_ast
from .segments import walk_ast, walk_statements

# What a callee may stand for when its head is a name the unit binds to another name or by an
# import (``z = torch.zeros``, ``from torch import zeros as z`` in a function): anything.
ANYTHING = "?"
_LOOPS = frozenset((ast.For, ast.AsyncFor, ast.While))


class UnitAst:
    """A unit's ast statements, with its nodes, calls and local aliases (computed once, on first use)."""

    def __init__(self, statements: Sequence[ast.stmt], table: ImportTable):
        self.statements = statements
        self.table = table
        self._nodes: Optional[List[ast.AST]] = None
        self._calls: List[ast.Call] = []
        self._aliases: Set[str] = set()
        self._has_loop: Optional[bool] = None

    @property
    def nodes(self) -> List[ast.AST]:
        """Every node of the unit (see segments.walk_ast), parents first."""
        if self._nodes is None:
            self._scan()
        return self._nodes

    @property
    def has_loop(self) -> bool:
        """Does a ``for``/``while`` statement stand anywhere in the unit (nested functions too)?"""
        if self._has_loop is None:
            self._has_loop = any(type(stmt) in _LOOPS for stmt, _ in walk_statements(self.statements))
        return self._has_loop

    @property
    def calls(self) -> List[ast.Call]:
        if self._nodes is None:
            self._scan()
        return self._calls

    def _scan(self) -> None:
        # walk_ast goes through its statements last first, each one whole: the unit's walk is
        # its statements' walks in that order (the language server keeps those of the statements
        # an edit did not touch).
        nodes: List[ast.AST] = []
        for stmt in reversed(self.statements):
            stmt_nodes, calls, aliases = statement_part("ast_scan.unit", stmt, self.table, _scanned)
            nodes.extend(stmt_nodes)
            self._calls.extend(calls)
            self._aliases.update(aliases)
        self._nodes = nodes

    def qualname(self, expr: ast.AST) -> Optional[str]:
        """What a dotted name may stand for: its canonical qualified name through the module's
        imports, ``ANYTHING`` when its head is a local alias, None when it stands for no imported
        object (a builtin, a variable, a call's result)."""
        dotted = dotted_name_ast(expr)
        if dotted is None:
            return None
        if self._nodes is None:
            self._scan()
        if dotted.partition(".")[0] in self._aliases:
            return ANYTHING
        qual = self.table.resolve(dotted)
        return canonical(qual) if qual is not None else None

    def callee(self, call: ast.Call) -> Optional[str]:
        return self.qualname(call.func)

    def stands_for(self, expr: ast.AST, qualname: str) -> bool:
        """May ``expr`` stand for ``qualname`` or something inside it?"""
        qual = self.qualname(expr)
        return qual is not None and (qual == ANYTHING or qual == qualname or qual.startswith(qualname + "."))

    def calls_to(self, qualnames) -> List[ast.Call]:
        """The calls whose callee may be one of ``qualnames`` (canonical names)."""
        found = []
        for call in self.calls:
            qual = self.qualname(call.func)
            if qual is not None and (qual == ANYTHING or qual in qualnames):
                found.append(call)
        return found

    def calls_method(self, names) -> bool:
        """Is there a call ``<anything>.<name>(...)`` with ``name`` in ``names``?"""
        return any(type(c.func) is ast.Attribute and c.func.attr in names for c in self.calls)


def _scanned(stmt: ast.AST):
    """(the nodes of ``walk_ast([stmt])``, its calls, the names it binds as aliases)."""
    nodes = list(walk_ast([stmt]))
    calls = []
    aliases = set()
    for node in nodes:
        kind = type(node)
        if kind is ast.Call:
            calls.append(node)
        elif kind is ast.alias:
            aliases.add((node.asname or node.name).partition(".")[0])
        elif (kind is ast.Assign or kind is ast.AnnAssign) and isinstance(node.value, (ast.Name, ast.Attribute)):
            # The walker binds such a name to what its value stands for (walker._track_values).
            for target in (node.targets if kind is ast.Assign else [node.target]):
                if isinstance(target, ast.Name):
                    aliases.add(target.id)
    return nodes, calls, frozenset(aliases)
