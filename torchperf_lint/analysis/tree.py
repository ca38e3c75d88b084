"""A lean traversal of libcst trees.

libcst's own visitor machinery rebuilds every node's children and costs about five Python calls
per node; the engine only reads the tree, so it walks the dataclass fields that hold code
(expressions and statements), skipping whitespace, comments, punctuation, operators and
annotations (annotations are never uses). Fields are visited in source order for every node type
a rule cares about.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import libcst as cst

_SKIPPED_FIELDS = frozenset(
    """lpar rpar lbracket rbracket lbrace rbrace comma semicolon leading_lines
    lines_after_decorators header footer indent encoding default_indent default_newline
    has_trailing_newline trailing_whitespace equal dot colon operator asynchronous star start end
    conversion relative newline annotation returns posonly_ind type_parameters keyword""".split()
)
_FIELDS: Dict[type, Tuple[str, ...]] = {}


def child_fields(node_type: type) -> Tuple[str, ...]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        fields = tuple(
            f.name for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and "whitespace" not in f.name
        )
        _FIELDS[node_type] = fields
    return fields


# Per concrete type: 1 a node, 2 a list or tuple (of nodes, maybe), 0 anything else. libcst's
# node classes are ABCs, so ``isinstance(value, cst.CSTNode)`` costs an ABC check per field and
# node; the answer depends on the type alone, so it is asked once per type.
_KIND: Dict[type, int] = {}


def _kind(value_type: type) -> int:
    kind = _KIND.get(value_type)
    if kind is None:
        kind = 1 if issubclass(value_type, cst.CSTNode) else 2 if issubclass(value_type, (list, tuple)) else 0
        _KIND[value_type] = kind
    return kind


def child_nodes(node: cst.CSTNode) -> List[Tuple[str, cst.CSTNode]]:
    """(field name, child) pairs of the code-bearing children, in source order (a list)."""
    out = []
    kinds = _KIND
    fields = _FIELDS.get(type(node))
    if fields is None:
        fields = child_fields(type(node))
    for name in fields:
        value = getattr(node, name)
        kind = kinds.get(type(value))
        if kind is None:
            kind = _kind(type(value))
        if kind == 1:
            out.append((name, value))
        elif kind == 2:
            for item in value:
                item_kind = kinds.get(type(item))
                if item_kind is None:
                    item_kind = _kind(type(item))
                if item_kind == 1:
                    out.append((name, item))
    return out


def children(node: cst.CSTNode) -> Iterator[Tuple[str, cst.CSTNode]]:
    """(field name, child) pairs of the code-bearing children, in source order."""
    return iter(child_nodes(node))


def descendants(
    node: cst.CSTNode, prune: Optional[Callable[[cst.CSTNode], bool]] = None
) -> Iterator[cst.CSTNode]:
    """``node`` and everything below it, pre-order; ``prune(n)`` true skips what is below ``n``."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        if prune is not None and prune(current):
            continue
        pending.extend(reversed([child for _, child in child_nodes(current)]))


def less_than_sides(node: cst.CSTNode) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(small, big) of a single ``small < big`` / ``small <= big`` comparison, also written
    ``big > small`` / ``big >= small``; None for any other node."""
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return None
    operator = node.comparisons[0].operator
    left, right = node.left, node.comparisons[0].comparator
    if isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual)):
        return right, left
    if isinstance(operator, (cst.LessThan, cst.LessThanEqual)):
        return left, right
    return None


def ast_less_than_sides(node: ast.AST) -> Optional[Tuple[ast.AST, ast.AST]]:
    """The ``ast`` twin of ``less_than_sides``: (small, big) of one ``<``/``<=`` comparison, also
    written with ``>``/``>=``; None for any other node."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    operator, left, right = node.ops[0], node.left, node.comparators[0]
    if isinstance(operator, (ast.Gt, ast.GtE)):
        return right, left
    if isinstance(operator, (ast.Lt, ast.LtE)):
        return left, right
    return None


def reads_name(node: cst.CSTNode, name: str) -> bool:
    """Does ``node`` read the plain name ``name`` anywhere inside it?"""
    return any(isinstance(n, cst.Name) and n.value == name for n in descendants(node))
