"""A loop over several optimizers that steps each one: one step, not a loop of steps.

``for optimizer in optimizers: optimizer.step()`` (XLM's ``Trainer.optimize``, GANs and multi-task
trainers with one optimizer per model) calls an optimizer's ``.step()`` each time round, so
step_loops counts it as a step loop; but what it goes round is the optimizers of one step. A
function whose own body calls ``.backward()`` and holds such a loop still performs one step: the
project index must not take it for one that drives a step loop (a warm-up step before the loop,
project_index's ``drives``), or the function that runs every step loses its step body. Nor is the
loop around it an epoch-level loop (step_loops' epoch tests, R74): its body steps the optimizers
through this loop, once each time round (modded-nanogpt's ``for opt, sched in zip(optimizers,
schedulers): opt.step()`` after the accumulation loop).
"""

from __future__ import annotations

import ast
from typing import Set

import libcst as cst

from .tree import children

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_CST_DEFINITIONS = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _target_names(target) -> Set[str]:
    """The names a ``for`` target binds (``opt``; ``name, opt``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        names: Set[str] = set()
        for item in target.elts:
            names |= _target_names(item)
        return names
    return set()


def _steps_an_item(call: ast.Call, items: Set[str]) -> bool:
    """``opt.step()`` or ``scaler.step(opt)`` with ``opt`` an item of the loop."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "step":
        return False
    if isinstance(func.value, ast.Name) and func.value.id in items:
        return True
    return bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id in items


def steps_each_item(loop, steps) -> bool:
    """Is ``loop`` a ``for`` over optimizers (or their schedulers) whose only step work is stepping
    the item it took: every call in its body (nested definitions apart) that ``steps`` (a
    step_loops.ModuleSteps) takes for step work steps an item of the loop?"""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    items = _target_names(loop.target)
    if not items:
        return False
    found = False
    pending = list(loop.body)
    while pending:
        node = pending.pop()
        if isinstance(node, _DEFINITIONS):
            continue
        if isinstance(node, ast.Call) and steps._ast_is_step_call(node):
            if not _steps_an_item(node, items):
                return False
            found = True
        pending.extend(ast.iter_child_nodes(node))
    return found


# ---- libcst side (the rules' walk asks about a unit's loops) -------------------------------------
def _cst_target_names(target) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        names: Set[str] = set()
        for element in target.elements:
            names |= _cst_target_names(element.value)
        return names
    return set()


def _cst_steps_an_item(call: cst.Call, items: Set[str]) -> bool:
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "step":
        return False
    if isinstance(func.value, cst.Name) and func.value.value in items:
        return True
    return bool(call.args) and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value in items


def cst_steps_each_item(loop, steps) -> bool:
    """The libcst twin of ``steps_each_item`` (``steps``' ``is_step_call`` takes libcst calls)."""
    if not isinstance(loop, cst.For):
        return False
    items = _cst_target_names(loop.target)
    if not items:
        return False
    found = False
    pending = [loop.body]
    while pending:
        node = pending.pop()
        if isinstance(node, _CST_DEFINITIONS):
            continue
        if isinstance(node, cst.Call) and steps.is_step_call(node):
            if not _cst_steps_an_item(node, items):
                return False
            found = True
        pending.extend(child for _, child in children(node))
    return found
