"""A loop of inner updates on the data a function already holds: part of one step, not a loop of
steps that the function drives.

A function that performs one step outside its loops (rules.md "A step body"; R18 through project
calls) and also holds a step loop was read as a training driver: a warm-up or check step, then a
loop over a loader (project_index's ``drives``), which runs once and is no step body. A loop that
goes round a count (``for _ in range(self.n_step_F):``) and draws no data — no loader or iterator
it goes over, no ``next()``, no dataset item, no batch sampled or fetched — repeats an update on the
batch the caller handed in: Dassl's MCD ``forward_backward`` updates its feature extractor
``n_step_F`` times per batch after its two classifier updates, as a GAN's critic steps do. Its
caller still runs the function once per step, so the function stays a step body.
"""

from __future__ import annotations

import ast

from .step_loops import is_loader_name

# Calls that fetch a new batch of data (a replay buffer's ``memory.sample(n)``, ``get_batch(...)``).
_DRAWS = frozenset(("next", "sample", "get_batch", "next_batch", "sample_batch", "get_next"))
_DATASET_WORDS = ("dataset", "dset")


def _last(node) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def repeats_on_held_data(loop, steps) -> bool:
    """Is ``loop`` a ``for`` over ``range(...)`` whose body (nested loops included, definitions
    apart) draws no data: it goes over no loader (``steps``: step_loops.ModuleSteps) and calls no
    ``next()``/``sample()``/``get_batch()``, names no loader, and indexes no dataset?"""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or loop.orelse:
        return False
    count = loop.iter
    if not (isinstance(count, ast.Call) and isinstance(count.func, ast.Name) and count.func.id == "range"):
        return False
    pending = list(loop.body)
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda):
            continue
        if kind in (ast.For, ast.AsyncFor) and steps.ast_iterates_loader(node.iter):
            return False
        if kind is ast.Call and _last(node.func) in _DRAWS:
            return False
        if kind in (ast.Name, ast.Attribute) and (is_loader_name(_last(node)) or _last(node) in steps.loaders
                                                  or _last(node) in steps.iterators):
            return False
        if kind is ast.Subscript and _last(node.value).lower().endswith(_DATASET_WORDS):
            return False
        pending.extend(ast.iter_child_nodes(node))
    return True
