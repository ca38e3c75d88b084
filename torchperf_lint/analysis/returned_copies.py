"""A copy to the host that a function returns to callers that hand it to a host library (TPL102;
the lead's reading R3 across a call; issue 20, prec10).

pytorch-segmentation's ``batch_pix_accuracy`` ends ``return pixel_correct.cpu().numpy(),
pixel_labeled.cpu().numpy()``, and its one caller, ``eval_metrics`` in the same file, unpacks the
two arrays and hands each to ``np.round``: the host must have them, every step, so the copy cannot go
while that use stays (host-needed). The copy is read where it is made only by the return; what the
host does with it is in the callers. This finds, for a sync inside a ``return`` (the whole value, or
one item of a returned tuple, through the value's own methods: ``.cpu().numpy()``), the project's
calls of the function (in the modules the step-body walk read) and asks of each whether the value it
binds (``a, b = f(...)``: item by item; ``x = f(...)``) or hands on (``np.round(f(...))``) reaches a
host library in the calling function (host_library_parameters). Every call must: one caller that
keeps the value on the device, or none seen, leaves the finding as it was.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from .host_library_parameters import _HostLibrary, host_library_parameters

_WHOLE = -1


def returned_item(stack) -> Optional[int]:
    """The current node (the last of ``stack``, a sync) is the value of a ``return``, or item
    ``i`` of a returned tuple, read through its own methods only (``return x.cpu().numpy()``):
    _WHOLE or ``i``; None otherwise."""
    index = None
    for position in range(len(stack) - 2, -1, -1):
        node, child = stack[position], stack[position + 1]
        if isinstance(node, cst.Return):
            return _WHOLE if index is None else index
        if isinstance(node, cst.Attribute) and node.value is child:
            continue
        if isinstance(node, cst.Call) and node.func is child:
            continue  # ``.numpy()`` of the copy
        if isinstance(node, cst.Element) and node.value is child:
            continue
        if isinstance(node, cst.Tuple) and index is None and isinstance(stack[position - 1], cst.Return):
            index = next((i for i, element in enumerate(node.elements) if element is child), None)
            if index is None or any(isinstance(e, cst.StarredElement) for e in node.elements):
                return None
            continue
        return None
    return None


def callers_hand_to_host_library(bodies, returns, qualname: str, item: int) -> bool:
    """Does every call of the linted file's function ``qualname`` that the project shows (at least
    one) hand what it returns (``item``: _WHOLE, or the index of a returned tuple's item) to a host
    library in its own function? ``returns``: the file's return_kinds.ReturnKinds (its function
    index gives the calling functions' ``ast``)."""
    key = ("returned-copies", bodies.module.path, bodies.module.digest, qualname, item)
    known = returns.memo.get(key)
    if known is None:
        known = returns.memo[key] = _callers_hand_on(bodies, returns, qualname, item)
    return known


def _callers_hand_on(bodies, returns, qualname: str, item: int) -> bool:
    target = (bodies.module.path, qualname)
    seen = 0
    for module in list(bodies._loaded.values()):
        for caller, record in module.functions.items():
            own = bodies._own_class(module, record)
            lines = set()
            for ref, line, *_ in record["calls"]:
                try:
                    found = bodies.resolve(module, ref, own, own)
                except RecursionError:
                    return False
                if found is not None and found[0] == target:
                    lines.add(line)
            if not lines:
                continue
            node = returns._function_node(module, caller) if caller != "<module>" else None
            if node is None:
                return False
            for line in lines:
                seen += 1
                if not _hands_on(node, line, qualname.rpartition(".")[2], item, module):
                    return False
    return seen > 0


def _hands_on(function, line: int, name: str, item: int, table) -> bool:
    """In ``function``, does the call of ``name`` on ``line`` bind its value (or the item ``item``)
    to names that reach a host library, or stand as an argument of a host library call itself?
    ``table``: the calling module (project_index.Module.resolve reads its imports as an
    ImportTable does)."""
    host_library = _HostLibrary(table, {})
    for statement in ast.walk(function):
        if isinstance(statement, ast.Call) and host_library(statement.func):
            for argument in (*statement.args, *(k.value for k in statement.keywords)):
                if item == _WHOLE and _calls(argument, name, line):
                    return True
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and _calls(statement.value, name, line)):
            continue
        target = statement.targets[0]
        if item == _WHOLE:
            if not isinstance(target, ast.Name):
                return False
            names = [target.id]
        else:
            if not (isinstance(target, (ast.Tuple, ast.List)) and item < len(target.elts)
                    and isinstance(target.elts[item], ast.Name)):
                return False
            names = [target.elts[item].id]
        return bool(host_library_parameters(function, table, names))
    return False


def _calls(node, name: str, line: int) -> bool:
    """Is ``node`` a call of ``name`` (bare or as an attribute) on ``line``?"""
    if not (isinstance(node, ast.Call) and node.lineno <= line <= (getattr(node, "end_lineno", None) or node.lineno)):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name)
