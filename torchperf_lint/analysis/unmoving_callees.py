"""Functions of the file that only use a model they are handed: they call it or call its methods,
and never move it nor hand it on (step_loops.ModuleSteps.unmoved_models).

A model handed to a call may be moved there (``accelerator.prepare(model)``, ``DDP(model)``), so
a model the file hands to a call is not known to stay on the host. A function the file defines
shows what it does with the model: minimalRL's ``test(step_idx, model)`` runs ``model.pi(s)``,
and its ``calc_target(pi, q1, q2, batch)`` runs ``pi(s)``. Neither moves what it is given, so the
model stays where the file built it.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional

# Methods that put a module on a device (step_loops._MOVES names the same).
MOVES = frozenset(("to", "cuda", "xpu", "mps", "to_empty", "ipu", "npu", "hpu"))


def parameter_for(definition: ast.AST, call: ast.Call, argument: ast.expr) -> Optional[str]:
    """The name of ``definition``'s parameter that ``argument`` of ``call`` binds; None when the
    call unpacks (``*args``/``**kw``) or the argument lands in ``*args``/``**kwargs``."""
    if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    args = definition.args
    positional = [*args.posonlyargs, *args.args]
    for index, given in enumerate(call.args):
        if given is argument:
            return positional[index].arg if index < len(positional) else None
    for keyword in call.keywords:
        if keyword.value is argument:
            names = {a.arg for a in (*args.args, *args.kwonlyargs)}
            return keyword.arg if keyword.arg in names else None
    return None


def only_uses_model(definition: ast.AST, parameter: str, parents: Dict[int, ast.AST]) -> bool:
    """Does ``definition``'s body use ``parameter`` only by calling it (``pi(s)``), calling its
    methods or reading its attributes (``model.pi(s)``, ``model.fc.weight``), never moving it or a
    part of it (``model.cuda()``, ``model.fc.to(d)``), handing it or a part of it to a call, storing
    it, or returning it? Functions with decorators (which may wrap the call) do not count."""
    if not isinstance(definition, ast.FunctionDef) or definition.decorator_list:
        return False
    for node in ast.walk(definition):
        if type(node) is not ast.Name or node.id != parameter or type(node.ctx) is not ast.Load:
            continue
        if not _only_used(node, parents):
            return False
    return True


def parents_of(definition: ast.AST) -> Dict[int, ast.AST]:
    """id(node) -> its parent node, inside ``definition``."""
    parents: Dict[int, ast.AST] = {}
    for node in ast.walk(definition):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def _only_used(name: ast.Name, parents: Dict[int, ast.AST]) -> bool:
    node: ast.AST = name
    while True:
        parent = parents.get(id(node))
        if type(parent) is ast.Attribute and parent.value is node:
            if parent.attr in MOVES:
                return False
            node = parent  # ``model.fc`` ... read on
            continue
        if type(parent) is ast.Call and parent.func is node:
            return True  # ``pi(s)``, ``model.pi(s)``: its result is another value
        # the name (or a part of it: ``model.fc``) read as a value: an argument, a store, a return
        return type(node) is ast.Attribute and type(parent) in (ast.Expr, ast.Compare, ast.BoolOp, ast.UnaryOp,
                                                                 ast.If, ast.IfExp)


def unmoving_call(definitions: List[ast.AST], call: ast.Call, argument: ast.expr,
                  memo: Dict[tuple, object]) -> bool:
    """Is ``call`` (of a function the file defines, every ``def`` of that name given) one whose
    parameter bound by ``argument`` is only used (only_uses_model) in every definition?"""
    if not definitions:
        return False
    for definition in definitions:
        parameter = parameter_for(definition, call, argument)
        if parameter is None:
            return False
        key = (id(definition), parameter)
        known = memo.get(key)
        if known is None:
            # one parent map per definition, whatever parameter is asked about (a file hands a model
            # to the same function under several parameters)
            parents = memo.get(("parents", id(definition)))
            if parents is None:
                parents = memo[("parents", id(definition))] = parents_of(definition)
            known = memo[key] = only_uses_model(definition, parameter, parents)
        if not known:
            return False
    return True
