"""Parameters a function iterates that its callers hand a data loader (rules.md "A step loop": a
loop that "iterates a data loader (an object made by ``DataLoader(...)``...)").

deeplabv3-plus's ``fit_one_epoch(model_train, ..., gen, gen_val, ...)`` (``utils/utils_fit.py``)
iterates ``for iteration, batch in enumerate(gen_val):`` for its validation; ``train.py`` hands it
``gen_val = DataLoader(val_dataset, ...)``. Neither the name nor the module says loader; the
callers do. The module's loops over such a parameter (directly, or through ``enumerate``/``tqdm``
wrappers) are listed here; step_bodies.StepBodies.loader_parameter asks the callers, and the engine
adds the parameters every visible call hands a loader to the module's loader names.
"""

from __future__ import annotations

import ast
from typing import List, Set, Tuple

from .step_loops import is_iterating_wrapper, is_loader_name

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def iterated_parameters(tree: ast.Module) -> List[Tuple[str, str]]:
    """(qualified name of a function, a parameter of it that one of its own ``for`` loops iterates,
    whose name does not already say loader), in source order, each pair once."""
    found: List[Tuple[str, str]] = []
    seen: Set[Tuple[str, str]] = set()
    pending = [(node, "") for node in tree.body]
    while pending:
        node, scope = pending.pop(0)
        if isinstance(node, ast.ClassDef):
            pending.extend((child, f"{scope}{node.name}.") for child in node.body)
        elif isinstance(node, _DEFS):
            qualname = f"{scope}{node.name}"
            params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
            for inner in _own_nodes(node.body, pending, f"{qualname}."):
                if type(inner) in (ast.For, ast.AsyncFor):
                    name = _iterated_name(inner.iter)
                    if name in params and not is_loader_name(name) and (qualname, name) not in seen:
                        seen.add((qualname, name))
                        found.append((qualname, name))
    return found


def _own_nodes(body, pending, scope: str):
    """The nodes of a function's body; its nested definitions are queued for their own turn."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (*_DEFS, ast.ClassDef)):
            pending.append((node, scope))
            continue
        if isinstance(node, ast.Lambda):
            continue
        yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _iterated_name(expr):
    """``gen_val`` in ``gen_val``, ``enumerate(gen_val)``, ``tqdm(enumerate(gen_val), total=n)``."""
    while isinstance(expr, ast.Call) and expr.args and is_iterating_wrapper(_last(expr.func)):
        if len(expr.args) > 1 and _last(expr.func) in ("zip", "chain"):
            return None
        expr = expr.args[0]
    return expr.id if isinstance(expr, ast.Name) else None


def _last(func):
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None
