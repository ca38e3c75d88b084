"""Where the arguments of a call live, read at the call site (rules.md "Where a value lives").

A helper that runs every step gets its values from its callers: ``metric_logger.update(loss=
loss_value)`` with ``loss_value = loss.item()`` hands it a Python float, and the helper's
``if isinstance(v, torch.Tensor): v = v.item()`` never runs on a tensor. The project index records,
for each call, which arguments are known to be on the host, so that a step body's parameter is a
host value when every per-step call hands it one (step_bodies.StepBodies.host_parameters).

Known host at the call site (``ast`` only, one function at a time), also host tensors (the reading
R14 of docs/precision.md "prec9": rules.md "Where a value lives" across a call): a batch taken from
a data loader (a ``for`` over one; the module builds no loader over device data) and what is taken
from it, unpacked, copied (``copy.deepcopy``) or computed from it by a tensor's methods and
arithmetic without a move (``.to(...)``, ``.cuda()``); a ``.cpu()`` or ``.numpy()`` copy; a list or
tuple of host values (``[copy.deepcopy(batch) for _ in range(n)]``); an item of such a value taken by a
``for`` or a comprehension (``[to_index(order) for order in orders]``, R109). Besides: literals; the results of
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
from typing import Callable, Dict, FrozenSet, Iterable, Optional, Set

from .segments import walk_ast, walk_statements

# Prefixes of the keys that mark host arguments in a call's constant-argument record: "host:0"
# (the first positional argument), "host:loss" (keyword ``loss``). A parameter name never holds ":".
HOST_KEY = "host:"
UNKNOWN_KEY = "?:"  # an argument passed whose place is not known
# ... and beside it, an argument known to be a value on the host that may be a tensor or a batch
# (R14): "?:0" and "hostv:0" both, so that what reads only Python numbers sees it as unknown.
HOST_VALUE_KEY = "hostv:"
# ... and beside those, an argument that is a batch (or a field of one) taken from a loader the
# module makes with ``pin_memory=True`` (R155): "pinned:0", so that the callee's copies of it are
# TPL104's as in the loop itself.
PINNED_KEY = "pinned:"
_HOST_METHODS = frozenset("item tolist size dim ndimension numel nelement".split())
_HOST_COPIES = frozenset(("cpu", "numpy"))
# Methods that may put a host value on a device (or whose result's place the code does not show).
_MOVES = frozenset("to cuda type xpu mps npu hpu ipu xla share_memory_".split())
_COPY_FUNCTIONS = frozenset(("deepcopy", "copy"))


_A_PYTHON_INT = ast.Constant(0)  # what ``for i in range(n)`` binds ``i`` to, for the bindings


class _Batch:
    """The value of a name bound by a ``for`` over a data loader: a batch on the host."""


BATCH = _Batch()
_HOST_BUILTINS = frozenset("float int bool len round str".split())
_HOST_OF_HOSTS = frozenset("max min abs sum".split())
_HOST_MODULES = frozenset(("math", "time"))


def _param_groups(node) -> bool:
    """``X.param_groups`` (also ``X.optimizer.param_groups``)."""
    return isinstance(node, ast.Attribute) and node.attr == "param_groups"


def is_host(node, host_names: FrozenSet[str], groups: FrozenSet[str] = frozenset(), values: bool = False) -> bool:
    """Is the expression ``node`` known to hold a host value (see the module docstring)? Without
    ``values``, a Python value (a number, a string, what ``.item()`` returns); with it, also a
    value on the host that may be a tensor or a batch (R14)."""
    kind = type(node)
    if kind is ast.Constant:
        return True
    if node is BATCH:
        return values
    if kind is ast.Name:
        return node.id in host_names
    if kind is ast.UnaryOp:
        return is_host(node.operand, host_names, groups, values)
    if kind is ast.BinOp:
        return is_host(node.left, host_names, groups, values) and is_host(node.right, host_names, groups, values)
    if kind is ast.IfExp:
        # ``value if isinstance(value, float) else value.item()``: the branch the test guards holds a
        # Python number whatever the name held before (PLLaVA's logging, holdout143; R111)
        guarded, negated = _number_guard(node.test)
        body, orelse = (node.orelse, node.body) if negated else (node.body, node.orelse)
        guarded_host = guarded is not None and type(body) is ast.Name and body.id == guarded
        return ((guarded_host or is_host(body, host_names, groups, values))
                and is_host(orelse, host_names, groups, values))
    if values and _host_value(node, host_names, groups):
        return True
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


_NUMBER_TYPES = frozenset(("float", "int", "bool"))


def _number_guard(test):
    """(name, negated) for ``isinstance(name, float)`` (also ``int``, ``bool`` or a tuple of them)
    and ``not isinstance(...)``; (None, False) for any other test."""
    negated = type(test) is ast.UnaryOp and type(test.op) is ast.Not
    if negated:
        test = test.operand
    if not (type(test) is ast.Call and type(test.func) is ast.Name and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and type(test.args[0]) is ast.Name):
        return None, False
    kinds = test.args[1]
    names = kinds.elts if type(kinds) is ast.Tuple else [kinds]
    if names and all(type(n) is ast.Name and n.id in _NUMBER_TYPES for n in names):
        return test.args[0].id, negated
    return None, False


def _host_value(node, host_names: FrozenSet[str], groups: FrozenSet[str]) -> bool:
    """The forms only a host value (R14), not a Python number, takes: a field or an item of one
    (``batch["audio"]``, ``graph["ligand"].pos``), a tensor's method of one that names no device
    (``audio.mean()``), a copy of one (``copy.deepcopy(batch)``), a list or tuple of them, and a
    copy to the host of anything (``.cpu()``, ``.numpy()``)."""
    kind = type(node)
    if kind in (ast.Attribute, ast.Subscript):
        return is_host(node.value, host_names, groups, True)
    if kind is ast.Compare:
        # ``prediction == i``: a host array compared with host values is a host array
        return all(is_host(side, host_names, groups, True) for side in (node.left, *node.comparators))
    if kind in (ast.List, ast.Tuple):
        return bool(node.elts) and all(not isinstance(e, ast.Starred) and is_host(e, host_names, groups, True)
                                       for e in node.elts)
    if kind is ast.ListComp:
        return is_host(node.elt, host_names, groups, True)
    if kind is not ast.Call:
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        if func.attr in _HOST_COPIES:
            return True
        if func.attr not in _MOVES and is_host(func.value, host_names, groups, True):
            return True
    elif isinstance(func, ast.Name) and func.id in host_names:
        return True  # a host library's function (``zoom(x, ...)``), with host_libraries (HostNames)
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return (name in _COPY_FUNCTIONS and len(node.args) == 1 and not node.keywords
            and is_host(node.args[0], host_names, groups, True))


class HostNames:
    """The local names of one function (or module body) whose every binding is a host value, and the
    names bound to an optimizer's parameter groups; worked out on first use."""

    __slots__ = ("_body", "_names", "_values", "_groups", "_host_batches", "_batch_loops", "_loop_iterables",
                 "_params", "_host_libraries", "_partly_host", "_items_stored", "_pinned_batches")

    def __init__(self, body, host_batches: Optional[Callable[[ast.expr], bool]] = None,
                 params: FrozenSet[str] = frozenset(), host_libraries: FrozenSet[str] = frozenset(),
                 pinned_batches: Optional[Callable[[ast.expr, FrozenSet[str]], bool]] = None):
        self._body = body
        # Does a ``for`` over this iterable (in a function with these parameters) take batches from a
        # loader the module makes with ``pin_memory=True``? (step_loops.ModuleSteps.iterates_pinned_loader)
        self._pinned_batches = pinned_batches
        # Names the module imports from host libraries (``np``, ``zoom`` of ``scipy.ndimage``): what
        # their calls return is on the host (SAMed's ``prediction = zoom(prediction, ...)``)
        self._host_libraries = host_libraries
        # The function's parameters: bound by the caller, in no statement of the body. A binding
        # of one that reads it again (``gold = gold.contiguous().view(-1)``) is host only if what
        # the caller passed is, which the body does not show; ``loss = loss.item()`` still is.
        self._params = params
        self._names: Optional[FrozenSet[str]] = None
        self._values: FrozenSet[str] = frozenset()
        self._partly_host: FrozenSet[str] = frozenset()  # names some of whose bindings are Python values
        self._items_stored: FrozenSet[str] = frozenset()  # names the function stores items into
        self._batch_loops: Optional[bool] = None
        self._loop_iterables: list = []  # what each ``for`` of the body iterates, in walk order (_compute)
        self._groups: FrozenSet[str] = frozenset()
        # Does a ``for`` over this iterable take batches from a data loader on the host?
        self._host_batches = host_batches

    def _compute(self) -> None:
        bindings: Dict[str, list] = {}
        unknown: Set[str] = set()
        items_stored: Set[str] = set()  # names an item is stored into: host values only if numpy arrays
        groups: Set[str] = set()
        loops = self._loop_iterables = []
        for stmt, owner in walk_statements(self._body):
            if owner is not None:
                continue  # a nested function's own statements
            kind = type(stmt)
            if kind is ast.Assign:
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        bindings.setdefault(target.id, []).append(stmt.value)
                    elif (isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple)
                          and len(target.elts) == len(stmt.value.elts)
                          and all(isinstance(t, ast.Name) for t in target.elts)
                          and not any(isinstance(v, ast.Starred) for v in stmt.value.elts)):
                        # ``image, label = image.cpu().numpy(), label.cpu().numpy()``: one by one
                        for name, value in zip(target.elts, stmt.value.elts):
                            bindings.setdefault(name.id, []).append(value)
                    elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                          and len(stmt.targets) == 1):
                        items_stored.add(target.value.id)  # ``prediction[ind] = ...``
                    else:
                        unknown.update(_names_in(target))
            elif kind is ast.AugAssign or kind is ast.AnnAssign:
                if isinstance(stmt.target, ast.Name) and stmt.value is not None:
                    bindings.setdefault(stmt.target.id, []).append(stmt.value)
                else:
                    unknown.update(_names_in(stmt.target))
            elif kind in (ast.For, ast.AsyncFor):
                loops.append(stmt.iter)
                if isinstance(stmt.target, ast.Name) and _param_groups(stmt.iter):
                    groups.add(stmt.target.id)
                elif (isinstance(stmt.target, ast.Name) and isinstance(stmt.iter, ast.Call)
                      and isinstance(stmt.iter.func, ast.Name) and stmt.iter.func.id == "range"
                      and "range" not in bindings):
                    bindings.setdefault(stmt.target.id, []).append(_A_PYTHON_INT)  # ``for i in range(n)``
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
        # Walrus targets and comprehension variables are not followed here: not host (a host value's
        # items are found where a call reads one, _dominating_value).
        groups -= set(bindings) | unknown | items_stored
        self._groups = frozenset(groups)
        self._items_stored = frozenset(items_stored)
        host = {name for name in bindings if name not in unknown and name not in groups and name not in items_stored}
        params = self._params
        changed = True
        while changed:  # a name is host when all its values are, also through other host names
            changed = False
            known = frozenset(host)
            for name in list(host):
                seen = known - {name} if name in params else known
                if not all(is_host(value, seen, self._groups) for value in bindings[name]):
                    host.discard(name)
                    changed = True
        self._names = frozenset(host)
        self._partly_host = frozenset(name for name, values in bindings.items() if name not in host and any(
            is_host(value, self._names, self._groups) for value in values))
        # a numpy array stays one whatever is stored into its items (a list would hold tensors)
        values = {name for name in bindings if name not in unknown and name not in groups and (
            name not in items_stored or all(self._makes_numpy_array(v) for v in bindings[name]))}
        changed = True
        while changed:  # the same for host values (R14): batches, host tensors, their copies
            changed = False
            known = frozenset(values) | (self._host_libraries - set(bindings) - unknown)
            for name in list(values):
                seen = known - {name} if name in params else known
                if not all(is_host(value, seen, self._groups, True) for value in bindings[name]):
                    values.discard(name)
                    changed = True
        self._values = frozenset(values)

    def _makes_numpy_array(self, value) -> bool:
        """``np.zeros_like(x)``, ``t.cpu().numpy()``, ``zoom(x, f)``: an array a host library (or
        ``.numpy()``) made."""
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Name):
            return func.id in self._host_libraries  # ``zoom(x, ...)`` of scipy.ndimage
        return isinstance(func, ast.Attribute) and (func.attr == "numpy" or (
            isinstance(func.value, ast.Name) and func.value.id in self._host_libraries))

    def keys(self, node, where: str) -> tuple:
        """The record's keys for a call argument that is not a literal, at ``where`` (its index or
        keyword): ``host:<where>`` when it is known to be a Python value on the host; else
        ``?:<where>``, with ``hostv:<where>`` beside it when it is known to be a value on the host
        (a batch or a tensor there, R14)."""
        if self._names is None:
            self._compute()
        if is_host(node, self._names, self._groups) or self._number_where_read(node):
            return (f"{HOST_KEY}{where}",)
        if self._host_batches is not None and self._is_host_value(node):
            if self._from_pinned_batch(node):
                return (f"{UNKNOWN_KEY}{where}", f"{HOST_VALUE_KEY}{where}", f"{PINNED_KEY}{where}")
            return (f"{UNKNOWN_KEY}{where}", f"{HOST_VALUE_KEY}{where}")
        return (f"{UNKNOWN_KEY}{where}",)

    def _from_pinned_batch(self, node) -> bool:
        """Is ``node`` the batch a ``for`` over a pinned loader binds (or a field of it: ``batch[0]``,
        ``batch["x"]``, ``batch.x``), that binding running right before the call each time (R155)?
        A call (``batch.float()``) makes a copy in pageable memory: not followed."""
        if self._pinned_batches is None:
            return False
        root = node
        while type(root) is ast.Subscript or type(root) is ast.Attribute:
            root = root.value
        if type(root) is not ast.Name or root.id in self._params or getattr(node, "lineno", None) is None:
            return False
        params, pinned = self._params, self._pinned_batches
        return _dominating_value(self._body, root.id, _position(node), lambda iterable: pinned(iterable, params)) is BATCH

    def _number_where_read(self, node) -> bool:
        """A name bound several times whose binding that runs right before this read is a Python
        value (``value = loss`` ... ``value = value if isinstance(value, float) else value.item()``
        then ``update(value)``: PLLaVA, holdout143; R111)."""
        if type(node) is not ast.Name or node.id not in self._partly_host or getattr(node, "lineno", None) is None:
            return False
        value = _dominating_value(self._body, node.id, _position(node), lambda iterable: False)
        return isinstance(value, ast.AST) and is_host(value, self._names, self._groups)

    def _is_host_value(self, node) -> bool:
        if is_host(node, self._values | self._host_libraries, self._groups, True):
            return True
        # A name bound again elsewhere in the function (``audio, gain = helper(audio - shift)``
        # after ``audio, sr = batch["audio"]``): the binding that runs right before the call, every
        # time it runs, decides (_dominating_value).
        if getattr(node, "lineno", None) is None or not self._takes_batches():
            return False
        return self._host_at(node, _position(node), 0, {})

    def _takes_batches(self) -> bool:
        """Does the function iterate a data loader on the host at all (where the names the flow
        follows come from)? Worked out once: most functions do not, and skip the walk. Its ``for``
        statements were listed by ``_compute``'s walk of the statements, which ``keys`` runs first."""
        if self._batch_loops is None:
            if self._names is None:
                self._compute()
            self._batch_loops = any(self._host_batches(iterable) for iterable in self._loop_iterables)
        return self._batch_loops

    def _host_at(self, node, where: tuple, depth: int, memo: dict) -> bool:
        """Is ``node``, read at ``where`` (line, column), a host value? Each name it reads counts as
        host when the binding that dominates ``where`` is (a loop's batch, or a value host where that
        binding reads it: ``data_list = [copy.deepcopy(graph) for _ in range(n)]``, ``graph`` the
        batch)."""
        extra: Set[str] = set()
        # (a batch whose items the function replaces, ``batch_gt['verts'] = batch_gt['verts'].cuda()``
        # in MotionBERT's ``train_epoch``, holdout163, may hold device tensors by then: R141)
        for name in _read_names(node) - self._values - self._items_stored:
            key = (name, where)
            if key not in memo:
                memo[key] = False  # a binding that reads itself is no host value by that
                value = _dominating_value(self._body, name, where, self._host_batches)
                memo[key] = value is BATCH or (value is not None and depth < 8 and self._host_at(
                    value, _position(value), depth + 1, memo))
            if memo[key]:
                extra.add(name)
        return is_host(node, self._values | extra, self._groups, True)


def _read_names(node) -> Set[str]:
    """The names an expression reads, less the targets of its comprehensions."""
    read, bound = set(), set()
    for inner in walk_ast((node,)):
        if isinstance(inner, ast.Name):
            (bound if isinstance(inner.ctx, ast.Store) else read).add(inner.id)
    return read - bound


def _binds(stmt, name: str) -> bool:
    """Does ``stmt`` (at any depth, nested definitions apart) bind ``name``, or may it move what
    ``name`` holds (``batch.to(device)``: a PyG or DGL batch moves in place)?"""
    for node in walk_ast((stmt,)):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
    return False


def _simple_value(stmt, name: str):
    """The value a plain ``name = value`` or ``name, other = value`` gives ``name``; None otherwise."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            return stmt.value
        if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts) and any(
                e.id == name for e in target.elts):
            return stmt.value
    return None


def _position(node) -> tuple:
    return node.lineno, node.col_offset


def _end(node) -> tuple:
    return (getattr(node, "end_lineno", None) or node.lineno), (getattr(node, "end_col_offset", None) or 0)


def _holds_line(stmt, where: tuple) -> bool:
    """Does ``stmt`` span the position ``where`` (line, column; ``x = x.cuda(); f(x)`` on one line
    are two statements)?"""
    return _position(stmt) <= where < _end(stmt)


def _nearest_before(statements, name: str, where: tuple):
    """In one statement list, the value of the last plain binding of ``name`` that ends before
    ``where``; _UNSURE when a compound statement binds it there first (scanning back); None when
    nothing there binds it."""
    for stmt in reversed([stmt for stmt in statements if _end(stmt) <= where]):
        if _binds(stmt, name):
            value = _simple_value(stmt, name)
            return value if value is not None else _UNSURE
    return None


_UNSURE = object()


def _dominating_value(body, name: str, where: tuple, host_batches):
    """The value of the binding of ``name`` that runs before the position ``where`` (line, column)
    each time that position runs: the nearest earlier plain assignment in one of the statement lists around it,
    innermost first, or the target of a ``for`` around it (BATCH when it iterates a loader on the
    host; the iterated name, attribute or subscript itself when the target is one name: its items
    live where it does), with no other binding of ``name`` between them, nor later in a loop between
    them (that one would reach the next time round); a comprehension's variable in its element or
    conditions likewise stands for what it iterates (R109). A ``for``'s iterable is read as a
    statement of its own, before the loop. None when unsure (a compound statement binds it first,
    an ``except`` handler, a ``match`` case or a ``with ... as`` is on the way, or the position is
    in another compound statement's header) or when nothing binds it there."""
    chain = []  # (statement list, its statement that holds the line), outermost first
    statements = body
    while True:
        holder = next((stmt for stmt in statements if _holds_line(stmt, where)), None)
        if holder is None or isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        chain.append((statements, holder))
        inner = next((block for block in (getattr(holder, field, None) for field in ("body", "orelse", "finalbody"))
                      if isinstance(block, list) and any(_holds_line(stmt, where) for stmt in block)), None)
        if inner is None:
            if isinstance(holder, (ast.For, ast.AsyncFor)) and _position(holder.iter) <= where < _end(holder.iter):
                break  # what a ``for`` iterates is read once, before the loop: as its own statement's
            if hasattr(holder, "handlers") or hasattr(holder, "cases") or hasattr(holder, "body"):
                return None  # in an ``except`` handler, a ``match`` case: not followed
            break  # ``holder`` is the call's own statement
        statements = inner
    iterated = _comprehension_iterable(chain[-1][1], name, where)
    if iterated is not None:
        return iterated  # ``[to_index(order) for order in orders]``: an item of what it iterates
    for depth in range(len(chain) - 1, -1, -1):
        found = _nearest_before(chain[depth][0], name, where)
        if found is not None:
            return None if found is _UNSURE else found
        if depth == 0:
            return None
        around = chain[depth - 1][1]
        if isinstance(around, (ast.For, ast.AsyncFor)) and _binds(around.target, name):
            if chain[depth][0] is not around.body:
                return None
            if host_batches(around.iter):
                return BATCH
            # ``for order in orders:`` over a value that is not a loader: each item lives where the
            # value does (a row of a host tensor, an item of a host batch's field), so the value
            # stands for the item (video-clip-order-prediction's ``order_class_index(order)``,
            # holdout140; R109)
            return around.iter if isinstance(around.target, ast.Name) and _plain_iterable(around.iter) else None
        if isinstance(around, (ast.For, ast.AsyncFor, ast.While)) and any(
                _binds(stmt, name) for stmt in (*around.body, *around.orelse)):
            return None
        if isinstance(around, (ast.With, ast.AsyncWith)) and any(
                item.optional_vars is not None and _binds(item.optional_vars, name) for item in around.items):
            return None
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _plain_iterable(node) -> bool:
    """A name, attribute or subscript (``orders``, ``batch.labels``, ``data[1]``): iterated, each item
    is part of that value. A call (``zip(a, b)``, ``enumerate(x)``, ``range(n)``) makes other items."""
    return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript))


def _comprehension_iterable(stmt, name: str, where: tuple):
    """The iterable of the innermost comprehension in ``stmt`` around ``where`` whose generator binds
    ``name`` as a plain name, with ``where`` outside that iterable (its element or conditions), when
    the iterable is plain (``_plain_iterable``); else None."""
    found = None
    for node in walk_ast((stmt,), prune=(ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        if type(node) not in _COMPREHENSIONS or not (_position(node) <= where < _end(node)):
            continue
        for generator in node.generators:
            if _position(generator.iter) <= where < _end(generator.iter):
                continue
            if isinstance(generator.target, ast.Name) and generator.target.id == name:
                inner = generator.iter if _plain_iterable(generator.iter) else None
                if found is None or _position(node) >= found[0]:
                    found = (_position(node), inner)
    return found[1] if found is not None else None


def _names_in(target) -> Iterable[str]:
    for node in walk_ast((target,)):  # (the same Name nodes as ast.walk, without its generators)
        if isinstance(node, ast.Name):
            yield node.id


def passed_host_values(constants: dict, params: list, skip_self: bool) -> FrozenSet[str]:
    """The named parameters to which one call hands a value on the host (R14): a Python value (as
    ``passed_host``), a literal or a literal default left in place, or a batch or tensor there."""
    if "*" in constants:
        return frozenset()
    if params and skip_self and params[0][0] in ("self", "cls"):
        params = params[1:]
    host: Set[str] = set()
    for index, (name, default) in enumerate(params):
        keys = (str(index), name)
        if any(key in constants or f"{HOST_KEY}{key}" in constants or f"{HOST_VALUE_KEY}{key}" in constants
               for key in keys):
            host.add(name)
        elif not any(f"{UNKNOWN_KEY}{key}" in constants for key in keys) and not isinstance(default, dict):
            host.add(name)
    return frozenset(host)


def passed_pinned(constants: dict, params: list, skip_self: bool) -> FrozenSet[str]:
    """The named parameters to which one call hands a batch (or a field of one) of a pinned loader
    (R155)."""
    if "*" in constants:
        return frozenset()
    if params and skip_self and params[0][0] in ("self", "cls"):
        params = params[1:]
    return frozenset(name for index, (name, _) in enumerate(params)
                     if f"{PINNED_KEY}{index}" in constants or f"{PINNED_KEY}{name}" in constants)


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
