"""Attributes a file keeps CPU tensors in (``self.video_labels = torch.zeros((n, c))``).

rules.md "Where a value lives": a tensor made by a factory without ``device=`` lives on the host,
and a value known to be on the host never makes a sync. A plain tensor attribute stays where it was
made: ``Module.to(device)`` moves parameters and registered buffers, not other attributes, and a
tensor has no in-place move. TimeSformer's ``TestMeter`` keeps ``self.video_labels`` so, and its
``update_stats`` tests ``if self.video_labels[vid_id].sum() > 0:`` on the host.
"""

from __future__ import annotations

import ast
from typing import FrozenSet

from .python_containers import attributes_only_bound

# torch factories that make a tensor on the host unless told a device (the ``*_like`` ones follow
# their argument, which may be on a device: not here).
_FACTORIES = frozenset(
    "tensor as_tensor from_numpy zeros ones empty full arange linspace logspace eye rand randn "
    "randint randperm".split())
# Methods that keep a host tensor on the host (a dtype or a fill: never a move).
_KEEPS_PLACE = frozenset("long float double half int bool byte fill_ zero_ clone detach contiguous".split())


def cpu_tensor_attributes(tree: ast.Module, table=None) -> FrozenSet[str]:
    """The names ``attr`` the file assigns as ``self.attr = ...`` only ever to a torch factory's
    result without ``device=`` (through dtype and fill methods), never registers as a buffer, and
    never moves (``self.attr.to(...)``, ``.cuda()`` anywhere disqualify it: a result assigned
    elsewhere may be read back)."""
    others = set()
    nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "register_buffer" and node.args and \
                    isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                others.add(node.args[0].value)
            elif isinstance(func, ast.Attribute) and func.attr in ("to", "cuda") and _self_attr(func.value):
                others.add(func.value.attr)
    host = attributes_only_bound(tree, lambda value: _host_factory(value, table), nodes)
    return frozenset(host - others)


def _self_attr(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _host_factory(value, table) -> bool:
    """``torch.zeros((n, c))``, ``torch.zeros(n).long()``, each made on the host (both branches of
    a conditional expression so)."""
    if isinstance(value, ast.IfExp):
        return _host_factory(value.body, table) and _host_factory(value.orelse, table)
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEEPS_PLACE:
        value = value.func.value
    if not isinstance(value, ast.Call) or any(k.arg in (None, "device") for k in value.keywords):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        head = table.resolve(func.value.id) if table is not None else func.value.id
        return head == "torch" and func.attr in _FACTORIES
    return False


def numpy_attributes(tree: ast.Module, table=None) -> FrozenSet[str]:
    """The names ``attr`` the file assigns as ``self.attr = ...`` only ever to a numpy call's result
    (``self.train_cm = np.zeros((2, 2))``; ALSO's confusion matrix, holdout149; R128): a numpy array,
    whatever is added to it in place (``self.train_cm += cm`` keeps the array: numpy takes a CPU
    tensor's values and raises on a device tensor's)."""
    return frozenset(attributes_only_bound(tree, lambda value: _numpy_call(value, table)))


def _numpy_call(value, table) -> bool:
    if isinstance(value, ast.IfExp):
        return _numpy_call(value.body, table) and _numpy_call(value.orelse, table)
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    while isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute):
        func = func.value  # ``np.random.rand(...)``: the module at the head
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        head = table.resolve(func.value.id) if table is not None else func.value.id
        return head == "numpy"
    return False
