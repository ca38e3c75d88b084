"""Parameters a function uses as a slice bound (the lead's reading R3 across a call: a value the host
must have, wherever it is used).

Matcha-TTS's ``compute_durations`` hands ``x_lengths[i].item()`` to ``save_durations_to_folder(attn,
x_length, ...)``, whose body slices ``attn.squeeze().sum(1)[:x_length]``: a slice bound is a size the
host needs, so the sync cannot go while the call stays, as it could not were the slice written in the
caller. The project index records, per function that writes a slice, which of its parameters are a
bound of one: the parameter itself, or arithmetic and ``int()``/``min()``/``max()`` of it (``x[: n +
1]``, ``x[: int(n)]``), as TPL102 reads a bound computed from a value in one function.
"""

from __future__ import annotations

import ast
from typing import List, Set


_SIZE_CALLS = frozenset(("int", "min", "max", "round"))


def _bound_names(node, out: Set[str]) -> None:
    kind = type(node)
    if kind is ast.Name:
        out.add(node.id)
    elif kind is ast.BinOp:
        _bound_names(node.left, out)
        _bound_names(node.right, out)
    elif kind is ast.UnaryOp:
        _bound_names(node.operand, out)
    elif kind is ast.Call and type(node.func) is ast.Name and node.func.id in _SIZE_CALLS:
        for arg in node.args:
            _bound_names(arg, out)


def slice_bound_parameters(node, slices: List[ast.Slice]) -> List[str]:
    """The names of ``node``'s parameters (not ``self``/``cls``) that are a bound of one of
    ``slices``: the slices its own body writes (nested definitions and lambdas apart), as the
    project index's walk of the body met them."""
    arguments = node.args
    params = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
              if a.arg not in ("self", "cls")]
    if not params:
        return []
    bounds: Set[str] = set()
    for current in slices:
        for part in (current.lower, current.upper, current.step):
            if part is not None:
                _bound_names(part, bounds)
    return [p for p in params if p in bounds]


def bounds_a_slice(record, parameter) -> bool:
    """Does the function ``record`` (a project index function record) use ``parameter`` as a slice
    bound?"""
    return record is not None and parameter is not None and parameter in record.get("boundp", ())
