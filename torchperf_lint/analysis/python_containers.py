"""Attributes a file keeps Python dicts and lists in (``self.int_to_char = dict(...)``).

rules.md "A step body": a value the host must have is not a per-step sync. A Python dict or list
is indexed by a Python number: ``self.int_to_char[sequence[i].item()]`` (deepspeech's greedy
decoder, which turns the model's ids into text) reads the id on the host because the mapping
lives there, not because the code could keep it on the device. TPL102 asks this module which
``self.<attr>`` subscripts are such lookups.
"""

from __future__ import annotations

import ast
from typing import FrozenSet, Set

# Calls that build a Python mapping or sequence.
_CONTAINER_CALLS = frozenset(("dict", "list", "tuple", "OrderedDict", "defaultdict", "collections.OrderedDict",
                              "collections.defaultdict"))
_CONTAINER_NODES = (ast.Dict, ast.List, ast.Tuple, ast.DictComp, ast.ListComp)


def container_attributes(tree: ast.Module, table=None) -> FrozenSet[str]:
    """The names ``attr`` that the file assigns as ``self.attr = ...`` only ever to a Python dict,
    list or tuple (a literal, a comprehension, or ``dict(...)``/``list(...)``/``OrderedDict(...)``);
    one assignment of anything else (a tensor, a call of unknown result) leaves the name out."""
    containers, others = set(), set()
    handed = _container_parameter_values(tree)
    for attr, value in self_attribute_assignments(tree):
        (containers if _builds_container(value) or id(value) in handed else others).add(attr)
    return frozenset(containers - others)


# Annotations of a Python container (``List[list]``, ``Dict[str, int]``, ``list``, ``typing.Sequence``).
_CONTAINER_ANNOTATIONS = frozenset(("list", "dict", "tuple", "List", "Dict", "Tuple", "Sequence", "Mapping",
                                    "OrderedDict", "DefaultDict"))


def _container_parameter_values(tree: ast.Module) -> Set[int]:
    """Ids of the names in ``self.attr = name`` where ``name`` is a parameter of the function around
    it annotated as a Python container (``object_class_to_target_class: List[list]``: UPT's
    interaction head, holdout165; R175) and never bound again in it."""
    found: Set[int] = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = function.args
        annotated = {arg.arg for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
                     if arg.annotation is not None and _container_annotation(arg.annotation)}
        if not annotated:
            continue
        rebound = {target.id for node in ast.walk(function)
                   if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                   for top in (node.targets if isinstance(node, ast.Assign) else [node.target])
                   for target in ast.walk(top) if isinstance(target, ast.Name)}
        for node in ast.walk(function):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in annotated
                    and node.value.id not in rebound):
                found.add(id(node.value))
    return found


def _container_annotation(annotation: ast.AST) -> bool:
    """``List[list]``, ``typing.Dict[str, int]``, ``list``: the annotation names a Python container."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    name = annotation.id if isinstance(annotation, ast.Name) else (
        annotation.attr if isinstance(annotation, ast.Attribute) else None)
    return name in _CONTAINER_ANNOTATIONS


def settings_container_attributes(tree: ast.Module, table=None) -> FrozenSet[str]:
    """``name.attr`` for the attributes of objects other than ``self`` that the file assigns only
    ever a Python dict, list or tuple (LaViLa's ``args.mapping_act2v = {i: ... for ...}`` on the
    argparse namespace, read per step as ``args.mapping_act2v[a] for a in target.tolist()``)."""
    containers, others = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id not in ("self", "cls")):
                key = f"{target.value.id}.{target.attr}"
                (containers if isinstance(node, ast.Assign) and _builds_container(value) else others).add(key)
    return frozenset(containers - others)


def self_attribute_assignments(tree: ast.Module, nodes=None):
    """(attr, value) for every ``self.attr = value`` (or annotated) assignment of the file;
    ``nodes``: the file's nodes when the caller walks them already."""
    for node in (ast.walk(tree) if nodes is None else nodes):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == "self"):
                yield target.attr, value


def attributes_only_bound(tree: ast.Module, made_so, nodes=None) -> Set[str]:
    """The names ``attr`` every ``self.attr = value`` assignment of which satisfies ``made_so(value)``
    (the file's ``nodes`` when the caller walks them already)."""
    made, others = set(), set()
    for attr, value in self_attribute_assignments(tree, nodes):
        (made if made_so(value) else others).add(attr)
    return made - others


def _builds_container(value: ast.AST) -> bool:
    if isinstance(value, _CONTAINER_NODES):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else (
            f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            else None)
        return name in _CONTAINER_CALLS
    return False
