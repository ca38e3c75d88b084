"""Python ints made from tensors, and whether the host needs them (the lead's reading R38).

``int(t)``, ``int(t.item())`` and ``int(1.5 * lengths.max().item() + 10)`` make a Python int, and
a Python int taken from a tensor is a count, an index, a size, a length or an id: what the host
hands to ``range``, to a generator's ``max_len=``, to ``torch.topk``'s ``k``, or looks a list up
with. A float is read as a metric; an int is read to steer host code. So an int is host-needed
(R3) when what is done with it hands it to a call or indexes with it, and nothing done with it
shows it, logs it, keeps it in a container or adds it into a running count (R22: ``correct +=
int((pred == y).sum())`` stays a pitfall, as ``total += loss.item()`` does).

Everything here reads libcst paths (root-to-node lists) of the linted unit.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, List, Optional

import libcst as cst

from .value_uses import names_a_file

# A call that shows, logs, keeps or adds up what it is handed: an int handed to one is read as a
# metric (``self.log("n", n)``, ``writer.add_scalar(...)``, ``meter.update(n)``, ``ids.append(n)``).
# Matched by the words of the callee's name (``add_scalar``: "add", "scalar"), so that ``pad`` or
# ``padding`` is not "add".
_SHOWING_WORDS = frozenset(("log", "print", "scalar", "scalars", "postfix", "description", "write", "info",
                            "debug", "warn", "warning", "error", "update", "append", "extend", "insert", "add",
                            "put", "push", "record", "track", "report", "format", "str", "repr", "dump", "save",
                            "emit", "send", "display", "show", "plot", "dict", "metric", "metrics"))
_SHOWING_PREFIXES = ("log", "print", "write")

# Builtins an int goes through as it is (``max(1, n)``, ``min(n, total)``, ``abs(n)``).
_CARRYING_BUILTINS = frozenset(("int", "min", "max", "abs", "round"))

# A keyword that names a size or a length (``max_len=``, ``max_length_q=``, ``num_beams=``,
# ``seq_len=``, ``k=``): what it is handed is read on the host as one. Not every count: a loss
# divides by ``num_items_in_batch=`` as well on the device (accelerate's example, judged true).
SIZE_KEYWORD = re.compile(r"^(?:k|size|length|dim|seq_?len|\w*_(?:size|len|length|lengths|seqlen|dim)(?:_\w)?|"
                          r"max_(?:len|length|seqlen|seq_len|new_tokens|tokens)\w*|num_(?:beams|samples|tokens_to_generate))$")

HOST = "host"      # a use the host needs the int for: a call's argument, an index, a slice bound
SHOWN = "shown"    # a use that reads it as a metric: shown, logged, kept, added up, returned
NEUTRAL = "neutral"  # a use that needs nothing by itself: a test of it


def int_conversion(path: list, is_builtin: Callable[[str], bool]) -> Optional[int]:
    """The index in ``path`` of the builtin ``int(...)`` call whose argument holds the last node
    (through method calls on it, arithmetic and the carrying builtins), or of the last node itself
    when it is that call; None when the value is not made into an int."""
    index = len(path) - 1
    if _makes_int(path[index], is_builtin):
        return index
    while index >= 2:
        parent, child = path[index - 1], path[index]
        if ((isinstance(parent, cst.Attribute) and parent.value is child)
                or (isinstance(parent, cst.Call) and parent.func is child)):
            index -= 1
        elif isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            index -= 1
        elif isinstance(parent, cst.Arg) and isinstance(path[index - 2], cst.Call):
            call = path[index - 2]
            if _makes_int(call, is_builtin):
                return index - 2
            if any(_is_builtin_call(call, name, is_builtin) for name in _CARRYING_BUILTINS):
                index -= 2
                continue
            return None
        else:
            return None
    return None


# ``math.ceil(max(box_hs))``: math's roundings return a Python int, as ``int(...)`` does
# (LearningToCountEverything's interpolation sizes, holdout166; R147)
_MATH_INT_FUNCTIONS = frozenset(("ceil", "floor", "trunc"))


def _makes_int(node, is_builtin: Callable[[str], bool]) -> bool:
    """``int(...)``, or ``math.ceil/floor/trunc(...)``."""
    if _is_builtin_call(node, "int", is_builtin):
        return True
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _MATH_INT_FUNCTIONS and isinstance(node.func.value, cst.Name)
            and node.func.value.value == "math")


def _is_builtin_call(node, name: str, is_builtin: Callable[[str], bool]) -> bool:
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name
            and is_builtin(name))


# Displays that ``* n`` repeats (``[0] * n``, ``(x,) * n``, ``"-" * n``): ``n`` must be a Python int.
_SEQUENCE_DISPLAYS = (cst.List, cst.Tuple, cst.SimpleString, cst.ListComp)


def use_of_int(path: list, is_builtin: Callable[[str], bool],
               later_uses: Callable[[str, cst.CSTNode], Iterable[list]], depth: int = 0,
               sizes_only: bool = False) -> str:
    """HOST, SHOWN or NEUTRAL: what the code does with the int at the last node of ``path``.
    ``later_uses(name, statement)`` gives the paths of the later loads of a name bound there.
    With ``sizes_only`` (a number that may be a float: ``t.max().item()``), a call's argument is
    host-needed only as a keyword that names a size (``max_length_q=``, ``max_len=``); indexes
    and slice bounds are, as for an int."""
    index = len(path) - 1
    while index >= 1:
        parent, child = path[index - 1], path[index]
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Multiply) and isinstance(
                parent.right if parent.left is child else parent.left, _SEQUENCE_DISPLAYS):
            # ``[pad_id] * (max_len - len(ids))``: a list repeated so many times, a count only a
            # Python int can be (minimind's padding of packed rollouts, holdout125; R82)
            return HOST
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            index -= 1
            continue
        if isinstance(parent, cst.Comparison) or isinstance(parent, cst.ComparisonTarget):
            # a test of it needs nothing by itself, unless the comparison is added up
            # (``correct += (y_hat == y)``: CLAM's per-class accuracy)
            top = index - 1
            while top >= 1 and isinstance(path[top - 1], (cst.Comparison, cst.ComparisonTarget,
                                                          cst.BinaryOperation, cst.UnaryOperation)):
                top -= 1
            if top >= 1 and isinstance(path[top - 1], cst.AugAssign) and path[top - 1].value is path[top]:
                return SHOWN
            return NEUTRAL
        if isinstance(parent, cst.Arg) and index >= 2 and isinstance(path[index - 2], cst.Call):
            call = path[index - 2]
            if any(_is_builtin_call(call, name, is_builtin) for name in _CARRYING_BUILTINS):
                index -= 2
                continue
            if _is_builtin_call(call, "len", is_builtin) or _is_builtin_call(call, "bool", is_builtin):
                return NEUTRAL
            if _is_builtin_call(call, "range", is_builtin):
                return HOST
            if _is_builtin_call(call, "str", is_builtin) and names_a_file(path[:index - 1]):
                return HOST  # ``torch.load(str(image_id) + '.pt')``: the number names a file (R156)
            if isinstance(call.func, cst.Name) and is_builtin(call.func.value):
                return SHOWN  # ``zip``, ``enumerate``, ``sorted``, ``sum``, ``str``: not followed
            if _shows(call):
                return SHOWN
            if sizes_only and not (parent.keyword is not None and SIZE_KEYWORD.match(parent.keyword.value)):
                return SHOWN  # a number handed on as it is: a metric, a weight, a fill value...
            return HOST
        if isinstance(parent, cst.Element) and index >= 2 and isinstance(path[index - 2], (cst.Tuple, cst.List)):
            index -= 2  # ``torch.randint(0, n, (b, n))``: a size in a tuple of sizes
            continue
        if isinstance(parent, cst.Slice):
            return HOST  # ``t[:n]``: a bound the host needs
        if isinstance(parent, cst.Index):
            if sizes_only or (index >= 4 and isinstance(path[index - 4], (cst.AugAssign, cst.AssignTarget))):
                # ``counts[n] += 1``: a running count (R22, R31); ``out[i] = 0``, and any index of a
                # number that may be a float: a device index would serve (the readings of R12/R31
                # decide those by the container's kind)
                return SHOWN
            return HOST  # ``names[n]``: an int the host looks a list up with
        if isinstance(parent, cst.Assign) and parent.value is child:
            if depth >= 3 or len(parent.targets) != 1 or not isinstance(parent.targets[0].target, cst.Name):
                return SHOWN  # kept in an attribute or a container, or too far to follow
            uses = [use_of_int(p, is_builtin, later_uses, depth + 1, sizes_only)
                    for p in later_uses(parent.targets[0].target.value, parent)]
            if not uses or SHOWN in uses:
                return SHOWN
            return HOST if HOST in uses else NEUTRAL
        if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.BooleanOperation, cst.Assert)):
            return NEUTRAL
        # added up, returned, yielded, kept in a container, formatted, or anything not read here
        return SHOWN
    return SHOWN


def _shows(call: cst.Call) -> bool:
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    if name is None:
        return True  # a call of a computed callee: not known to need the int
    words = name.lower().split("_")
    return any(w in _SHOWING_WORDS or w.startswith(_SHOWING_PREFIXES) for w in words)


def list_for_host(path: list, is_builtin: Callable[[str], bool],
                  later_uses: Callable[[str, cst.CSTNode], Iterable[list]]) -> bool:
    """Is the last node of ``path`` a ``.tolist()`` whose Python list the host needs as R38 reads
    an int: handed as it is to a call that neither shows, logs nor keeps it (a tokenizer's
    ``convert_ids_to_tokens(ids.tolist())``, lengths handed to a helper, the sizes a model is
    called with), or bound to a name only such calls read? A list of numbers read from a tensor
    is ids, lengths or sizes there; metrics are stored, extended, logged or summed (flagged)."""
    node = path[-1]
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "tolist"
            and not node.args):
        return False
    return use_of_int(path, is_builtin, later_uses) == HOST


def item_size_for_host(path: list, is_builtin: Callable[[str], bool],
                       later_uses: Callable[[str, cst.CSTNode], Iterable[list]]) -> bool:
    """Is the last node of ``path`` an ``.item()`` whose number is handed, directly or through a
    name and arithmetic, as a size-named keyword argument (``max_length_q=seq_lens.max().item()``,
    flash-attention's varlen lengths; ``max_len = lens.max().item()`` ... ``generate(...,
    max_len=max_len)``), or indexes or bounds a subscript, and is never shown, logged, kept or added
    up? A size the host reads (R3, R38)."""
    node = path[-1]
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "item"):
        return False
    return use_of_int(path, is_builtin, later_uses, sizes_only=True) == HOST


def int_for_host(path: list, is_builtin: Callable[[str], bool],
                 later_uses: Callable[[str, cst.CSTNode], Iterable[list]]) -> bool:
    """Is the last node of ``path`` made into a Python int that the host needs (R38)?"""
    at = int_conversion(path, is_builtin)
    if at is None:
        return False
    return use_of_int(path[: at + 1], is_builtin, later_uses) == HOST


def statement_uses(scope_body, scope: List[cst.CSTNode], name_uses) -> Callable[[str, cst.CSTNode], List[list]]:
    """``later_uses`` for ``use_of_int``: the loads of a name after the statement that binds it, in
    the function's body (value_uses.name_uses, the uses the bound value reaches)."""
    def later(name: str, statement: cst.CSTNode) -> List[list]:
        return list(name_uses(scope_body, name, scope, statement, [False], [False], target_loads=True))
    return later
