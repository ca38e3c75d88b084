"""A lean traversal of libcst trees.

libcst's own visitor machinery rebuilds every node's children and costs about five Python calls
per node; the engine only reads the tree, so it walks the dataclass fields that hold code
(expressions and statements), skipping whitespace, comments, punctuation, operators and
annotations (annotations are never uses). Fields are visited in source order for every node type
a rule cares about.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Iterator, Optional, Tuple

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


def children(node: cst.CSTNode) -> Iterator[Tuple[str, cst.CSTNode]]:
    """(field name, child) pairs of the code-bearing children, in source order."""
    for name in child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield name, value
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield name, item


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
        pending.extend(reversed([child for _, child in children(current)]))
