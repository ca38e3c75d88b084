"""The facts that decide whether a fix is safe: what a rule's fix could break, read from the file.

Each is computed once per file from its ast, when a rule that has a fix to offer first asks
(``facts.derived(key, function)``). They answer conservatively: "maybe" counts as "yes", and a
fix that might break is offered as unsafe, or not at all.

- ``narrow_move_methods``: classes the file defines with a ``to``/``cuda`` method that accepts no
  ``non_blocking`` keyword (TPL104: ``batch.to(device, non_blocking=True)`` on one raises TypeError).
- ``device_datasets``: dataset classes that move their items, or the data of their items, to a
  device (TPL502: pinning a CUDA tensor raises).
- ``mps_only``: the file names Apple's MPS device and never CUDA (TPL502: pinning warns there,
  and non-blocking MPS copies have corrupted data).
- ``cuda_visible_devices``: where the file sets ``CUDA_VISIBLE_DEVICES``, and whether a fix that
  asks ``torch.cuda.is_available()`` at a DataLoader could ask before that (CUDA counts devices on
  the first question: a later setting is ignored).
- ``exported_names``: the names in ``__all__`` (TPL304: importers get the name under its old
  signature; None when ``__all__`` is built in a way the linter cannot read).
"""

from __future__ import annotations

import ast
from typing import FrozenSet, List, Optional, Tuple

from .edit_reuse import statement_part

MOVE_METHODS = ("to", "cuda")
_DATA_METHODS = ("__getitem__", "__getitems__", "__iter__", "__next__")
CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"


def _accepts_keyword(function: ast.AST, name: str) -> bool:
    arguments = function.args
    if arguments.kwarg is not None:
        return True
    return any(a.arg == name for a in (*arguments.args, *arguments.kwonlyargs))


def _signature(function: ast.AST) -> str:
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if arguments.vararg is not None:
        names.append("*" + arguments.vararg.arg)
    names.extend(a.arg for a in arguments.kwonlyargs)
    return ", ".join(names)


def narrow_move_methods(tree: ast.Module, table=None) -> Tuple[str, ...]:
    """``Class.method(params)`` for each ``to``/``cuda`` method the file defines that accepts no
    ``non_blocking`` keyword (no such parameter, no ``**kwargs``)."""
    found: List[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if (isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in MOVE_METHODS
                    and not _accepts_keyword(item, "non_blocking")):
                found.append(f"{node.name}.{item.name}({_signature(item)})")
    return tuple(found)


def _is_cpu(expr: ast.AST) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value.split(":")[0] == "cpu"
    if isinstance(expr, ast.Call) and expr.args and not expr.keywords:
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name == "device" and _is_cpu(expr.args[0])
    return False


def _is_dtype(expr: ast.AST) -> bool:
    if isinstance(expr, ast.Attribute):
        return expr.attr.startswith(("float", "int", "uint", "half", "bfloat", "double", "bool", "long",
                                     "complex", "short", "dtype"))
    return isinstance(expr, ast.Name) and "dtype" in expr.id.lower()


def moves_to_a_device(call: ast.Call) -> bool:
    """A call that may put its result on an accelerator: ``.cuda()``, ``.to(x)`` with ``x`` not
    the CPU and not a dtype, or any call with a ``device=`` that is not the CPU."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "cuda":
        return True
    for keyword in call.keywords:
        if keyword.arg == "device" and not _is_cpu(keyword.value):
            return True
    if isinstance(func, ast.Attribute) and func.attr == "to" and call.args:
        first = call.args[0]
        return not _is_cpu(first) and not _is_dtype(first)
    return False


def device_datasets(tree: ast.Module, table=None) -> FrozenSet[str]:
    """Names of the dataset classes (those with ``__getitem__``, ``__iter__``...) that move
    something to a device in any method: in the item methods, the items; in ``__init__``, the
    data the items are taken from (``self.x = x.cuda()``). A loader over one may hand out device
    tensors already."""
    found = set()
    for stmt in tree.body:  # one part per top-level statement (the server keeps those not edited)
        found |= statement_part("device_datasets", stmt, table, _device_datasets_in)
    return frozenset(found)


def _device_datasets_in(stmt: ast.AST) -> FrozenSet[str]:
    found = set()
    for node in ast.walk(stmt):
        if not isinstance(node, ast.ClassDef):
            continue
        methods = [item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not any(method.name in _DATA_METHODS for method in methods):
            continue
        if any(isinstance(n, ast.Call) and moves_to_a_device(n) for method in methods for n in ast.walk(method)):
            found.add(node.name)
    return frozenset(found)


def _names_a_device(node: ast.AST, device: str) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.split(":")[0] == device
    if isinstance(node, ast.Attribute):
        return node.attr == device
    return False


def mps_only(tree: ast.Module, table=None) -> bool:
    """The file names the MPS device (``"mps"``, ``torch.backends.mps``) and nothing CUDA
    (``"cuda"``, ``.cuda()``, ``torch.cuda``)."""
    mps = cuda = False
    for stmt in tree.body:  # one part per top-level statement (the server keeps those not edited)
        part_mps, part_cuda = statement_part("mps_only", stmt, table, _names_mps_cuda)
        mps, cuda = mps or part_mps, cuda or part_cuda
    return mps and not cuda


def _names_mps_cuda(stmt: ast.AST) -> Tuple[bool, bool]:
    """(names MPS somewhere, names CUDA somewhere) in one statement."""
    mps = cuda = False
    for node in ast.walk(stmt):
        if _names_a_device(node, "cuda"):
            cuda = True
        elif _names_a_device(node, "mps"):
            mps = True
    return mps, cuda


def _sets_cuda_visible_devices(node: ast.AST) -> bool:
    """``os.environ["CUDA_VISIBLE_DEVICES"] = ...``, ``os.environ.setdefault("CUDA_VISIBLE_DEVICES",
    ...)``, ``os.environ.update(CUDA_VISIBLE_DEVICES=...)``/``({...})``, ``os.putenv(...)``."""
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Subscript) and _is_key(t.slice) for t in targets)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("setdefault", "putenv", "__setitem__") and node.args and _is_key(node.args[0]):
            return True
        if node.func.attr == "update":
            if any(k.arg == CUDA_VISIBLE_DEVICES for k in node.keywords):
                return True
            return any(isinstance(a, ast.Dict) and any(k is not None and _is_key(k) for k in a.keys)
                       for a in node.args)
    return False


def _is_key(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == CUDA_VISIBLE_DEVICES


def cuda_visible_devices(tree: ast.Module, table=None) -> Optional[int]:
    """The line of a ``CUDA_VISIBLE_DEVICES`` setting that a ``torch.cuda.is_available()`` written
    into a DataLoader call of the file could run before; None when there is none. A setting at
    module level above every DataLoader call runs first; one inside a function, or below a call,
    may not."""
    # One part per top-level statement (the server keeps those not edited): its first DataLoader
    # line and its settings. ``ast.walk(tree)`` goes level by level, and within a level through the
    # top-level statements in order, so the first setting it meets is the least (depth, statement,
    # place in the statement's own walk).
    parts = [statement_part("cuda_visible_devices", stmt, table, _loaders_and_settings, positional=True)
             for stmt in tree.body]
    first_loader = min((first for first, _ in parts if first is not None), default=None)
    chosen = None
    for index, (_, settings) in enumerate(parts):
        for depth, place, line in settings:
            if depth > 0 or first_loader is None or line > first_loader:  # depth 0: module level
                if chosen is None or (depth, index, place) < chosen[:3]:
                    chosen = (depth, index, place, line)
    return None if chosen is None else chosen[3]


def _loaders_and_settings(stmt: ast.AST) -> Tuple[Optional[int], tuple]:
    """The first line of a DataLoader call in ``stmt``, and (depth below ``stmt``, place in
    ``ast.walk(stmt)``, line) of each statement in it that sets ``CUDA_VISIBLE_DEVICES``."""
    loader_lines = [n.lineno for n in ast.walk(stmt) if isinstance(n, ast.Call) and _calls_dataloader(n)]
    found = {}  # id(setting statement) -> its place in the walk
    for place, node in enumerate(ast.walk(stmt)):
        if not isinstance(node, ast.stmt):
            continue
        inner = [node] if isinstance(node, (ast.Assign, ast.AugAssign)) else []
        if isinstance(node, ast.Expr):
            inner = [node.value]
        if any(_sets_cuda_visible_devices(n) for n in inner):
            found[id(node)] = place
    settings = []
    if found:
        depth = {id(stmt): 0}
        for node in ast.walk(stmt):
            level = depth[id(node)]
            for child in ast.iter_child_nodes(node):
                depth[id(child)] = level + 1
            if id(node) in found:
                settings.append((level, found[id(node)], node.lineno))
    return min(loader_lines, default=None), tuple(settings)


def _calls_dataloader(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "DataLoader"


def exported_names(tree: ast.Module, table=None) -> Optional[FrozenSet[str]]:
    """The strings of a module-level ``__all__`` (assigned, ``+=``, ``.extend``/``.append``);
    None when it is built from anything else (every name may be exported)."""
    top = {id(statement) for statement in tree.body}
    for node in ast.walk(tree):
        # ``__all__`` set under an ``if``/``try`` at module level (or anywhere but a top-level
        # statement): which names it holds depends on the run.
        if isinstance(node, ast.Name) and node.id == "__all__" and isinstance(node.ctx, ast.Store):
            if not any(id(statement) in top and node in ast.walk(statement) for statement in tree.body
                       if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign))):
                return None
    names = set()
    for statement in tree.body:
        values = []
        if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
            values = [statement.value]
        elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and isinstance(statement.target, ast.Name) \
                and statement.target.id == "__all__" and statement.value is not None:
            values = [statement.value]
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            func = statement.value.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "__all__":
                values = list(statement.value.args)
                if func.attr == "append":
                    values = [ast.List(elts=values)]
        for value in values:
            if not isinstance(value, (ast.List, ast.Tuple, ast.Set)):
                return None
            for element in value.elts:
                if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                    return None
                names.add(element.value)
    return frozenset(names)
