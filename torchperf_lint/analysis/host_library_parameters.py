"""Parameters a function hands to a host library (rules.md "A step body": a value handed to ``np.*``,
``scipy.*``, ``cv2.*`` is one the host must have; the lead's reading R3: host-needed wins).

DiffSinger's validation plots copy a tensor in one file (``gt_dur = gt_dur[0].cpu().numpy()``) and
hand it to ``dur_to_figure(gt_dur, ...)`` in another, which hands it to ``np.cumsum`` and
matplotlib: the copy is what the host draws, and it cannot go while the drawing stays. The project
index records, per function, which parameters reach a host library call (``ast`` only, one
function at a time): through the parameter's own name, names assigned from it (``x =
x.astype(np.int64)``, ``spec = spec.cpu().numpy()``), and expressions that carry its values
(``x.T``, ``x[i]``, ``x.reshape(...)``, arithmetic, a conditional expression). A shape or dtype read
(``x.shape``) carries no value. The walk is flow-insensitive: a name once made from a parameter
counts for all its uses (silence beats guessing).
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, List, Optional, Set

from .names import ImportTable, dotted_name_ast
from .python_containers import attributes_only_bound

# Libraries that take host values only. numpy, scipy, OpenCV, PIL and scikit-learn read arrays the
# host holds; plotting, audio and image-file libraries draw or write numpy arrays (matplotlib
# converts what it is handed with ``np.asarray``, which raises on a device tensor); Biopython's
# numeric code (``Bio.SVDSuperimposer``) is numpy's; pickle turns what it is handed into bytes on the
# host (a device tensor is copied there to be pickled: DPR's ``all_gather_list``, prec9's R16).
HOST_LIBRARIES = frozenset(("numpy", "scipy", "cv2", "PIL", "sklearn", "matplotlib", "librosa", "soundfile",
                            "imageio", "skimage", "Bio", "pickle", "rdkit", "medpy", "nibabel", "SimpleITK",
                            "pandas", "networkx", "polyscope", "open3d", "trimesh", "igl",
                            # speech metrics and vocoder analysis on numpy arrays, and joblib's workers,
                            # which pickle what they are handed (MP-SENet's batch_pesq, holdout137; R105)
                            "joblib", "pesq", "pystoi", "pyworld", "pysptk",
                            # faiss indexes search and train on numpy arrays, GPU indexes too (JPQ's
                            # negative sampling every step, holdout145; R112)
                            "faiss"))
# Attributes that read a tensor's or an array's metadata, not its values.
_METADATA = frozenset(("shape", "ndim", "dtype", "device", "size", "is_cuda", "requires_grad"))
_ROUNDS = 3  # assignments followed through this many names made from names


def _sources(node: ast.AST, out: Set[str]) -> None:
    """The local names whose values ``node`` carries."""
    kind = type(node)
    if kind is ast.Name:
        out.add(node.id)
    elif kind is ast.Attribute:
        if node.attr not in _METADATA:
            _sources(node.value, out)
    elif kind is ast.Subscript:
        _sources(node.value, out)
    elif kind is ast.Call:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr not in _METADATA:
            _sources(func.value, out)  # ``x.astype(...)``, ``x.reshape(...)``, ``x.cpu().numpy()``
    elif kind is ast.BinOp:
        _sources(node.left, out)
        _sources(node.right, out)
    elif kind is ast.UnaryOp:
        _sources(node.operand, out)
    elif kind is ast.IfExp:
        _sources(node.test, out)
        _sources(node.body, out)
        _sources(node.orelse, out)
    elif kind in (ast.Tuple, ast.List):
        for element in node.elts:
            _sources(element, out)
    elif kind is ast.Starred:
        _sources(node.value, out)


def _iterated_sources(node: ast.AST, out: Set[str]) -> None:
    """The local names whose items a ``for`` over ``node`` takes: ``xs``, ``zip(xs, ys)``,
    ``enumerate(xs)``."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("zip", "enumerate", "reversed", "sorted", "list", "tuple")):
        for arg in node.args:
            _sources(arg, out)
    else:
        _sources(node, out)


def _own_nodes(body: List[ast.stmt]):
    """The nodes of a function's body, not those of nested functions, classes or lambdas."""
    pending: List[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                pending.append(child)


def host_library_parameters(node, table: ImportTable, names: Optional[List[str]] = None,
                            self_methods: Optional[Dict[str, tuple]] = None) -> List[str]:
    """The names of ``node``'s parameters (or of ``names``, local names of its body: what a call
    there returned, returned_copies.py) whose values reach an argument of a host library call.
    ``self_methods``: methods of the same class, {name: (their parameters after ``self``, those
    of them that reach a host library)}; an argument of ``self.<name>(...)`` bound to one of those
    reaches it too (GeoSeg's ``Evaluator.add_batch`` hands its arrays to
    ``self._generate_matrix``, which ``np.bincount``s them)."""
    arguments = node.args
    params = names if names is not None else [
        a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    if not params:
        return []
    origins: Dict[str, Set[str]] = {p: {p} for p in params}
    nodes = list(_own_nodes(node.body))
    # the function's own imports (``import matplotlib.pylab as plt`` inside it), and the names bound
    # to what a host library made (``fig, ax = plt.subplots()``: ``ax.imshow(x)`` draws ``x``)
    local: Dict[str, str] = {}
    for statement in nodes:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                top = alias.name.split(".")[0]
                local[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(statement, ast.ImportFrom) and not statement.level and statement.module:
            for alias in statement.names:
                local[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    host_library = _HostLibrary(table, local)
    for statement in nodes:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and host_library(
                statement.value.func):
            for target in statement.targets:
                for bound in ast.walk(target):
                    if isinstance(bound, ast.Name) and bound.id not in origins:
                        host_library.objects.add(bound.id)
    # What a method only adds into its own state (``self.sum = np.add(self.sum, np.multiply(val,
    # w))``: an AverageMeter's ``update``) is a running total, read later if ever (R22): no host
    # need of the value handed in.
    kept_in_state = {id(inner) for n in nodes if _stores_in_self(n) for inner in ast.walk(n.value)}
    calls = [(*n.args, *(k.value for k in n.keywords)) for n in nodes
             if isinstance(n, ast.Call) and host_library(n.func) and id(n) not in kept_in_state]
    if host_library.objects:
        # ``c = np.zeros(...)`` then ``c[range(len(y)), y] = 1.``: an index into an array a host
        # library made is read by numpy (continual-learning's ``to_one_hot``)
        calls.extend((n.slice,) for n in nodes if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                     and n.value.id in host_library.objects)
    if self_methods:
        for n in nodes:
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                    and n.func.value.id == "self" and n.func.attr in self_methods):
                calls.append(_host_bound_arguments(n, *self_methods[n.func.attr]))
    if not any(calls):
        return []
    assignments = [n for n in nodes if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                   and getattr(n, "value", None) is not None]
    # a ``for`` target takes the items of what it iterates, through ``zip``/``enumerate`` (ptsemseg's
    # ``runningScore.update``: ``for lt, lp in zip(label_trues, label_preds): self._fast_hist(lt, lp)``)
    loops = [n for n in nodes if isinstance(n, (ast.For, ast.comprehension))]
    for _ in range(_ROUNDS):
        changed = False
        for loop in loops:
            carried: Set[str] = set()
            _iterated_sources(loop.iter, carried)
            made_from = set().union(*(origins.get(name, ()) for name in carried)) if carried else set()
            for bound in ast.walk(loop.target) if made_from else ():
                if isinstance(bound, ast.Name) and not made_from <= origins.setdefault(bound.id, set()):
                    origins[bound.id] |= made_from
                    changed = True
        for assignment in assignments:
            carried = set()
            _sources(assignment.value, carried)
            if isinstance(assignment.value, ast.Call) and host_library(assignment.value.func):
                for arg in (*assignment.value.args, *(k.value for k in assignment.value.keywords)):
                    _sources(arg, carried)  # ``x = np.cumsum(x)``: made from its argument
            made_from = set().union(*(origins.get(name, ()) for name in carried)) if carried else set()
            if not made_from:
                continue
            targets = assignment.targets if isinstance(assignment, ast.Assign) else [assignment.target]
            for target in targets:
                for bound in ast.walk(target):
                    if isinstance(bound, ast.Name) and not made_from <= origins.setdefault(bound.id, set()):
                        origins[bound.id] |= made_from
                        changed = True
        if not changed:
            break
    reached: Set[str] = set()
    for arguments in calls:
        carried = set()
        for arg in arguments:
            _sources(arg, carried)
        for name in carried:
            reached |= origins.get(name, set())
    return [p for p in params if p in reached]


def _stores_in_self(node) -> bool:
    """``self.x = value`` / ``self.x += value`` (every target an attribute of ``self``)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AugAssign):
        targets = [node.target]
    else:
        return False
    return all(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
               for t in targets)


def _host_bound_arguments(call: ast.Call, params: List[str], host: List[str]) -> tuple:
    """The arguments of ``self.method(...)`` that bind one of ``host`` among ``params`` (the
    method's parameters after ``self``); none after a starred argument (its places are unknown)."""
    bound = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if position < len(params) and params[position] in host:
            bound.append(arg)
    bound.extend(k.value for k in call.keywords if k.arg in host)
    return tuple(bound)


class _HostLibrary:
    """Is a called function a host library's (through the module's imports or the function's own),
    or a method of an object a host library made in the function (``ax.imshow``)?"""

    def __init__(self, table: ImportTable, local: Dict[str, str]):
        self.table = table
        self.local = local
        self.objects: Set[str] = set()

    def __call__(self, func: ast.AST) -> bool:
        if type(func) is ast.Call:
            # ``Parallel(n_jobs=15)(...)``, ``delayed(cal_pesq)(c, n)``: a call of what a host
            # library's call returned runs in that library (joblib pickles it for its workers; R105)
            return self(func.func)
        dotted = dotted_name_ast(func)
        if not dotted:
            return False
        head, _, rest = dotted.partition(".")
        if rest and head in self.objects:
            return True
        if head in self.local:
            qual: Optional[str] = self.local[head]
        else:
            qual = self.table.resolve(dotted)
        return bool(qual) and qual.split(".", 1)[0] in HOST_LIBRARIES


def parameter_of_argument(record: dict, position: Optional[int], keyword: Optional[str]) -> Optional[str]:
    """The parameter of the function ``record`` (a project index function record) that a call's
    argument binds: ``position`` among the positional arguments, or ``keyword``. Only plain
    functions are called this way (project_function: ``self.`` methods are not followed)."""
    params = [p[0] for p in record.get("params", ())]
    if params and params[0] in ("self", "cls"):
        return None  # a method reached through its class or an instance: which argument binds what is not known here
    if keyword is not None:
        return keyword if keyword in params else None
    if position is None:
        return None
    return params[position] if position < len(params) else None


def hands_to_host_library(record: Optional[dict], parameter: Optional[str]) -> bool:
    """Does the function ``record`` hand ``parameter`` to a host library?"""
    return record is not None and parameter is not None and parameter in record.get("hostp", ())


def project_function(bodies, dotted: str, scope: str):
    """(its module, its index record) of the project function that ``dotted`` (a bare or dotted
    name called in the linted file, in the function ``scope``) names: one of the file's own
    functions (nested ones first), or one of another module of the project, through the file's
    imports (read from the index when not read yet). ``bodies``: the file's
    step_bodies.StepBodies. None when unknown."""
    return _project_function_in(bodies, bodies.module, dotted, scope)


def _project_function_in(bodies, module, dotted: str, scope: str):
    """``project_function`` for a call made in ``module``."""
    if "." not in dotted:
        while scope:
            # a bare name in a method sees the functions nested around it, not the class's methods
            record = None if scope in module.classes else module.functions.get(f"{scope}.{dotted}")
            if record is not None:
                return module, record
            scope = scope.rpartition(".")[0]
        record = module.functions.get(dotted)
        if record is not None:
            return module, record
    absolute = module.resolve(dotted)
    if absolute is None or absolute.split(".", 1)[0] in HOST_LIBRARIES:
        return None
    found = bodies.symbol(absolute, load=True)
    if found is None or found[0] != "function":
        return None
    record = found[1].functions.get(found[2])
    return (found[1], record) if record is not None else None


_HANDED_ON = 2  # calls followed from a function to the functions it hands a parameter to


def reaches_host_library(bodies, module, record: dict, parameter: Optional[str]) -> bool:
    """Does the project function ``record`` (of ``module``) hand ``parameter`` to a host library,
    itself or through the plain functions it hands that parameter to, as it is (HRNet's
    ``accuracy(output, target)`` hands ``output`` to ``get_max_preds``, which ``np.argmax``es it:
    the project index's ``argp``), at most ``_HANDED_ON`` calls down?"""
    for _ in range(_HANDED_ON + 1):
        if parameter is None:
            return False
        if hands_to_host_library(record, parameter):
            return True
        handed = next(((index, key) for name, index, key in record.get("argp", ()) if name == parameter), None)
        if handed is None:
            return False
        index, key = handed
        ref = record["calls"][index][0]
        if ref[0] == "name":
            found = _project_function_in(bodies, module, ref[1], ref[2])
        elif ref[0] == "dotted":
            found = _project_function_in(bodies, module, ref[1], "")
        else:
            return False
        if found is None:
            return False
        module, record = found
        parameter = parameter_of_argument(record, int(key) if key.isdigit() else None,
                                          None if key.isdigit() else key)
    return False


def host_library_attributes(tree: ast.Module, table=None) -> FrozenSet[str]:
    """The names ``attr`` that the file assigns as ``self.attr = ...`` only ever to an object a host
    library's call made, or None (lobster's ``self.pca = PCA(n) if n else None``): a method of it
    (``self.pca.transform(h.cpu().numpy())``) is a host library's call."""
    return frozenset(attributes_only_bound(tree, lambda value: _host_library_made(value, table)))


def _host_library_made(value, table) -> bool:
    if isinstance(value, ast.IfExp):
        branches = [b for b in (value.body, value.orelse) if not (isinstance(b, ast.Constant) and b.value is None)]
        return bool(branches) and all(_host_library_made(b, table) for b in branches)
    if not isinstance(value, ast.Call) or table is None:
        return False
    qual = table.resolve(dotted_name_ast(value.func))
    return bool(qual) and qual.split(".", 1)[0] in HOST_LIBRARIES

