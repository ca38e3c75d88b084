"""Metric states a file registers with torchmetrics' ``add_state`` (``self.cer``), and the buffers
its modules register (``self.register_buffer("num_updates", torch.tensor(0))``).

``self.add_state("cer", default=torch.tensor(0), dist_reduce_fx="sum")`` makes ``self.cer`` a
tensor that moves with the metric, and a metric is a child module of the model it measures (the
LightningModule's ``self.wer = WordErrorRate(...)``): on the accelerator when the model is. rules.md
"Where a value lives": a value of unknown origin counts as possibly on the device, and
``float(self.cer)`` in ``compute()``, called every validation step, is a sync (deepspeech.pytorch
of the holdout3 set). Value flow asks this module which ``self.<attr>`` are such states.
"""

from __future__ import annotations

import ast
from typing import FrozenSet

from .segments import walk_ast


def tensor_states(tree: ast.Module, table=None) -> FrozenSet[str]:
    """The names registered by ``self.add_state("<name>", <torch call>, ...)`` (the default given
    positionally or as ``default=``) or ``self.register_buffer("<name>", <torch call>)`` whose value
    is a tensor made by a ``torch.`` call, never a list (a list state holds the tensors appended to
    it, not one tensor) nor ``None``."""
    found = set()
    # (segments.walk_ast: the same nodes as ast.walk but the operator and context singletons, without
    # a generator per node; this walks every node of a file that value flow asks about.)
    for node in walk_ast(tree.body):
        if not (type(node) is ast.Call and isinstance(node.func, ast.Attribute)
                and node.func.attr in _REGISTERS and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "self" and node.args):
            continue
        name = node.args[0]
        default = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == _REGISTERS[node.func.attr]), None)
        if isinstance(name, ast.Constant) and isinstance(name.value, str) and _made_by_torch(default):
            found.add(name.value)
    return frozenset(found)


# The methods that register a tensor on a module, with the keyword of the tensor: torchmetrics'
# ``add_state`` and ``nn.Module.register_buffer`` (a buffer moves with its module: glow's
# ``ActNorm.initialized``, an EMA's ``num_updates`` counter).
_REGISTERS = {"add_state": "default", "register_buffer": "tensor"}


def _made_by_torch(value) -> bool:
    """A ``torch.`` call (either one of ``a if c else b``), not a list, ``None`` or a name."""
    if isinstance(value, ast.IfExp):
        return _made_by_torch(value.body) and _made_by_torch(value.orelse)
    return isinstance(value, ast.Call) and _torch_call(value.func)


def _torch_call(func: ast.AST) -> bool:
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id == "torch"
