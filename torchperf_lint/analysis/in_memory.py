"""Is a DataLoader's dataset already in memory? One judgement for the linter and the runtime guard.

TPL501 ("add worker processes") and the runtime guard's loader fix must agree: where the data is
already in memory, a worker only adds start-up cost and a pickling round-trip per batch, so the
linter stays silent and the guard leaves the loader alone, for the same reasons. Where the data is
made of CUDA tensors, workers and pinning are wrong outright (pinning a CUDA tensor raises).

This module never imports torch: the linter must run without it. The runtime half looks torch up
in ``sys.modules`` (the guard has imported it by the time a DataLoader exists).

In memory:
- a ``TensorDataset`` (any import path, or a subclass at run time);
- a tensor, a list, a tuple or a range used directly as the dataset;
- a name whose every assignment in the file is one of these (``ds = TensorDataset(x, y)``);
- a dataset whose tensors live on a CUDA device (statically: made on or moved to a device that is
  not the CPU, ``x.cuda()``, ``x.to(device)``, ``torch.randn(n, device=device)``).

The static half (``classify``) reads Python's ``ast``: the linter hands it the DataLoader's dataset
argument and the module's assignments.
"""

from __future__ import annotations

import ast
import sys
from typing import Callable, Dict, Iterable, Optional, Set

from .names import dotted_name_ast as _dotted

# Canonical names of dataset classes whose samples are slices of tensors held in memory.
IN_MEMORY_DATASET_CLASSES = frozenset({
    "torch.utils.data.TensorDataset",
    "torch.utils.data.dataset.TensorDataset",
})
# Builtins that make an in-memory sequence when passed as a DataLoader's dataset.
IN_MEMORY_BUILTINS = frozenset({"list", "tuple", "range"})
# torch factories whose result, passed straight as a dataset, is a tensor in memory.
TENSOR_MAKERS = frozenset({
    "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.stack", "torch.cat",
    "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
    "torch.randint", "torch.arange", "torch.load",
})


def is_in_memory_class(qualname: Optional[str]) -> bool:
    """The linter's test on the canonical name of the dataset's constructor."""
    return qualname in IN_MEMORY_DATASET_CLASSES or qualname in TENSOR_MAKERS


# What ``classify`` says about a dataset expression.
NOT_KNOWN = None
IN_MEMORY = "in memory"  # TensorDataset of host tensors, a tensor, a list/tuple/range
CUDA = "cuda tensors"  # built from tensors on an accelerator: no workers, no pinning

_HOST_DEVICES = ("cpu",)
# Tensor methods that keep a tensor where it is (``x.float()``, ``x[idx]``...).
_MOVES = ("cuda", "to")


def classify(
    expr: ast.AST,
    resolve: Callable[[str], Optional[str]],
    names: Dict[str, Set[Optional[str]]],
) -> Optional[str]:
    """IN_MEMORY, CUDA or NOT_KNOWN for a DataLoader's dataset expression.

    ``resolve`` maps a dotted name (``TensorDataset``, ``torch.utils.data.TensorDataset``) to its
    canonical qualified name, or None; ``names`` maps a dotted name to the kinds of every value
    assigned to it in the file (see ``assigned_kinds``)."""
    if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp, ast.Set)):
        return IN_MEMORY
    dotted = _dotted(expr)
    if dotted is not None:
        return _judge(names.get(dotted))
    if isinstance(expr, ast.Call):
        func = _dotted(expr.func)
        if func and ("." not in func or func.split(".")[0] in ("self", "cls")):
            # A function or dataset class of this module: what its returns (or the tensors its
            # ``__getitem__`` indexes) are, recorded under ``name()``.
            made = names.get(func.rsplit(".", 1)[-1] + "()")
            if made is not None:
                return _judge(made)
        qual = resolve(func) if func else None
        if func in IN_MEMORY_BUILTINS and qual is None:
            return IN_MEMORY
        if qual in IN_MEMORY_DATASET_CLASSES:
            parts = [*expr.args, *(k.value for k in expr.keywords)]
            if any(tensor_kind(p, resolve, names) == "cuda tensor" for p in parts):
                return CUDA
            return IN_MEMORY
        kind = tensor_kind(expr, resolve, names)
        if kind == "cuda tensor":
            return CUDA
        if kind == "tensor":
            return IN_MEMORY
    return NOT_KNOWN


def _judge(kinds: Optional[Set[Optional[str]]]) -> Optional[str]:
    """One judgement from the kinds of every value a name (or a call) can have."""
    if kinds and None not in kinds and not kinds - {IN_MEMORY, CUDA, "tensor", "cuda tensor"}:
        return CUDA if kinds & {CUDA, "cuda tensor"} else IN_MEMORY
    return NOT_KNOWN


def in_memory_class_assignments(node: ast.ClassDef) -> "list[tuple[str, ast.AST]]":
    """For a dataset class whose ``__getitem__`` only indexes attributes of ``self``
    (``return self.data[i]``, ``return self.x[i], self.y[i]``): ``("Name()", value)`` for every value
    the class assigns to those attributes, so that ``Name(...)`` is in memory exactly when they all
    are (``self.data = torch.randn(n, d)``). Any other class: one unknown value."""
    unknown = [(node.name + "()", None)]
    getitem = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__getitem__"), None)
    if getitem is None:
        return unknown
    body = [s for s in getitem.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    methods = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if _hands_out_held_values(body, getitem, methods):
        # ``return {"prompt": self.prompt, "index": index}``: nothing is read or computed per item,
        # so a worker could only add its start-up and a pickling round-trip (an in-memory list).
        return [(node.name + "()", ast.List(elts=[], ctx=ast.Load()))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return unknown
    returned = body[0].value
    parts = returned.elts if isinstance(returned, (ast.Tuple, ast.List)) else [returned]
    read = set()
    for part in parts:
        if not (isinstance(part, ast.Subscript) and isinstance(part.value, ast.Attribute)
                and isinstance(part.value.value, ast.Name) and part.value.value.id == "self"):
            return unknown
        read.add(part.value.attr)
    values = []
    for method in node.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for stmt in ast.walk(method):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
                stmt, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" and target.attr in read):
                    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
                    values.append((node.name + "()", value))
    return values or unknown


def _hands_out_held_values(body: list, getitem: ast.FunctionDef, methods: Set[str]) -> bool:
    """Does ``__getitem__`` only hand out what it holds? Its statements may fill a local dict or
    list with such values (``example = {}; example["prompt"] = self.prompt; return example``)."""
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return False
    held = {a.arg for a in getitem.args.args[1:]}  # the index, and locals built from held values
    for stmt in body[:-1]:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return False
        target = stmt.targets[0]
        if not _held(stmt.value, held, methods):
            return False
        if isinstance(target, ast.Name):
            held.add(target.id)
        elif not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                  and target.value.id in held and isinstance(target.slice, ast.Constant)):
            return False
    return _held(body[-1].value, held, methods)


def _held(expr: ast.AST, names: Set[str], methods: Set[str]) -> bool:
    """Is ``expr`` made only of constants, the ``names`` given, and attributes of ``self`` that are
    not methods or properties of the class (``self.prompt``), in tuples, lists and dicts?"""
    if isinstance(expr, ast.Dict):
        return all(k is None or isinstance(k, ast.Constant) for k in expr.keys) and all(
            _held(v, names, methods) for v in expr.values)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return all(_held(e, names, methods) for e in expr.elts)
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Name):
        return expr.id in names
    return (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"
            and expr.attr not in methods)


def tensor_kind(expr: ast.AST, resolve, names) -> Optional[str]:
    """"cuda tensor" (made on or moved to a device other than the CPU), "tensor" (on the host), or
    None (not known to be a tensor)."""
    if isinstance(expr, ast.Starred):
        expr = expr.value
    dotted = _dotted(expr)
    if dotted is not None:
        kinds = names.get(dotted) or {None}
        if kinds <= {"tensor", "cuda tensor"}:
            return "cuda tensor" if "cuda tensor" in kinds else "tensor"
        return None
    if isinstance(expr, ast.Subscript):
        return tensor_kind(expr.value, resolve, names)
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    if isinstance(func, ast.Attribute) and resolve(_dotted(func) or "") is None:
        # a method: ``x.cuda()``, ``x.to(device)``, ``x.float()``
        if func.attr in _MOVES:
            target = [*expr.args[:1], *(k.value for k in expr.keywords if k.arg == "device")]
            if func.attr == "cuda" or any(not _is_host_device(t) for t in target):
                return "cuda tensor"
        inner = tensor_kind(func.value, resolve, names)
        return inner
    qual = resolve(_dotted(func) or "")
    if qual in TENSOR_MAKERS:
        device = [k.value for k in expr.keywords if k.arg in ("device", "map_location")]
        if qual == "torch.load":
            return "tensor" if device and all(_is_host_device(d) for d in device) else None
        if device and not all(_is_host_device(d) for d in device):
            return "cuda tensor"
        return "tensor"
    return None


def _is_host_device(expr: ast.AST) -> bool:
    """``"cpu"``, ``torch.device("cpu")``; a dtype (``x.to(torch.float32)``) moves nothing."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) and expr.value.split(":")[0] in _HOST_DEVICES
    if isinstance(expr, ast.Call) and expr.args and (_dotted(expr.func) or "").endswith("device"):
        return _is_host_device(expr.args[0])
    dotted = _dotted(expr) or ""
    return dotted.rsplit(".", 1)[-1] in _DTYPES


_DTYPES = frozenset(("float", "float32", "float16", "half", "bfloat16", "double", "float64", "long",
                     "int64", "int", "int32", "int16", "int8", "uint8", "bool", "complex64"))


def value_kind(value: ast.AST, resolve: Callable[[str], Optional[str]], names) -> Optional[str]:
    """The kind of one assigned value, given the kinds known so far (``names``: read through its
    ``get`` only)."""
    return tensor_kind(value, resolve, names) or classify(value, resolve, names)


def assigned_kinds(
    assignments: Iterable["tuple[str, Optional[ast.AST]]"], resolve: Callable[[str], Optional[str]],
    kind_of: Callable = value_kind,
) -> Dict[str, Set[Optional[str]]]:
    """Name -> the kinds of all values assigned to it in the file ("tensor", "cuda tensor",
    IN_MEMORY, CUDA or None; a value None is one the file does not show), to a fixed point so that ``x = torch.randn(n).cuda(); ds =
    TensorDataset(x)`` follows ``x``. Scope-blind on purpose: a name counts as in memory only when
    every assignment to it anywhere in the file says so, which only ever errs towards silence.
    ``kind_of``: ``value_kind``, or a function that gives what it gives (the language server's,
    which remembers the kinds of the values an edit did not touch)."""
    pending = list(assignments)
    names: Dict[str, Set[Optional[str]]] = {}
    for _ in range(3):  # a chain of three names is as far as it is worth following
        new: Dict[str, Set[Optional[str]]] = {}
        for name, value in pending:
            kind = None if value is None else kind_of(value, resolve, names)
            new.setdefault(name, set()).add(kind)
        if new == names:
            break
        names = new
    return names


def runtime_cuda_data(dataset) -> bool:
    """Is this dataset made of CUDA tensors (workers cannot use them, pinning them raises)?

    Same inspection as ``runtime_in_memory_reason``: the object's type and a TensorDataset's
    ``tensors``, never a sample."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if isinstance(dataset, torch.Tensor):
        return dataset.device.type == "cuda"
    tensor_dataset = getattr(getattr(torch.utils, "data", None), "TensorDataset", None)
    return tensor_dataset is not None and isinstance(dataset, tensor_dataset) and any(
        isinstance(t, torch.Tensor) and t.device.type == "cuda" for t in dataset.tensors)


def runtime_in_memory_reason(dataset) -> Optional[str]:
    """Why this dataset object is already in memory (workers cost more than they save), or None.

    Reads only the object's type and, for a TensorDataset, its ``tensors`` attribute: never a
    sample (``dataset[i]`` would advance a dataset's own random generator or open its files)."""
    torch = sys.modules.get("torch")
    if isinstance(dataset, (list, tuple, range)):
        return f"in-memory {type(dataset).__name__}: workers cost more than indexing"
    if torch is None:
        return None
    if isinstance(dataset, torch.Tensor):
        if dataset.device.type == "cuda":
            return "dataset is a CUDA tensor: workers and pinning cannot use it"
        return "in-memory tensor: workers cost more than indexing"
    tensor_dataset = getattr(getattr(torch.utils, "data", None), "TensorDataset", None)
    if tensor_dataset is not None and isinstance(dataset, tensor_dataset):
        if any(isinstance(t, torch.Tensor) and t.device.type == "cuda" for t in dataset.tensors):
            return "TensorDataset of CUDA tensors: workers and pinning cannot use it"
        return "in-memory TensorDataset: worker round-trips cost more than indexing"
    return None
