"""Parameters a function uses as a size the host needs: a slice bound, or the lengths handed to
``pack_padded_sequence`` (the lead's reading R3 across a call: a value the host must have, wherever
it is used).

Matcha-TTS's ``compute_durations`` hands ``x_lengths[i].item()`` to ``save_durations_to_folder(attn,
x_length, ...)``, whose body slices ``attn.squeeze().sum(1)[:x_length]``: a slice bound is a size the
host needs, so the sync cannot go while the call stays, as it could not were the slice written in the
caller. The project index records, per function that writes a slice, which of its parameters are a
bound of one: the parameter itself, or arithmetic and ``int()``/``min()``/``max()`` of it (``x[: n +
1]``, ``x[: int(n)]``), as TPL102 reads a bound computed from a value in one function.

An LSTM encoder module packs the lengths its caller hands it (pytorch_neural_crf's
``self.encoder(word_rep, word_seq_lens.cpu())``, whose ``forward`` sorts them and hands
``sorted_seq_len.cpu()`` to ``pack_padded_sequence``, holdout70): torch requires those lengths on the
host, so the caller's copy is no sync it could leave out. The index records the parameters that reach
a ``pack_padded_sequence`` lengths argument through the function's own assignments (method calls,
indexing and tuple unpacking of them: ``sorted_len, order = lengths.sort(0)``).
"""

from __future__ import annotations

import ast
from typing import List, Set


_SIZE_CALLS = frozenset(("int", "min", "max", "round"))


def _bound_names(node, out: Set[str]) -> None:
    kind = type(node)
    if kind is ast.Name:
        out.add(node.id)
    elif kind is ast.BinOp:
        _bound_names(node.left, out)
        _bound_names(node.right, out)
    elif kind is ast.UnaryOp:
        _bound_names(node.operand, out)
    elif kind is ast.Call and type(node.func) is ast.Name and node.func.id in _SIZE_CALLS:
        for arg in node.args:
            _bound_names(arg, out)


def _value_parameters(node) -> List[str]:
    """The names of a function's parameters that a caller hands values (not ``self``/``cls``)."""
    arguments = node.args
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
            if a.arg not in ("self", "cls")]


def slice_bound_parameters(node, slices: List[ast.Slice]) -> List[str]:
    """The names of ``node``'s parameters (not ``self``/``cls``) that are a bound of one of
    ``slices``: the slices its own body writes (nested definitions and lambdas apart), as the
    project index's walk of the body met them."""
    params = _value_parameters(node)
    if not params:
        return []
    bounds: Set[str] = set()
    for current in slices:
        for part in (current.lower, current.upper, current.step):
            if part is not None:
                _bound_names(part, bounds)
    return [p for p in params if p in bounds]


def pack_length_parameters(node, packs: List[ast.Call]) -> List[str]:
    """The names of ``node``'s parameters whose values reach the lengths argument of one of
    ``packs`` (its ``pack_padded_sequence`` calls) through the function's own assignments."""
    params = _value_parameters(node)
    if not params:
        return []
    reached: Set[str] = set()
    for call in packs:
        lengths = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "lengths"), None)
        name = _base_name(lengths)
        if name is not None:
            reached.add(name)
    sources = []  # (names bound, the name their value comes from)
    for current in ast.walk(node):
        if type(current) is ast.Assign and len(current.targets) == 1:
            source = _base_name(current.value)
            if source is not None:
                target = current.targets[0]
                bound = [e.id for e in target.elts if type(e) is ast.Name] if type(target) is ast.Tuple else (
                    [target.id] if type(target) is ast.Name else [])
                sources.append((bound, source))
    changed = True
    while changed:
        changed = False
        for bound, source in sources:
            if source not in reached and reached.intersection(bound):
                reached.add(source)
                changed = True
    return [p for p in params if p in reached]


def _base_name(node):
    """``lengths`` of ``lengths``, ``lengths.cpu()``, ``lengths.sort(0, descending=True)``,
    ``lengths[order]``, ``lengths.view(-1).long()``; None for anything else."""
    while True:
        kind = type(node)
        if kind is ast.Call and type(node.func) is ast.Attribute:
            node = node.func.value
        elif kind is ast.Subscript:
            node = node.value
        elif kind is ast.Name:
            return node.id
        else:
            return None


def host_size_parameter(record, parameter) -> bool:
    """Does the function ``record`` (a project index function record) use ``parameter`` as a size
    the host needs: a slice bound, or lengths it packs?"""
    return record is not None and parameter is not None and (
        parameter in record.get("boundp", ()) or parameter in record.get("lengthp", ()))
