"""Names a function uses as tensors: evidence that a name of unknown origin (a parameter, a value a
callee returned) holds a tensor.

``x.unsqueeze(-1)``, ``A.shape[-1]``, ``input.size(0)`` or a ``torch.Tensor`` annotation on a name
says it is a tensor (or a numpy array): no device, dtype, string or number has these. The rules ask
this only where the other choices are exactly those (``.to(x)`` takes a tensor, a device, a dtype, a
string or an int), so a name with such a use is the tensor form. Nested ``def``/``lambda``/``class``
bodies are left out: their names are other names.
"""

from __future__ import annotations

from typing import FrozenSet

import libcst as cst

# Attributes that a tensor has and a device, a dtype, a string and a number do not.
TENSOR_ATTRIBUTES = frozenset(("shape", "ndim", "device", "dtype", "is_cuda", "grad", "mT"))
# Methods that a tensor has and a device, a dtype, a string and a number do not.
TENSOR_METHODS = frozenset(
    "size dim numel unsqueeze squeeze view view_as reshape reshape_as permute transpose contiguous detach "
    "clone expand expand_as flatten masked_fill masked_fill_ type_as new_zeros new_ones new_full new_empty "
    "new_tensor scatter_ index_select softmax log_softmax".split()
)


# Methods only a torch tensor has: not a numpy array (whose ``size`` is no method and which has no
# ``to``/``cuda``), a device, a dtype, a string or a number.
TORCH_ONLY_METHODS = frozenset(
    "to cuda cpu size dim unsqueeze permute detach contiguous view_as expand_as masked_fill masked_fill_ type_as "
    "new_zeros new_ones new_full new_empty new_tensor index_select".split()
)


# torch.distributed's collectives and the positions of the tensors they take (not the ``*_object``
# ones, which take any Python object): a name handed there is a tensor (R170).
COLLECTIVE_TENSOR_POSITIONS = {
    "all_reduce": (0,), "broadcast": (0,), "reduce": (0,), "all_gather": (1,),
    "all_gather_into_tensor": (0, 1), "reduce_scatter_tensor": (0, 1),
}


def _collective_receiver(expr: cst.BaseExpression) -> bool:
    """``dist`` or ``torch.distributed``: the usual names of torch's distributed package."""
    if isinstance(expr, cst.Name):
        return expr.value == "dist"
    return (isinstance(expr, cst.Attribute) and expr.attr.value == "distributed"
            and isinstance(expr.value, cst.Name) and expr.value.value == "torch")


def _is_tensor_annotation(annotation: cst.BaseExpression) -> bool:
    """``torch.Tensor`` or ``Tensor`` (the name torch gives its class; a local class of that name is
    still a tensor-like argument to ``.to``)."""
    if isinstance(annotation, cst.Attribute):
        return (annotation.attr.value == "Tensor" and isinstance(annotation.value, cst.Name)
                and annotation.value.value in ("torch", "th", "T"))
    return isinstance(annotation, cst.Name) and annotation.value == "Tensor"


class _Uses(cst.CSTVisitor):
    """The names a function's own body calls one of ``methods`` on or reads one of ``attributes``
    of (its parameters' ``torch.Tensor`` annotations too)."""

    def __init__(self, top: cst.CSTNode, methods: FrozenSet[str], attributes: FrozenSet[str],
                 collectives: bool = False):
        super().__init__()
        self.top = top
        self.methods, self.attributes = methods, attributes
        self.collectives = collectives  # names handed to torch.distributed's collectives count
        self.names = set()

    def _nested(self, node) -> bool:
        return node is not self.top  # a nested definition: do not descend

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is self.top:
            params = node.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                if param.annotation is not None and _is_tensor_annotation(param.annotation.annotation):
                    self.names.add(param.name.value)
            return True
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return not self._nested(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return not self._nested(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.attr.value in self.attributes:
            self.names.add(node.value.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.attr.value in self.methods):
            self.names.add(func.value.value)
        if (self.collectives and isinstance(func, cst.Attribute) and _collective_receiver(func.value)
                and func.attr.value in COLLECTIVE_TENSOR_POSITIONS):
            # ``dist.all_gather(loss_batches, local_losses)``: CogACT's loss-aware sampler (holdout195)
            positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
            for index in COLLECTIVE_TENSOR_POSITIONS[func.attr.value]:
                if index < len(positional) and isinstance(positional[index].value, cst.Name):
                    self.names.add(positional[index].value.value)


def _names_used(function: cst.CSTNode, methods: FrozenSet[str], attributes: FrozenSet[str],
                collectives: bool = False) -> FrozenSet[str]:
    uses = _Uses(function, methods, attributes, collectives)
    function.visit(uses)
    return frozenset(uses.names)


def names_used_as_tensors(function: cst.CSTNode) -> FrozenSet[str]:
    """The names ``function``'s own body (parameters' annotations included) uses as tensors, a
    tensor handed to a collective of torch.distributed included (R170)."""
    return _names_used(function, TENSOR_METHODS, TENSOR_ATTRIBUTES, collectives=True)


def names_used_as_torch_tensors(function: cst.CSTNode) -> FrozenSet[str]:
    """The names ``function``'s own body uses as torch tensors, not numpy arrays: a torch-only method
    called on them, or a ``torch.Tensor`` annotation (R123: ``torch.BoolTensor(audio.shape)`` reads
    a torch.Size as sizes, a numpy array's tuple as data)."""
    return _names_used(function, TORCH_ONLY_METHODS, frozenset())


class _Calls(cst.CSTVisitor):
    def __init__(self, top: cst.CSTNode):
        super().__init__()
        self.top = top
        self.names = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.top

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.names.add(node.func.value)


def names_called(function: cst.CSTNode) -> FrozenSet[str]:
    """The names ``function``'s own body calls (``head(out)``): a function or a module, never a
    tensor (a tensor is not callable), so ``head = head.to(device)`` moves a module (prec9, the
    lead's R4 the other way round: CLMR's ``if finetuned_head:`` tests a module, not a tensor)."""
    calls = _Calls(function)
    function.visit(calls)
    return frozenset(calls.names)
