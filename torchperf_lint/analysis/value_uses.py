"""What becomes of a value where the walk stands: the paths (a node and its ancestors, innermost
last, as the walker's stack holds them) that TPL102 reads to decide whether a value read off the
device is one the host keeps, hands on, returns, iterates, tests the size of or binds to a name.

A path is ``stack[:i + 1]``: ``path[-1]`` is the node asked about. The helpers climb from it through
the expressions that carry the same value (parentheses, attribute reads, calls of its methods,
host conversions) to the statement or call that decides its use. Only libcst nodes; no rule's
wording or message lives here (rules/tpl102_host_sync_in_loop.py is their one reader).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .syntax import assigned_names, last_identifier
from .tree import descendants


BRANCHING = (cst.If, cst.For, cst.While, cst.Try, cst.Else)


def ancestors(path) -> set:
    return {id(n) for n in path}


def next_statement(stack: list, index: int) -> Optional[list]:
    """The path (``stack`` down to it) of the statement run right after the statement at
    ``stack[index]``, leaving the ``if`` blocks it ends (None when it ends a loop or a function,
    or there is none)."""
    while index >= 1:
        statement, block = stack[index], stack[index - 1]
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        body = list(block.body)
        at = next((i for i, s in enumerate(body) if s is statement), None)
        if at is None:
            return None
        if at + 1 < len(body):
            return list(stack[:index]) + [body[at + 1]]
        owner = stack[index - 2] if index >= 2 else None
        if isinstance(owner, cst.If) and owner.body is block:
            index -= 2  # the last statement of an ``if`` body: what follows the ``if``
            while index >= 2 and isinstance(stack[index - 1], cst.If) and stack[index - 1].orelse is stack[index]:
                index -= 1  # an ``elif``: its ``if`` ends with it
            continue
        return None
    return None


# Methods that keep their argument as data: a container's, a file's, a writer's.
KEEPING_METHODS = frozenset(("append", "extend", "insert", "add", "put", "write", "writerow", "writerows"))


# Functions (called by a bare name) that write what they are handed out (R7: results written).
WRITING_PREFIXES = ("save", "write", "dump")
# ... and the modules whose ``save``/``dump`` functions write what they are handed to a file.
SERIALISING_MODULES = frozenset(("torch", "np", "numpy", "json", "pickle", "joblib", "yaml"))


def kept_as_data(path) -> bool:
    """Is the last node of ``path`` (through method calls on it, items of a tuple or list, and the
    containers and strings that hold it: ``climb_kept``) kept as data: the argument of
    ``.append``/``.extend``/``.write``... or the value stored into a subscript or attribute
    (``results[k] = ...``)?"""
    index = climb_kept(path)
    if index < 2:
        return False
    parent = path[index - 1]
    if isinstance(parent, cst.Arg) and isinstance(path[index - 2], cst.Call):
        func = path[index - 2].func
        if isinstance(func, cst.Name):  # ``save_one_json(predn, jdict, path, masks)``: written out
            return func.value.startswith(WRITING_PREFIXES)
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value in SERIALISING_MODULES and func.attr.value.startswith(WRITING_PREFIXES)):
            return True  # ``torch.save(record, path)``, ``json.dump(rows, f)``: written out (R156)
        return isinstance(func, cst.Attribute) and func.attr.value in KEEPING_METHODS
    if isinstance(parent, cst.Assign) and parent.value is path[index]:
        return any(isinstance(t.target, (cst.Subscript, cst.Attribute)) for t in parent.targets)
    return False


# Builtins that turn a host value into another host value (R7: ``str(int(t.cpu().numpy()))``).
HOST_CONVERSIONS = frozenset(("str", "int", "float", "bool", "list", "tuple", "round"))


def climb_kept(path) -> int:
    """``climb`` for a copy the host keeps (R7): also up through an item read of it
    (``labels[k]``), a dict, set or comprehension that holds it (``[{"bbox": b, "score": scores[k]}
    for k, b in ...]``), a host conversion (``str(int(...))``) and the arguments of a string's
    ``.format`` or an f-string: what holds the value holds the copy."""
    index = len(path) - 1
    while index >= 2:
        parent, child = path[index - 1], path[index]
        if _carries(parent, child):
            index -= 1
        elif isinstance(parent, (cst.Element, cst.List, cst.Tuple, cst.Set, cst.DictElement, cst.Dict,
                                 cst.FormattedStringExpression, cst.FormattedString)):
            index -= 1
        elif isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and parent.elt is child:
            index -= 1
        elif isinstance(parent, cst.DictComp) and parent.value is child:
            index -= 1
        elif isinstance(parent, cst.Arg) and isinstance(path[index - 2], cst.Call) and (
                (isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in HOST_CONVERSIONS)
                or (isinstance(path[index - 2].func, cst.Attribute) and path[index - 2].func.attr.value == "format"
                    and is_string_literal(path[index - 2].func.value))):
            index -= 2
        else:
            break
    return index


def kept(path, scope) -> bool:
    """Kept as data, iterated by host code, or (in a function only inference runs, ``scope`` the
    function itself: fastMRI's ``run_unet_model``) returned to the loop that called it."""
    return (kept_as_data(path) or iterated_by_host(path, len(path) - 1)
            or (isinstance(scope, cst.FunctionDef) and returned(path)))


def kept_through_names(path, depth: int, scope, above: list) -> bool:
    """``kept``, or bound to a name (directly, inside what holds it: ``item = {"pred":
    out.cpu().numpy()}``, as an item of it: ``score = scores[i][0]``, or through a function's
    result: ``masks = scale_image(shape, m.cpu().numpy())``) that is kept, ``depth`` names deep.
    ``above``: the nodes down to ``scope``."""
    if kept(path, scope):
        return True
    if depth == 0:
        return False
    found = (derived_assignment(path) or assigned_name(path[:climb_kept(path) + 1])
             or assigned_name(path[:handed_to_function(path) + 1]))
    if found is None:
        return False
    name, statement, _ = found
    return any(kept_through_names(use, depth - 1, scope, above)
               for use in name_uses(scope.body, name, above, statement, [False], reaching=[False]))


def handed_to_function(path) -> int:
    """The index of the call (by a bare name: a function, ``scale_image(shape, m.cpu().numpy(), ...)``)
    that the last node of ``path`` (as ``climb_kept`` carries it) is an argument of, whose result
    is made from it; the last index when there is none."""
    index = climb_kept(path)
    if (index >= 2 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
            and isinstance(path[index - 2].func, cst.Name)):
        return index - 2
    return len(path) - 1


def returned(path) -> bool:
    """Is the last node of ``path`` (as ``climb_kept`` carries it) the value of a ``return``?"""
    index = climb_kept(path)
    return index >= 1 and isinstance(path[index - 1], cst.Return) and path[index - 1].value is path[index]


def iterated_by_host(path, index: int) -> bool:
    """Is ``path[index]`` what a ``for`` or a comprehension iterates, directly or through
    ``zip``/``enumerate``? Host code runs over the copy (R7)."""
    if for_over(path, index) is not None:
        return True
    node = path[index]
    if (index >= 3 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
            and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in ("zip", "enumerate")):
        node, index = path[index - 2], index - 2
    parent = path[index - 1] if index >= 1 else None
    return isinstance(parent, cst.CompFor) and parent.iter is node


def climb(path, subscripts: bool, items: bool = True) -> int:
    """The index in ``path`` of the outermost node that still carries the last node's value: up
    through method calls and attributes of which it is the receiver (``lengths.cpu().long()``),
    with ``items``, items of a list or tuple of sizes (``x.view([a.item(), -1])``) and, with ``subscripts``,
    subscripts of it and arithmetic with it (``np.unique(m[:, 1])``, ``cv2.imwrite(p, m * 255)``)."""
    index = len(path) - 1
    while index >= 2:
        parent, child = path[index - 1], path[index]
        if _carries(parent, child) and (subscripts or not isinstance(parent, cst.Subscript)):
            index -= 1
        elif items and isinstance(parent, (cst.Element, cst.List, cst.Tuple)):
            index -= 1
        elif subscripts and isinstance(parent, cst.BinaryOperation):
            index -= 1  # ``(m[0] * 255).astype("uint8")``: arithmetic on a host array stays one
        else:
            break
    return index


def assigned_name(stack):
    """(name, statement, value) when the last node of ``stack`` is, through method calls on it and
    arithmetic, the value of ``name = ...``, ``name += ...``, or its item of ``a, b = x, y``."""
    index = climb(stack, subscripts=False, items=False)
    while index >= 1 and isinstance(stack[index - 1], (cst.BinaryOperation, cst.UnaryOperation)):
        index -= 1  # ``n.item() // merge``: arithmetic on the value keeps what it is used for
    if index < 1:
        return None
    parent, value = stack[index - 1], stack[index]
    target = None
    if isinstance(parent, cst.Element) and index >= 3 and isinstance(stack[index - 2], cst.Tuple):
        tuple_value, assign = stack[index - 2], stack[index - 3]
        if (isinstance(assign, cst.Assign) and assign.value is tuple_value and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Tuple)):
            targets = assign.targets[0].target.elements
            position = next((i for i, e in enumerate(tuple_value.elements) if e is parent), None)
            if position is not None and len(targets) == len(tuple_value.elements):
                target = targets[position].value
        parent = assign
    elif isinstance(parent, cst.Assign) and parent.value is value and len(parent.targets) == 1:
        target = parent.targets[0].target
    elif isinstance(parent, cst.AugAssign) and parent.value is value:
        target = parent.target
    if not isinstance(target, cst.Name):
        return None
    return target.value, parent, value


# Builtins whose result is still a size when handed one (``min(n, total - start)``).
SIZE_BUILTINS = frozenset(("min", "max", "int", "round", "abs"))


def derived_assignment(path):
    """``assigned_name`` for the last node of ``path`` seen through arithmetic and comparisons, an item of it
    (``ind = ind[0]``), method calls on it (``t.cpu().numpy()[:, 0]``), the element of a list comprehension and the size builtins
    (``actual = min(n, total - 1 - start)``)."""
    index = len(path) - 1
    while index >= 2:
        parent, child = path[index - 1], path[index]
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            index -= 1
        elif isinstance(parent, cst.Comparison) and parent.left is child:
            index -= 1  # ``overlaped = (pred == gold)``: an elementwise comparison of the value
        elif isinstance(parent, cst.ComparisonTarget) and isinstance(path[index - 2], cst.Comparison):
            index -= 2
        elif isinstance(parent, cst.Subscript) and parent.value is child:
            index -= 1
        elif (isinstance(parent, cst.Attribute) and parent.value is child and isinstance(path[index - 2], cst.Call)
              and path[index - 2].func is parent):
            index -= 2  # ``t.cpu().numpy()[:, 0]``: a method of the value, then an item of what it gives
        elif isinstance(parent, cst.ListComp) and parent.elt is child:
            index -= 1  # ``ids = [t.tolist() for t in seqs]``: the list holds the values
        elif (isinstance(parent, cst.Arg) and isinstance(path[index - 2], cst.Call)
              and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in SIZE_BUILTINS):
            index -= 2
        elif (isinstance(parent, cst.Arg) and isinstance(path[index - 2], cst.Call)
              and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in ("tuple", "list")
              and len(path[index - 2].args) == 1):
            index -= 2  # ``ids = tuple(batch[0].tolist())``: the same values, as a tuple
        elif (index >= 5 and isinstance(parent, cst.Element) and isinstance(path[index - 2], (cst.List, cst.Tuple))
              and isinstance(path[index - 3], cst.Arg) and isinstance(path[index - 4], cst.Call)
              and isinstance(path[index - 4].func, cst.Name) and path[index - 4].func.value in ("min", "max")):
            index -= 4  # ``mel_len = min([int(n.item() / 2 - 1), max_len // 2])``: an item of min's list
        else:
            break
    return assigned_name(path[: index + 1])


def derived_names(path):
    """(name, node after which it holds a value made from the last node of ``path``): the target of
    an assignment made from it (``derived_assignment``), the targets of a ``for`` over it or over a
    ``zip``/``enumerate`` of it (bound at the ``for``'s target), the list a value made from it is
    appended to (``rest.append(t[n:])``, bound at that statement)."""
    found = derived_assignment(path)
    if found is not None:
        yield found[0], found[1]
    index = climb(path, subscripts=True, items=False)
    if index >= 2 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call):
        func = path[index - 2].func
        if (isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend")
                and isinstance(func.value, cst.Name)):
            statement = next((n for n in reversed(path[:index - 2]) if isinstance(n, cst.BaseSmallStatement)), None)
            if statement is not None:
                yield func.value.value, statement
            return
    loop = for_over(path, index)
    if loop is not None:
        for bound in assigned_names(loop.target):
            yield bound, loop.target


def for_over(path, index: int):
    """The ``for`` whose iterable is ``path[index]``, directly or through ``zip``/``enumerate``
    (``for qid, s in zip(qids, scores):``), or None."""
    node = path[index]
    if (index >= 3 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
            and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in ("zip", "enumerate")):
        node, index = path[index - 2], index - 2
    parent = path[index - 1] if index >= 1 else None
    return parent if isinstance(parent, cst.For) and parent.iter is node else None


def tests_size(path) -> bool:
    """Is the last node of ``path`` (through arithmetic and ``len(...)``) an operand of a comparison
    that is, alone or under ``and``/``or``/``not``, the test of an ``if``/``while``/conditional
    expression? A Python size compared on the host: the test reads no tensor."""
    index = len(path) - 1
    while index >= 1 and isinstance(path[index - 1], (cst.BinaryOperation, cst.UnaryOperation)):
        index -= 1
    if (index >= 2 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
            and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value == "len"):
        index -= 2
    if index >= 1 and isinstance(path[index - 1], cst.ComparisonTarget):
        index -= 1
    if index < 1 or not isinstance(path[index - 1], cst.Comparison):
        return False
    index -= 1
    while index >= 1 and isinstance(path[index - 1], (cst.BooleanOperation, cst.UnaryOperation)):
        index -= 1
    if index < 1:
        return False
    owner, test = path[index - 1], path[index]
    return isinstance(owner, (cst.If, cst.While, cst.IfExp)) and owner.test is test


def name_uses(node: cst.CSTNode, name: str, path: list, after: cst.CSTNode, passed: list,
               reaching: Optional[list] = None, target_loads: bool = False, rebinding_ends: bool = True):
    """Root-to-node paths of the loads of ``name`` below ``node`` (``path``: the nodes above it)
    that come after the statement ``after`` in source order (``passed[0]`` turns True there),
    nested definitions and assignment targets left out. With ``reaching``, only the uses the value
    assigned at ``after`` can reach: none in the ``else``/``elif`` of an ``if`` whose body holds
    ``after``, and none after the first later ``name = ...`` whose value does not read ``name``
    (a new value, not one derived from it: ``m = m[order]`` goes on, ``m = np.zeros(3)`` ends it;
    ``reaching[0]`` turns True; with ``rebinding_ends`` a set of node ids (the statement's
    ancestors), only a rebinding that runs whenever the statement does ends it: not one inside an
    ``if``, loop or ``try`` the statement is not in). With ``target_loads``, also the loads inside a subscript or attribute target
    (``mask[i][:n] = 0`` reads ``n``)."""
    if node is after:
        passed[0] = True
        return
    if reaching is not None and reaching[0]:
        return
    path = path + [node]
    if (reaching is not None and rebinding_ends and passed[0] and isinstance(node, cst.Assign)
            and any(name in assigned_names(t.target) for t in node.targets)
            and not any(isinstance(n, cst.Name) and n.value == name for n in descendants(node.value))
            and (rebinding_ends is True or not any(
                isinstance(n, BRANCHING) and id(n) not in rebinding_ends for n in path))):
        reaching[0] = True
        return
    if isinstance(node, cst.Name):
        if node.value == name and passed[0]:
            yield path
        return
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return
    before = passed[0]
    for child in node.children:
        if isinstance(child, cst.AssignTarget):
            if target_loads and isinstance(child.target, (cst.Subscript, cst.Attribute)):
                yield from name_uses(child.target, name, path + [child], after, passed, reaching, target_loads,
                                      rebinding_ends)
            continue
        if reaching is not None and isinstance(node, cst.If) and child is node.orelse and passed[0] and not before:
            return  # ``after`` is in this ``if``'s body: its ``else`` is another path
        yield from name_uses(child, name, path, after, passed, reaching, target_loads, rebinding_ends)


def is_string_literal(expr: cst.BaseExpression) -> bool:
    """A string written in the source, also built from such strings by ``+`` and by ``*`` with a
    number (yolov5's progress bar: ``("%11s" * 2 + "%11.4g" * 5) % (...)``)."""
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Add):
            return is_string_literal(expr.left) and is_string_literal(expr.right)
        if isinstance(expr.operator, cst.Multiply):
            return ((is_string_literal(expr.left) and isinstance(expr.right, cst.Integer))
                    or (isinstance(expr.left, cst.Integer) and is_string_literal(expr.right)))
    return False


def shown(path) -> bool:
    """Is the last node of ``path``, through method calls, attributes and item reads of it
    (``pred.cpu().numpy()[0]``), an argument of the builtin ``print`` or a value an f-string,
    ``%``-formatting or a string's ``.format`` turns into text (``print(pred.cpu())``,
    ``f"{acc.cpu():.3f}"``)? Such a copy is read to be shown, as a metric is."""
    index = len(path) - 1
    while index >= 2 and _carries(path[index - 1], path[index]):
        index -= 1
    if index < 2:
        return False
    parent, grand = path[index - 1], path[index - 2]
    if isinstance(parent, cst.FormattedStringExpression):
        return True
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Modulo):
        return is_string_literal(parent.left) and parent.right is path[index]
    if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call):
        func = grand.func
        return ((isinstance(func, cst.Name) and func.value == "print")
                or (isinstance(func, cst.Attribute) and func.attr.value == "format" and is_string_literal(func.value)))
    return False


def _carries(parent, child) -> bool:
    """Does ``parent`` hold the value of ``child`` as it is (a method or attribute of it, a call of
    that method, an item of it: ``t.cpu().numpy()[0]``)?"""
    return ((isinstance(parent, cst.Attribute) and parent.value is child)
            or (isinstance(parent, cst.Call) and parent.func is child)
            or (isinstance(parent, cst.Subscript) and parent.value is child))


_NUMBER_READS = frozenset(("item",))
_NUMBER_BUILTINS = frozenset(("float", "int", "bool"))


def read_as_number(path) -> bool:
    """Is the last node of ``path`` (a copy to the host), through method calls and attributes of it,
    read as a Python number right away: ``loss.detach().cpu().item()``, ``float(acc.cpu())``? The
    copy is then a metric's read, not a result on its way to the host."""
    index = len(path) - 1
    while index >= 2 and _carries(path[index - 1], path[index]):
        parent = path[index - 1]
        if isinstance(parent, cst.Attribute) and parent.attr.value in _NUMBER_READS:
            return True
        index -= 1
    if index >= 2 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call):
        func = path[index - 2].func
        return isinstance(func, cst.Name) and func.value in _NUMBER_BUILTINS
    return False


# Calls whose string argument names a file to read or write (``torch.load``, ``os.path.join``).
_FILE_CALLS = frozenset(("load", "save", "open", "join", "exists", "isfile", "imread", "imwrite", "savefig"))


def names_a_file(path) -> bool:
    """Is the last node of ``path`` (a ``str(...)`` of a number) joined to a written string
    (``str(image_id) + '.pt'``) that is an argument of a call naming a file (``torch.load``,
    ``os.path.join``, ``open``)? The host needs the number to name the file (DETReg's evaluation
    loading or saving each image's detections, holdout176; R156)."""
    if len(path) < 4 or not isinstance(path[-2], cst.BinaryOperation) or not isinstance(path[-2].operator, cst.Add):
        return False
    operation = path[-2]
    other = operation.right if operation.left is path[-1] else operation.left
    if not is_string_literal(other) or not (isinstance(path[-3], cst.Arg) and isinstance(path[-4], cst.Call)):
        return False
    return last_identifier(path[-4].func) in _FILE_CALLS
