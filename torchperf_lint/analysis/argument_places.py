"""Where the arguments of a call live, read at the call site (rules.md "Where a value lives").

A helper that runs every step gets its values from its callers: ``metric_logger.update(loss=
loss_value)`` with ``loss_value = loss.item()`` hands it a Python float, and the helper's
``if isinstance(v, torch.Tensor): v = v.item()`` never runs on a tensor. The project index records,
for each call, which arguments are known to be on the host, so that a step body's parameter is a
host value when every per-step call hands it one (step_bodies.StepBodies.host_parameters).

Known host at the call site (``ast`` only, one function at a time): literals; the results of
``.item()``/``.tolist()``/``.size()``/``.dim()``/``.numel()``, of ``float``/``int``/``bool``/``len``/
``round``/``str`` and of ``math.``/``time.`` functions; builtin ``max``/``min``/``abs`` and
arithmetic of host values; an optimizer's hyperparameters (``optimizer.param_groups[0]["lr"]``, a
group's ``["weight_decay"]`` taken by ``for group in optimizer.param_groups``: Python numbers; not
``["params"]``, the group's tensors); and a local name whose
every binding in the function is one of these. Anything else (a parameter, a tensor, a call of
unknown result) is not known: the helper's parameter then stays of unknown origin, as before.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterable, Optional, Set

from .segments import walk_ast, walk_statements

# Prefixes of the keys that mark host arguments in a call's constant-argument record: "host:0"
# (the first positional argument), "host:loss" (keyword ``loss``). A parameter name never holds ":".
HOST_KEY = "host:"
UNKNOWN_KEY = "?:"  # an argument passed whose place is not known
_HOST_METHODS = frozenset("item tolist size dim ndimension numel nelement".split())
_HOST_BUILTINS = frozenset("float int bool len round str".split())
_HOST_OF_HOSTS = frozenset("max min abs sum".split())
_HOST_MODULES = frozenset(("math", "time"))


def _param_groups(node) -> bool:
    """``X.param_groups`` (also ``X.optimizer.param_groups``)."""
    return isinstance(node, ast.Attribute) and node.attr == "param_groups"


def is_host(node, host_names: FrozenSet[str], groups: FrozenSet[str] = frozenset()) -> bool:
    """Is the expression ``node`` known to hold a host value (see the module docstring)?"""
    kind = type(node)
    if kind is ast.Constant:
        return True
    if kind is ast.Name:
        return node.id in host_names
    if kind is ast.UnaryOp:
        return is_host(node.operand, host_names, groups)
    if kind is ast.BinOp:
        return is_host(node.left, host_names, groups) and is_host(node.right, host_names, groups)
    if kind is ast.IfExp:
        return is_host(node.body, host_names, groups) and is_host(node.orelse, host_names, groups)
    if kind is ast.Subscript:
        # ``optimizer.param_groups[0]["lr"]``, ``group["lr"]``: an optimizer's hyperparameter (not
        # ``["params"]``, the group's tensors)
        key = node.slice
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value != "params"):
            return False
        owner = node.value
        if isinstance(owner, ast.Subscript) and _param_groups(owner.value):
            return True
        return isinstance(owner, ast.Name) and owner.id in groups
    if kind is ast.Call:
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr in _HOST_METHODS:
                return True
            return isinstance(func.value, ast.Name) and func.value.id in _HOST_MODULES
        if isinstance(func, ast.Name):
            if func.id in _HOST_BUILTINS:
                return True
            if func.id in _HOST_OF_HOSTS:
                return bool(node.args) and not node.keywords and all(
                    not isinstance(a, ast.Starred) and is_host(a, host_names, groups) for a in node.args)
        return False
    return False


class HostNames:
    """The local names of one function (or module body) whose every binding is a host value, and the
    names bound to an optimizer's parameter groups; worked out on first use."""

    __slots__ = ("_body", "_names", "_groups")

    def __init__(self, body):
        self._body = body
        self._names: Optional[FrozenSet[str]] = None
        self._groups: FrozenSet[str] = frozenset()

    def _compute(self) -> None:
        bindings: Dict[str, list] = {}
        unknown: Set[str] = set()
        groups: Set[str] = set()
        for stmt, owner in walk_statements(self._body):
            if owner is not None:
                continue  # a nested function's own statements
            kind = type(stmt)
            if kind is ast.Assign:
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        bindings.setdefault(target.id, []).append(stmt.value)
                    else:
                        unknown.update(_names_in(target))
            elif kind is ast.AugAssign or kind is ast.AnnAssign:
                if isinstance(stmt.target, ast.Name) and stmt.value is not None:
                    bindings.setdefault(stmt.target.id, []).append(stmt.value)
                else:
                    unknown.update(_names_in(stmt.target))
            elif kind in (ast.For, ast.AsyncFor):
                if isinstance(stmt.target, ast.Name) and _param_groups(stmt.iter):
                    groups.add(stmt.target.id)
                else:
                    unknown.update(_names_in(stmt.target))
            elif kind in (ast.With, ast.AsyncWith):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        unknown.update(_names_in(item.optional_vars))
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                unknown.add(stmt.name)
            elif kind in (ast.Import, ast.ImportFrom):
                unknown.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        # Walrus targets and comprehension variables are not followed: not host.
        groups -= set(bindings) | unknown
        self._groups = frozenset(groups)
        host = {name for name in bindings if name not in unknown and name not in groups}
        changed = True
        while changed:  # a name is host when all its values are, also through other host names
            changed = False
            known = frozenset(host)
            for name in list(host):
                if not all(is_host(value, known, self._groups) for value in bindings[name]):
                    host.discard(name)
                    changed = True
        self._names = frozenset(host)

    def key(self, node, where: str) -> str:
        """The record's key for a call argument that is not a literal, at ``where`` (its index or
        keyword): ``host:<where>`` when it is known to be on the host, else ``?:<where>``."""
        return f"{HOST_KEY if self._is_host(node) else UNKNOWN_KEY}{where}"

    def _is_host(self, node) -> bool:
        if self._names is None:
            self._compute()
        return is_host(node, self._names, self._groups)


def _names_in(target) -> Iterable[str]:
    for node in walk_ast((target,)):  # (the same Name nodes as ast.walk, without its generators)
        if isinstance(node, ast.Name):
            yield node.id


def passed_host(constants: dict, params: list, skip_self: bool) -> FrozenSet[str]:
    """The parameters of a function (``params``: the index's [name, default] pairs; ``skip_self``: a
    method called on an object) to which one call (its constant-argument record) hands a host value:
    a literal, an argument marked host, or a literal default left in place. ``"*"``/``"**"`` stand
    for the variadic parameters: every extra positional / keyword argument of the call is host."""
    if "*" in constants:
        return frozenset()
    if params and skip_self and params[0][0] in ("self", "cls"):
        params = params[1:]
    names = {name for name, _ in params}
    host: Set[str] = set()
    for index, (name, default) in enumerate(params):
        keys = (str(index), name)
        if any(key in constants or f"{HOST_KEY}{key}" in constants for key in keys):
            host.add(name)
        elif not any(f"{UNKNOWN_KEY}{key}" in constants for key in keys) and not isinstance(default, dict):
            host.add(name)  # not passed: its literal default
    extra_positional = extra_keyword = True
    for key in constants:
        plain = key.split(":", 1)[1] if ":" in key else key
        extra = int(plain) >= len(params) if plain.isdigit() else plain not in names
        if not extra or not key.startswith(UNKNOWN_KEY):
            continue
        if plain.isdigit():
            extra_positional = False
        else:
            extra_keyword = False
    if extra_positional:
        host.add("*")
    if extra_keyword:
        host.add("**")
    return frozenset(host)
