"""Choosing what to parse with libcst.

libcst costs several times ``ast.parse``, so the engine parses only the *units* of a file whose text
can match some enabled rule. A unit is a function (with its decorators), a method of a top-level
class, or a run of consecutive module-level statements (a script's body stays together, because
rules such as TPL401 compare statements within it). Each rule declares a text prefilter; a unit
whose text matches no enabled rule's prefilter is never parsed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Sequence

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = frozenset((ast.For, ast.AsyncFor, ast.While))


@dataclass
class Unit:
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    nodes: List[ast.AST] = field(default_factory=list)  # its statements in flake8's ast

    def nesting_depth(self) -> int:
        """The deepest nesting of its ast nodes (iteratively: the point is to be safe on absurd depth)."""
        return self.shape()[0]

    def shape(self) -> "tuple[int, int, int, int]":
        """(deepest nesting, its line, widest flat expression, its line), in one iterative pass.

        Width is what libcst's parser nests but ast keeps flat: the operands of one ``and``/``or``
        chain. (Comparison chains, literals and calls stay flat in libcst too, and a ``+`` chain
        is nested in ast as well, so depth measures it.)"""
        deepest = widest = 0
        deep_line = wide_line = self.start
        pending = [(node, 1) for node in self.nodes]
        children = ast.iter_child_nodes
        while pending:
            node, depth = pending.pop()
            if depth > deepest:
                deepest, deep_line = depth, getattr(node, "lineno", deep_line)
            width = _width(node)
            if width > widest:
                widest, wide_line = width, getattr(node, "lineno", wide_line)
            pending.extend((child, depth + 1) for child in children(node))
        return deepest, deep_line, widest, wide_line

    def survey(self) -> "tuple[int, int, bool]":
        """(deepest nesting, widest ``and``/``or`` chain, holds a for/while statement): shape()
        without the lines, faster, and whether any loop statement is in the unit.

        Level by level, and the childless operator and context nodes (``Load``, ``Add``...) are
        counted as one more level instead of being visited: shape() costs a generator per node,
        and this runs for every unit the engine parses."""
        level = list(self.nodes)
        depth = widest = 0
        leaf_below = has_loop = False
        while level:
            depth += 1
            leaf_below = False
            below: list = []
            push = below.append
            for node in level:
                if _push_children(node, push):
                    leaf_below = True
                node_type = type(node)
                if node_type is ast.BoolOp:
                    if len(node.values) > widest:
                        widest = len(node.values)
                elif node_type in _LOOPS:
                    has_loop = True
            level = below
        return depth + (1 if leaf_below else 0), widest, has_loop

    def text(self, lines: Sequence[str]) -> str:
        return "".join(lines[self.start - 1 : self.end])

    def parse_source(self, lines: Sequence[str]) -> "tuple[str, int]":
        """Source libcst can parse, and the offset from its line numbers to the file's.

        An indented method is wrapped in ``if 1:`` so that it parses at its own columns: findings
        keep their columns, and a fix can be spliced back line for line.
        """
        body = self.text(lines)
        if not body.endswith("\n"):
            body += "\n"
        # A form feed in the indentation resets Python's count: what counts is after the last one.
        first = body[: len(body) - len(body.lstrip(" \t\x0c"))]
        if first.rsplit("\x0c", 1)[-1][:1] in (" ", "\t"):
            return "if 1:\n" + body, self.start - 2
        return body, self.start - 1


_NODE, _LEAF, _OTHER = 1, 2, 0
_AST_KIND: dict = {}
_node_fields: dict = {}
# ast's field-less singletons: a level of their own below the node holding them, never a parent.
_LEAF_TYPES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _ast_kind(value_type: type) -> int:
    if issubclass(value_type, _LEAF_TYPES):
        kind = _LEAF
    elif issubclass(value_type, ast.AST):
        kind = _NODE
    else:
        kind = _OTHER
    _AST_KIND[value_type] = kind
    return kind


def _fields_of(node_type: type) -> tuple:
    fields = tuple(node_type._fields)
    _node_fields[node_type] = fields
    return fields


def walk_ast(statements: Sequence[ast.AST], prune: tuple = ()) -> Iterator[ast.AST]:
    """The nodes under ``statements``, parents before children: ``ast.walk`` over a unit's
    statements without its generator per node, for the rules' ast prefilters. The operator and
    context singletons (``Load``, ``Add``...) are left out; read them from their parent
    (``node.ctx``). Nodes of the ``prune`` types are yielded, not entered."""
    pending = list(statements)
    pop, push = pending.pop, pending.append
    table = CHILD_FIELDS
    while pending:
        node = pop()
        yield node
        if prune and isinstance(node, prune):
            continue
        # _push_children inlined, with only the fields that may hold nodes (CHILD_FIELDS): the
        # same children in the same order, without a look at every name, number and operator.
        fields = table.get(type(node))
        if fields is None:
            _push_children(node, push)
            continue
        for name, many in fields:
            value = getattr(node, name, None)
            if many:
                for item in value or ():
                    if item is not None:  # ``{**x}``: a None key
                        push(item)
            elif value is not None:
                push(value)


# The ASDL types of fields that never hold a node (names, numbers, literals, and the operator and
# context singletons, which _push_children does not hand on either) ...
_SCALAR_FIELD_TYPES = frozenset(("identifier", "string", "int", "constant", "expr_context", "operator", "unaryop",
                                 "boolop", "cmpop"))
# ... and those of fields that hold nodes (a type in neither set, from a later Python: that class is
# walked the generic way).
_NODE_FIELD_TYPES = frozenset(("expr", "stmt", "keyword", "arg", "arguments", "alias", "comprehension",
                               "excepthandler", "withitem", "match_case", "pattern", "type_ignore", "type_param"))


def _child_fields() -> dict:
    """Per node type, (field, holds a list) of the fields that may hold nodes, in ``_fields`` order,
    read from the ASDL signature each class documents (``Call(expr func, expr* args, keyword*
    keywords)``); a type whose signature does not read as expected is walked the generic way.
    (project_index reads the same table for the summary's expression walk.)"""
    import re

    table = {}
    for name in dir(ast):
        kind = getattr(ast, name)
        if not (isinstance(kind, type) and issubclass(kind, ast.AST)):
            continue
        match = re.fullmatch(r"(\w+)\((.*)\)", (kind.__doc__ or "").strip().split("\n", 1)[0])
        if match is None or match.group(1) != name:
            continue
        declared = [part.split() for part in match.group(2).split(",")] if match.group(2) else []
        if any(len(part) != 2 for part in declared) or [part[1] for part in declared] != list(kind._fields):
            continue
        if any(written.rstrip("*?") not in _SCALAR_FIELD_TYPES | _NODE_FIELD_TYPES for written, _ in declared):
            continue
        table[kind] = tuple((field, written.endswith("*")) for written, field in declared
                            if written.rstrip("*?") not in _SCALAR_FIELD_TYPES)
    return table


CHILD_FIELDS = _child_fields()


def _push_children(node: ast.AST, push) -> bool:
    """Hand ``node``'s child nodes to ``push``; True when it also holds a childless operator or
    context node (``Load``, ``Add``...), which is not handed on. The field table and the kind of
    each value's type are looked up once per type (no ``ast.iter_child_nodes`` generator)."""
    kinds = _AST_KIND
    fields = _node_fields.get(type(node))
    if fields is None:
        fields = _fields_of(type(node))
    leaf = False
    for name in fields:
        value = getattr(node, name, None)
        # A list holds nodes, operators (Compare's ops), None ({**x}'s key) or str (``global``).
        for item in (value if type(value) is list else (value,)):
            kind = kinds.get(type(item))
            if kind is None:
                kind = _ast_kind(type(item))
            if kind == _NODE:
                push(item)
            elif kind == _LEAF:
                leaf = True
    return leaf


def walk_statements(statements, owner: Optional[str] = None):
    """Every statement in ``statements`` and below, with the name of the function it is in (None:
    module or class level), without descending into expressions: cheap next to a full ``ast.walk``."""
    pending = [(stmt, owner) for stmt in reversed(statements)]
    pop, push = pending.pop, pending.append
    while pending:
        stmt, owner = pop()
        yield stmt, owner
        kind = type(stmt)
        fields = BLOCK_FIELDS.get(kind)
        if fields is None:
            continue  # a simple statement: nothing below it is a statement
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            owner = stmt.name
        elif kind is ast.ClassDef:
            owner = None
        for name in reversed(fields):
            children = getattr(stmt, name)
            if name == "handlers" or name == "cases":
                for holder in reversed(children):
                    for child in reversed(holder.body):
                        push((child, owner))
            else:
                for child in reversed(children):
                    push((child, owner))


# The fields of the compound statements that hold statements (or handlers and cases holding them).
BLOCK_FIELDS = {
    kind: tuple(f for f in ("body", "orelse", "finalbody", "handlers", "cases") if f in kind._fields)
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If,
                 ast.With, ast.AsyncWith, ast.Try, getattr(ast, "TryStar", ast.Try), ast.Match)
}


def _width(node: ast.AST) -> int:
    return len(node.values) if isinstance(node, ast.BoolOp) else 0


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    if decorators:
        return min(stmt.lineno, min(d.lineno for d in decorators))
    return stmt.lineno


def split_units(tree: ast.Module) -> List[Unit]:
    units: List[Unit] = []
    run_start = run_end = None
    run_nodes: List[ast.stmt] = []

    def close_run() -> None:
        nonlocal run_start, run_end, run_nodes
        if run_start is not None:
            units.append(Unit(run_start, run_end, run_nodes))
        run_start = run_end = None
        run_nodes = []

    for stmt in tree.body:
        if isinstance(stmt, _DEFS):
            close_run()
            units.append(Unit(_first_line(stmt), stmt.end_lineno, [stmt]))
        elif isinstance(stmt, ast.ClassDef):
            close_run()
            # Class bodies are split per method: nn.Module files are mostly classes, and only the
            # methods that can match are worth parsing. Class-level statements form runs too.
            inner_start = inner_end = None
            inner_nodes: List[ast.stmt] = []
            for member in stmt.body:
                if isinstance(member, _DEFS):
                    if inner_start is not None:
                        units.append(Unit(inner_start, inner_end, inner_nodes))
                        inner_start, inner_nodes = None, []
                    units.append(Unit(_first_line(member), member.end_lineno, [member]))
                else:
                    if inner_start is None:
                        inner_start = _first_line(member)
                    inner_end = member.end_lineno
                    inner_nodes.append(member)
            if inner_start is not None:
                units.append(Unit(inner_start, inner_end, inner_nodes))
        else:
            if run_start is None:
                run_start = _first_line(stmt)
            run_end = stmt.end_lineno
            run_nodes.append(stmt)
    close_run()
    return _merge_overlapping(units)


def _merge_overlapping(units: List[Unit]) -> List[Unit]:
    """Statements sharing a line (``x = 1; def f(): ...``) must be parsed together."""
    merged: List[Unit] = []
    for unit in units:
        # A class's first line (``class A: x = 1``) can hold a member: the unit then starts with
        # the unindented class line, and parse_source sees no indentation to wrap.
        if merged and unit.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Unit(last.start, max(last.end, unit.end), last.nodes + unit.nodes)
        else:
            merged.append(unit)
    return merged
