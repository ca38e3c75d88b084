"""What a project function gives back (rules.md "Where a value lives" across a call; issue 20, prec10).

pixel2style2pixel's ``loss_id, sim_improvement, id_logs = self.id_loss(y_hat, y, x)`` calls
``IDLoss.forward`` in another file, which returns ``loss / count, sim_improvement / count, id_logs``:
a tensor, a Python float (a sum of ``float(a) - float(b)``) and a list. ``float(sim_improvement)``
waits for nothing. Value flow (value_flow.py) follows values inside one function; this module
summarises, from the stdlib ``ast`` of the callee's module, what a project function returns, item by
item for a returned tuple, so that value flow can bind the caller's names to it:

- a Python number (``return float(x)``, ``return loss.item()``, a literal, a sum or quotient of host
  numbers), numpy (``np.*``, ``.numpy()``), a host container, a CPU tensor (``.cpu()``);
- a tensor on the device: a model's output (``self.facenet(x)``, a ``self.`` attribute bound in
  ``__init__`` to a ``torch.nn`` module or to a project ``nn.Module``, a name such as ``model``),
  ``.cuda()``, a factory given ``device=``, a torch op over such a tensor;
- a tensor made by torch ops from the parameters only (``torch.div(x, norm)``): it lives where the
  arguments live (ARGS), which the call site decides: on the device when an argument is, on the
  host when every argument is, unknown otherwise;
- unknown: everything else (an object, a generator, a parameter handed back as it is, returns that
  disagree). Unknown stays unknown at the call site: nothing is flagged for it that was not before.

A name read in a return is the kind all its bindings in the function agree on (augmented
assignments combined with the rest: ``total = 0; total += float(d)`` is a Python number); where
plain bindings disagree, the binding that dominates the read (argument_places._dominating_value)
decides, and failing that it is unknown. Calls of other project functions are followed (through
step_bodies.StepBodies.resolve: ``self.`` methods, ``self.<attr>`` instances, imported functions,
instances bound to names), a few levels deep, each function once per project state (Project.memo).
Nothing here runs unless value flow asks about a call of a project function.
"""

from __future__ import annotations

import ast
import builtins
import weakref
from typing import Dict, FrozenSet, List, Optional, Tuple

import libcst as cst

from .argument_places import _dominating_value
from .named_lambdas import lambda_function
from .project_index import content_digest
from .step_loops import is_model_name
from .syntax import dotted_name, is_loss_collection_name, is_loss_function_name, name_device_kind, text_device_kind
from .value_kinds import (CONTAINER, CPU_TENSOR, DEVICE, HOST, HOST_TENSORS, LEGACY_CONSTRUCTORS, MOVED_BATCH, NUMPY,
                          PYTHON, TENSORS, UNKNOWN, Shape, collapse, is_output_field)

# A tensor made by torch ops from the function's parameters only: where the call's arguments live.
ARGS = "like its arguments"
# A parameter handed back, moved to the device on some path (``if use_cuda: what = what.cuda()``;
# ``return what``): on the device when the call hands it a tensor (R122).
MOVED_ARGS = "its tensor argument, moved"
_PARAMETER = "parameter"  # (inside the summary only) a parameter's value, of unknown origin
_NONE = "none"  # (inside the summary only) ``return`` / ``return None``: no value to agree on
_MAX_DEPTH = 6  # calls followed through this many project functions
_MAX_EXPRESSION_DEPTH = 40
_KEPT_MODULES = 64  # modules whose function index is kept (their trees), per project state

_BUILTIN_NAMES = frozenset(dir(builtins))
_PYTHON_BUILTINS = frozenset("float int bool len str round repr format hash id ord chr isinstance".split())
_CONTAINER_BUILTINS = frozenset("list tuple dict set sorted".split())
_REDUCING_BUILTINS = frozenset("sum max min abs".split())
_PYTHON_MODULES = ("math.", "random.", "time.", "os.", "json.", "re.")
# torch.X that give no tensor, and those that give a Python value (value_flow's lists).
_NON_TENSOR_TORCH = frozenset(
    "device dtype no_grad enable_grad inference_mode set_grad_enabled manual_seed seed initial_seed "
    "compile save load numel typename get_default_dtype autocast Generator Size equal allclose "
    "is_nonzero is_same_size result_type can_cast promote_types".split())
_PYTHON_TORCH = frozenset("numel typename equal allclose is_nonzero is_same_size can_cast".split())
_CPU_FACTORIES = frozenset(
    "tensor as_tensor from_numpy zeros ones empty full arange linspace logspace eye rand randn "
    "randint randperm normal".split())
_PYTHON_METHODS = frozenset(
    "item tolist size dim ndimension numel nelement element_size data_ptr stride is_contiguous "
    "is_floating_point is_complex get_device".split())
_PYTHON_ATTRIBUTES = frozenset(("shape", "ndim", "dtype", "device", "is_cuda", "requires_grad"))
_TENSOR_ATTRIBUTES = frozenset(("grad", "data", "T", "mT", "H", "real", "imag"))
# The tensor fields of a model's output object (transformers' ModelOutput), as value flow reads them.
# Methods whose result is not the receiver's kind (an object, a hook handle...).
_OTHER_METHODS = frozenset("backward register_hook storage untyped_storage values items keys".split())
_TENSOR_KINDS = TENSORS | {ARGS}
# Methods only a tensor has (not a numpy array, a list or a Python number): what one of them returns
# from a parameter is a tensor made where the argument lives (``output.topk(maxk, 1, True, True)``).
_TENSOR_ONLY_METHODS = frozenset(
    "topk eq ne gt lt ge le expand_as view_as float half bfloat16 long int bool mul_ add_ sub_ div_ "
    "unsqueeze detach contiguous masked_fill softmax log_softmax sigmoid argsort kthvalue".split())
# The patterns of ``match`` that bind names (not followed: unsure).
# What every per-step call hands a parameter -> the kind it has in the callee.
_PASSED_KINDS = ((frozenset((PYTHON,)), PYTHON), (frozenset((PYTHON, NUMPY)), NUMPY),
                 (frozenset((PYTHON, NUMPY, CPU_TENSOR)), CPU_TENSOR), (frozenset((DEVICE,)), DEVICE),
                 (frozenset((MOVED_BATCH,)), MOVED_BATCH))
_MATCH_BINDINGS = tuple(getattr(ast, name) for name in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(ast, name))


def _binds_after(value, where: tuple) -> bool:
    """Does a binding to ``value`` take effect after a read at ``where`` (line, column): the value
    starts after it, or holds it (``targets = self.preprocess(targets, ...)`` reads the old value)?"""
    start = (getattr(value, "lineno", 0), getattr(value, "col_offset", 0))
    if start >= where:
        return True
    end = (getattr(value, "end_lineno", None), getattr(value, "end_col_offset", None))
    return None not in end and start <= where <= end


def _names_an_accelerator(where) -> bool:
    """Is ``where`` (a ``.to()`` argument) a device by its name (``device``, ``args.device``,
    ``self.local_rank``) or a string naming an accelerator (``"cuda"``), not the CPU or a dtype
    (syntax.device_kind's reading of names, on the ``ast``)?"""
    if isinstance(where, ast.Constant) and isinstance(where.value, str):
        return text_device_kind(where.value) == "accelerator"
    name = where.id if isinstance(where, ast.Name) else where.attr if isinstance(where, ast.Attribute) else None
    return name is not None and name_device_kind(name) == "accelerator"


def _moves_itself(value, name: str) -> bool:
    """``name.cuda()`` / ``name.to(...)``: the parameter ``name`` moved."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("cuda", "to")
            and isinstance(value.func.value, ast.Name) and value.func.value.id == name)


def _merge(shapes: List[Shape]) -> Shape:
    """The shape all of ``shapes`` (the values a function returns, or a name's bindings) agree on."""
    shapes = [s for s in shapes if s != _NONE]
    if not shapes:
        return UNKNOWN
    if all(isinstance(s, tuple) for s in shapes) and len({len(s) for s in shapes}) == 1:
        return tuple(_merge(list(items)) for items in zip(*shapes))
    kinds = {collapse(s) for s in shapes}
    if len(kinds) == 1:
        return kinds.pop()
    if ARGS in kinds and kinds <= HOST | {ARGS, _PARAMETER}:
        return ARGS  # ``return 0 * x[0]`` on one path, a torch op over the parameters on another
    if UNKNOWN in kinds or _PARAMETER in kinds:
        return UNKNOWN
    if kinds <= HOST:
        if kinds & HOST_TENSORS:
            return CPU_TENSOR
        return NUMPY if NUMPY in kinds else CONTAINER if CONTAINER in kinds else PYTHON
    # a tensor on some path and a host value on another (``if not on: return 0.0``)
    return DEVICE if DEVICE in kinds else ARGS


def _combine(kinds) -> str:
    """``a + b`` (value_flow.combine, with ARGS below DEVICE; a value made from the parameters
    and host values only is still the parameters' value: ``x - 1.0``)."""
    kinds = set(kinds)
    if DEVICE in kinds:
        return DEVICE
    if ARGS in kinds:
        return ARGS if kinds <= HOST | {ARGS, _PARAMETER} or not kinds & {UNKNOWN} else UNKNOWN
    if _PARAMETER in kinds:
        return _PARAMETER if kinds <= HOST | {_PARAMETER} else UNKNOWN
    if kinds & HOST_TENSORS:
        return CPU_TENSOR
    if NUMPY in kinds:
        return NUMPY
    if kinds and kinds <= {PYTHON}:
        return PYTHON
    return UNKNOWN


def at_call(shape: Shape, argument_kinds: Optional[List[str]]) -> Shape:
    """``shape`` as the call site sees it: ARGS decided by the kinds of the call's arguments
    (``argument_kinds``; None: not known, a splat)."""
    if isinstance(shape, tuple):
        return tuple(at_call(item, argument_kinds) for item in shape)
    if shape == MOVED_ARGS:
        return DEVICE if argument_kinds and any(k in TENSORS or k == ARGS for k in argument_kinds) else UNKNOWN
    if shape != ARGS:
        return shape
    if not argument_kinds:
        return UNKNOWN
    if DEVICE in argument_kinds:
        return DEVICE
    if all(kind in HOST for kind in argument_kinds):
        return CPU_TENSOR
    return UNKNOWN


# Installed libraries whose classes a project class may derive from without being an ``nn.Module``.
_NOT_MODULE_LIBRARIES = frozenset((
    "typing", "typing_extensions", "abc", "enum", "collections", "dataclasses", "contextlib", "threading",
    "multiprocessing", "json", "argparse", "unittest", "functools", "numbers", "io", "logging", "pydantic",
    "numpy", "sklearn", "gym", "gymnasium", "torch"))


class ReturnKinds:
    """The shapes of what the project's functions return, for one linted file's StepBodies."""

    def __init__(self, bodies, linted_tree: Optional[ast.Module]):
        self.bodies = bodies
        self.linted_tree = linted_tree
        project = bodies.project
        self.memo = project.memo if project is not None else bodies.__dict__.setdefault("_return_memo", {})
        self._active = set()
        self._passed: Dict[tuple, Dict[str, str]] = {}
        self._evaluations: Dict[tuple, "_Evaluation"] = {}

    # -- from the linted file (libcst) ---------------------------------------------------------------
    def of_call(self, call: cst.Call, scope: str) -> Optional[Shape]:
        """The shape of what the call ``call`` in the linted file's function ``scope`` returns, with
        ARGS left for the caller to decide; None when it is no call of a project function."""
        module = self.bodies.module
        record = module.functions.get(scope or "<module>")
        if record is None:
            return None
        own = (module.path, record["cls"]) if record.get("cls") else None
        return self._call_shape(module, _cst_ref(call.func, record, scope), own, 0)

    # -- what a parameter receives ---------------------------------------------------------------------
    def passed_kind(self, qualname: str, parameter: str) -> str:
        """The kind every per-step call of the linted file's step body ``qualname`` hands its
        ``parameter``, read in each calling function with what project callees return
        (``arr = to_numpy(pred)`` then ``vis(arr)``): PYTHON when every call hands a Python value,
        NUMPY when every call hands numpy or a Python value, CPU_TENSOR when every call hands a
        CPU tensor or those, else UNKNOWN. Worked out once per function, when value flow first asks."""
        key = ("passed", self.bodies.module.path, self.bodies.module.digest, qualname)
        kinds = self._passed.get(key)
        if kinds is None:
            self._passed[key] = {}  # a call cycle reads nothing of itself
            kinds = self._passed[key] = self._passed_kinds(qualname)
        return kinds.get(parameter, UNKNOWN)

    def _passed_kinds(self, qualname: str) -> Dict[str, str]:
        sites = self.bodies.per_step_call_sites(qualname)
        record = self.bodies.module.functions.get(qualname)
        if not sites or record is None:
            return {}
        params = [p[0] for p in record.get("params", ())]
        name = qualname.rpartition(".")[2]
        found: Optional[Dict[str, set]] = None
        for module, caller, line, ref in sites:
            node = self._function_node(module, caller) if caller != "<module>" else None
            instances = frozenset()
            if ref[0] == "inst" and ref[2] == "__call__":
                # ``compute_loss = ComputeLoss(model)`` ... ``compute_loss(pred, targets)`` (R102)
                bound = (module.functions.get(caller) or {}).get("locals", {})
                instances = frozenset(local for local, made in bound.items() if made == ref[1])
            call = _call_at(node, line, name, instances) if node is not None else None
            if call is None:
                return {}
            names = params[1:] if params and params[0] in ("self", "cls") and ref[0] != "name" else params
            evaluation = self._evaluation(module, caller, node)
            kinds: Dict[str, str] = {}
            for index, argument in enumerate(call.args):
                if index < len(names):
                    kinds[names[index]] = self._argument_kind(evaluation, argument, module, caller)
            for keyword in call.keywords:
                if keyword.arg in names:
                    kinds[keyword.arg] = self._argument_kind(evaluation, keyword.value, module, caller)
            if found is None:
                found = {parameter: {kind} for parameter, kind in kinds.items()}
            else:
                found = {parameter: seen | {kinds[parameter]} for parameter, seen in found.items()
                         if parameter in kinds}
        result = {}
        for parameter, seen in (found or {}).items():
            # (not a host container: a list of device tensors lives on the host, its items do not)
            for allowed, kind in _PASSED_KINDS:
                if seen <= allowed:
                    result[parameter] = kind
                    break
        return result

    def _argument_kind(self, evaluation: "_Evaluation", argument, module, caller: str) -> str:
        """The kind of a call's argument in its calling function; the caller's own parameter handed
        on as it is, when the caller is a step body of the linted file too, is what the caller's
        per-step calls hand it (yolov9's ``ComputeLoss.__call__`` hands its ``targets`` to
        ``self.preprocess``, and train.py hands ``targets.to(device)``: R102)."""
        kind = collapse(evaluation.expr(argument, 0))
        if (kind == _PARAMETER and isinstance(argument, ast.Name) and module is self.bodies.module
                and caller != "<module>"):
            return self.passed_kind(caller, argument.id)
        return kind

    def _evaluation(self, module, qual: str, node) -> "_Evaluation":
        """The evaluation of a calling function's names (one per function, for all its calls)."""
        key = (module.path, module.digest, qual)
        evaluation = self._evaluations.get(key)
        if evaluation is None:
            record = module.functions.get(qual) or {}
            own = (module.path, record["cls"]) if record.get("cls") else None
            evaluation = self._evaluations[key] = _Evaluation(self, module, qual, node, own, 0)
        return evaluation

    # -- functions -----------------------------------------------------------------------------------
    def function_shape(self, key: Tuple[str, str], self_cls, depth: int) -> Shape:
        """The shape of what the function ``key`` (path, qualified name) returns, ``self`` an
        instance of ``self_cls`` (its own class when None); remembered per function and text."""
        path, qual = key
        module = self._module(path)
        if module is None:
            return UNKNOWN
        memo_key = ("returns", path, module.digest, qual)
        known = self.memo.get(memo_key)
        if known is not None:
            return known
        if memo_key in self._active or depth > _MAX_DEPTH:
            return UNKNOWN  # a recursion, or too deep: not followed
        node = self._function_node(module, qual)
        if node is None:
            return UNKNOWN
        self._active.add(memo_key)
        try:
            record = module.functions.get(qual) or {}
            own = (module.path, record["cls"]) if record.get("cls") else None
            shape = _Evaluation(self, module, qual, node, self_cls or own, depth).returned()
        finally:
            self._active.discard(memo_key)
        self.memo[memo_key] = shape
        return shape

    def _module(self, path: str):
        bodies = self.bodies
        if path == bodies.module.path:
            return bodies.module
        return bodies._loaded.get(path)

    def _function_node(self, module, qual: str):
        index = self._function_index(module)
        return index.get(qual) if index is not None else None

    def _function_index(self, module) -> Optional[Dict[str, ast.AST]]:
        """Qualified name -> definition node of ``module``'s functions (as the index names them),
        from the engine's tree for the linted file and from the module's text for another."""
        kept = self.memo.setdefault(("return-trees",), {})
        key = (module.path, module.digest)
        if key in kept:
            return kept[key]
        tree = self.linted_tree if module is self.bodies.module else None
        if tree is None:
            tree = _parse_same_text(self.bodies.project, module)
        index = None
        if tree is not None:
            index = {}
            _index_definitions(tree.body, "", index)
        if len(kept) >= _KEPT_MODULES:
            kept.pop(next(iter(kept)))
        kept[key] = index
        return index

    # -- calls ---------------------------------------------------------------------------------------
    def _call_shape(self, module, ref: Optional[list], own, depth: int) -> Optional[Shape]:
        """The shape a call recorded as ``ref`` (project_index's form) returns: None when it calls no
        project function; UNKNOWN when it does and the summary says nothing."""
        if ref is None:
            return None
        bodies = self.bodies
        try:
            target = bodies.resolve(module, ref, own, own)
            if target is None and ref[0] in ("name", "dotted"):
                found = bodies.symbol(module.resolve(ref[1]), load=True)
                if found is not None and found[0] == "function":
                    target = ((found[1].path, found[2]), None)
        except RecursionError:
            return None
        if target is None:
            return None
        (path, qual), self_cls = target
        shape = self.function_shape((path, qual), self_cls, depth + 1)
        if shape in (UNKNOWN, ARGS, CONTAINER) and self._module_call(ref, path, qual):
            # a project nn.Module's forward: a model's output, as value flow reads one; a dict or a
            # list it returns holds its outputs (MolCA's ``return {"loss": loss}``), as value flow
            # reads a container a model hands back
            return DEVICE
        return shape

    def _module_call(self, ref: list, path: str, qual: str) -> bool:
        """Did the call run the ``forward`` of a project class deriving from ``torch.nn.Module``
        (``self.facenet(x)`` with ``self.facenet = Backbone(...)``)?"""
        return qual.endswith(".forward") and self.is_torch_module((path, qual.rpartition(".")[0]))

    def is_torch_module(self, cls) -> bool:
        """Does the project class ``cls`` derive from ``torch.nn.Module``, or (its ``forward`` being
        what a call of an instance runs) from a class of an installed library, which the project
        cannot show: MolCA's ``Blip2Qformer(Blip2Base)``, ``Blip2Base(lavis...BaseModel)``. Calling
        an instance runs ``forward`` only through ``nn.Module.__call__``; a library class that is
        no module would leave the call failing."""
        order, _ = self.bodies.mro(cls)
        for path, qual in order:
            module = self._module(path)
            record = module.classes.get(qual) if module is not None else None
            if record is None:
                continue
            for base in record["bases"]:
                resolved = module.resolve(base) or ""
                if resolved.startswith("torch.nn.") or resolved in ("torch.nn", "torch.nn.Module"):
                    return True
                if ("." in resolved and resolved.split(".", 1)[0] not in _NOT_MODULE_LIBRARIES
                        and self.bodies._class_of(module, base) is None):
                    return True
        return False


def _call_at(function, line: int, name: str, instances: FrozenSet[str] = frozenset()) -> Optional[ast.Call]:
    """The one call of ``name`` (bare or as an attribute), or of one of the ``instances`` (local names
    bound to the class whose ``__call__`` is meant: ``compute_loss(pred, targets)``), that starts on
    ``line`` in ``function``'s own body, with no ``*``/``**`` argument; None when there is none or
    more than one."""
    found = []
    pending = [stmt for stmt in function.body if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)]
    while pending:  # only the nodes whose lines hold ``line``
        node = pending.pop()
        if isinstance(node, ast.Call) and node.lineno == line and (
                (isinstance(node.func, ast.Name) and (node.func.id == name or node.func.id in instances))
                or (isinstance(node.func, ast.Attribute) and node.func.attr == name)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            start = getattr(child, "lineno", None)
            if start is None or start <= line <= (getattr(child, "end_lineno", None) or start):
                pending.append(child)
    if len(found) != 1 or any(isinstance(a, ast.Starred) for a in found[0].args) or any(
            k.arg is None for k in found[0].keywords):
        return None
    return found[0]


def _parse_same_text(project, module) -> Optional[ast.Module]:
    """The ``ast`` of ``module``'s text as its summary read it (an editor's unsaved text first);
    None when the file now holds another text or does not parse."""
    if project is None:
        return None
    held = project.held_tree(module.path, module.digest)
    if held is not None:
        return held
    text = project.current_text(module.path)
    if text is None or content_digest(text) != module.digest:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _index_definitions(statements, scope: str, index: dict) -> None:
    for stmt in statements:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qual = f"{scope}.{stmt.name}" if scope else stmt.name
            index.setdefault(qual, stmt)
            _index_definitions(stmt.body, qual, index)
        elif isinstance(stmt, ast.ClassDef):
            _index_definitions(stmt.body, f"{scope}.{stmt.name}" if scope else stmt.name, index)
        elif not scope and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda):
            made = lambda_function(stmt)  # ``mse2psnr2 = lambda x: ...``, as the index records it
            if made is not None:
                index.setdefault(made.name, made)
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
            # definitions under ``if TYPE_CHECKING:``/``try:`` are the module's own (as the index sees them)
            for field in ("body", "orelse", "finalbody", "handlers"):
                for inner in getattr(stmt, field, ()):
                    _index_definitions(inner.body if isinstance(inner, ast.ExceptHandler) else [inner], scope, index)


def _cst_ref(func, record: dict, scope: str) -> Optional[list]:
    """project_index._Summariser._call's record of a call, for a libcst ``func``."""
    locals_ = record.get("locals", {})
    if isinstance(func, cst.Name):
        local = locals_.get(func.value)
        return ["inst", local, "__call__", scope] if local else ["name", func.value, scope]
    if not isinstance(func, cst.Attribute):
        return None
    value, attr = func.value, func.attr.value
    if isinstance(value, cst.Name):
        if value.value in ("self", "cls"):
            return ["self", attr, scope]
        if value.value in locals_:
            return ["inst", locals_[value.value], attr, scope]
        return ["dotted", f"{value.value}.{attr}"]
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
        return ["selfattr", value.attr.value, attr, scope]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "super":
        return ["super", attr, scope]
    dotted = dotted_name(func)
    return ["dotted", dotted] if dotted else None


def _ast_ref(func, record: dict, scope: str) -> Optional[list]:
    """project_index._Summariser._call's record of a call, for an ``ast`` ``func``."""
    locals_ = record.get("locals", {})
    if isinstance(func, ast.Name):
        local = locals_.get(func.id)
        return ["inst", local, "__call__", scope] if local else ["name", func.id, scope]
    if not isinstance(func, ast.Attribute):
        return None
    value, attr = func.value, func.attr
    if isinstance(value, ast.Name):
        if value.id in ("self", "cls"):
            return ["self", attr, scope]
        if value.id in locals_:
            return ["inst", locals_[value.id], attr, scope]
        return ["dotted", f"{value.id}.{attr}"]
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self":
        return ["selfattr", value.attr, attr, scope]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
        return ["super", attr, scope]
    parts = []
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if isinstance(value, ast.Name):
        return ["dotted", ".".join([value.id, *reversed(parts), attr])]
    return None


def _own_nodes(body):
    """The nodes of a function's body, not those of nested functions, classes or lambdas."""
    pending = list(body)
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                pending.append(child)


class _Evaluation:
    """What one function returns (its summary's shape), worked out from its ``ast``."""

    def __init__(self, kinds: ReturnKinds, module, qual: str, node, self_cls, depth: int):
        # A proxy: ReturnKinds keeps the evaluations of calling functions, and a cycle would keep the
        # file's trees alive past its lint (the engine pauses the cyclic collector).
        self.kinds = kinds if isinstance(kinds, weakref.ProxyType) else weakref.proxy(kinds)
        self.module = module
        self.qual = qual
        self.node = node
        self.self_cls = self_cls
        self.depth = depth
        self.record = module.functions.get(qual) or {}
        arguments = node.args
        self.parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        for extra in (arguments.vararg, arguments.kwarg):
            if extra is not None:
                self.parameters.add(extra.arg)
        self.bindings: Dict[str, list] = {}  # name -> [(source, value, path)]
        self.unsure = set()  # names bound by something not followed (with, except, import, walrus...)
        self.returns: List[ast.AST] = []
        self.generator = False
        self._names: Dict[tuple, Shape] = {}  # (name, where it is read) -> its shape there
        self._loops: Optional[List[tuple]] = None  # (first, last line) of the function's loops
        self._collect()

    def _collect(self) -> None:
        for node in _own_nodes(self.node.body):
            kind = type(node)
            if kind is ast.Return:
                self.returns.append(node)
            elif kind in (ast.Yield, ast.YieldFrom, ast.Await):
                self.generator = True
            elif kind is ast.Assign:
                for target in node.targets:
                    self._bind(target, "expr", node.value, ())
            elif kind is ast.AugAssign:
                if isinstance(node.target, ast.Name):
                    self.bindings.setdefault(node.target.id, []).append(("aug", node.value, ()))
            elif kind is ast.AnnAssign:
                if isinstance(node.target, ast.Name):
                    if node.value is None:
                        continue
                    self.bindings.setdefault(node.target.id, []).append(("expr", node.value, ()))
            elif kind in (ast.For, ast.AsyncFor):
                self._bind(node.target, "for", node.iter, ())
            elif kind in (ast.With, ast.AsyncWith):
                for item in node.items:
                    if item.optional_vars is not None:
                        self.unsure.update(_names_in(item.optional_vars))
            elif kind is ast.ExceptHandler and node.name:
                self.unsure.add(node.name)
            elif kind in (ast.Import, ast.ImportFrom):
                self.unsure.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                self.unsure.add(node.name)
            elif kind is ast.NamedExpr:
                self.unsure.update(_names_in(node.target))
            elif kind in (ast.Global, ast.Nonlocal):
                self.unsure.update(node.names)
            elif kind in (ast.comprehension,):
                pass  # a comprehension's targets are its own
            elif kind is ast.Delete:
                for target in node.targets:
                    self.unsure.update(_names_in(target))
            elif kind in _MATCH_BINDINGS:
                self.unsure.update(n for n in (getattr(node, "name", None), getattr(node, "rest", None)) if n)

    def _bind(self, target, source: str, value, path: tuple) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append((source, value, path))
        elif isinstance(target, (ast.Tuple, ast.List)):
            count = len(target.elts)
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    self.unsure.update(_names_in(element))
                else:
                    self._bind(element, source, value, path + ((index, count),))
        elif isinstance(target, ast.Starred):
            self.unsure.update(_names_in(target))

    # -- the returns ---------------------------------------------------------------------------------
    def returned(self) -> Shape:
        if self.generator or not self.returns:
            return UNKNOWN
        shapes = []
        for node in self.returns:
            if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
                shapes.append(_NONE)
            elif isinstance(node.value, ast.Name) and self._appended_tensors(node.value.id):
                # ``res = []``, ``res.append(correct_k.mul_(100.0 / batch_size))``, ``return res``:
                # the classic ``accuracy(output, target, topk)``; what the caller reads from the
                # list (``accuracy(...)[0]``, ``acc1, acc5 = accuracy(...)``) is one of its tensors
                shapes.append(self._appended_items(node.value.id))
            else:
                shapes.append(self.expr(node.value, 0))
        return self._public(_merge(shapes))

    def _appended_tensors(self, name: str) -> bool:
        """Is ``name`` a list the function starts empty and only appends tensors to?"""
        items = self._appended_items(name)
        return isinstance(items, str) and items in _TENSOR_KINDS

    @staticmethod
    def _public(shape: Shape) -> Shape:
        if isinstance(shape, tuple):
            return tuple(_Evaluation._public(s) for s in shape)
        return UNKNOWN if shape in (_PARAMETER, MOVED_BATCH) else shape

    # -- names ---------------------------------------------------------------------------------------
    def name(self, name: str, read: ast.AST) -> Shape:
        """The kind of ``name`` read at ``read``: the binding that dominates the read when there is
        one (``x = self.model(x); x = x.squeeze()``), else what all its bindings agree on
        (augmented assignments combined with the rest)."""
        if name in self.unsure or (name in ("self", "cls") and name not in self.bindings):
            return UNKNOWN  # an object, never a tensor (``self.model(x)`` is a call of its attribute)
        bindings = self.bindings.get(name)
        if not bindings:
            if name in self.parameters and (
                    name == self.kinds.bodies.moved_batch_parameter(self.module.path, self.qual)
                    or (self.module is self.kinds.bodies.module
                        and self.kinds.passed_kind(self.qual, name) == MOVED_BATCH)):
                # a Lightning step's batch, moved by the framework (its fields: R35), also where the
                # step's helper hands it on (``training_step`` -> ``_train_val_step`` -> ``_compute_loss``)
                return MOVED_BATCH
            return _PARAMETER if name in self.parameters else UNKNOWN
        where = (getattr(read, "lineno", 0), getattr(read, "col_offset", 0))
        key = (name, where)
        known = self._names.get(key)
        if known is not None:
            return known
        self._names[key] = UNKNOWN  # a binding that reads itself is unknown by that
        shape = self._name(name, bindings, where)
        self._names[key] = shape
        return shape

    def _name(self, name: str, bindings: list, where: tuple) -> Shape:
        augmented = [collapse(self.expr(value, 1)) for source, value, _ in bindings if source == "aug"]
        if not augmented and where[0]:
            value = _dominating_value(self.node.body, name, where, lambda iterable: False)
            if isinstance(value, ast.AST):
                shape = self.expr(value, 1)
                for source, bound, path in bindings:
                    if bound is value:
                        for index, count in path:
                            shape = _item(shape, index, count)
                        break
                return shape
            if name in self.parameters and not self._in_loop(where) and all(
                    _binds_after(value, where) for _, value, _ in bindings):
                return _PARAMETER  # read before the function binds it again: the argument
        # A binding to ``None`` beside others (``moe_loss = outputs.moe_loss`` / ``else: moe_loss =
        # None``) stands for no value: the name holds the others' kind when it holds one, as ``_merge``
        # reads a ``return None`` beside other returns (LLaVA-MoD's ``get_logp``, holdout143; R116)
        assigned = [(source, value, path) for source, value, path in bindings if source != "aug"]
        valued = [(source, value, path) for source, value, path in assigned
                  if not (source == "expr" and not path and isinstance(value, ast.Constant) and value.value is None)]
        plain = [self._binding(source, value, path) for source, value, path in valued or assigned]
        if name in self.parameters:
            plain.append(_PARAMETER)
        if augmented:
            kinds = [collapse(s) for s in plain] + augmented
            return UNKNOWN if (_PARAMETER in kinds or UNKNOWN in kinds) else _combine(kinds)
        if len({s if isinstance(s, str) else repr(s) for s in plain}) == 1:
            return plain[0]
        if (name in self.parameters and set(plain) == {DEVICE, _PARAMETER}
                and all(source == "expr" and not path and _moves_itself(value, name) for source, value, path in valued)):
            # ``if use_cuda: what = what.cuda()`` then ``return what`` (online-continual-learning's
            # ``maybe_cuda``, holdout147): the argument, moved to the device when it can be (R122)
            return MOVED_ARGS
        return UNKNOWN

    def _in_loop(self, where: tuple) -> bool:
        if self._loops is None:
            self._loops = [(node.lineno, getattr(node, "end_lineno", None) or node.lineno)
                           for node in _own_nodes(self.node.body)
                           if isinstance(node, (ast.For, ast.AsyncFor, ast.While))]
        return any(start <= where[0] <= end for start, end in self._loops)

    def _binding(self, source: str, value, path: tuple) -> Shape:
        shape = self.expr(value, 1) if source == "expr" else self._element(value)
        for index, count in path:
            shape = _item(shape, index, count)
        return shape

    def _element(self, iterable) -> Shape:
        """What a ``for`` over ``iterable`` binds each time round."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in (
                "range", "enumerate") and self._builtin(iterable.func.id):
            if iterable.func.id == "range":
                return PYTHON
            return (PYTHON, self._element(iterable.args[0]) if iterable.args else UNKNOWN)
        if isinstance(iterable, ast.Name):
            appended = self._appended_items(iterable.id)
            if appended is not None:
                return appended
        kind = collapse(self.expr(iterable, 1))
        return kind if kind in TENSORS or kind in (NUMPY, PYTHON, ARGS) else UNKNOWN

    def _appended_items(self, name: str) -> Optional[Shape]:
        """The items of a list the function starts empty and only appends to (``molecules = []``;
        ``molecules.append([atoms.cpu(), bonds.cpu()])``): what every append agrees on, a list or
        tuple display read item by item (DiGress's molecule lists); None when the name is bound
        otherwise or changed in another way."""
        bindings = self.bindings.get(name)
        if not bindings or any(source != "expr" or not (isinstance(value, ast.List) and not value.elts)
                               for source, value, _ in bindings):
            return None
        shapes: List[Shape] = []
        for node in _own_nodes(self.node.body):
            if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name)
                    and node.value.id == name):
                return None  # ``molecules[i] = ...``
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name):
                continue
            if node.attr != "append":
                return None  # ``extend``, ``insert``, ``pop``...: not read here
        for node in _own_nodes(self.node.body):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
                if len(node.args) != 1 or node.keywords:
                    return None
                item = node.args[0]
                if isinstance(item, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in item.elts):
                    shapes.append(tuple(self.expr(e, 1) for e in item.elts))
                else:
                    shapes.append(self.expr(item, 1))
        return _merge(shapes) if shapes else None

    def _builtin(self, name: str) -> bool:
        return (name in _BUILTIN_NAMES and name not in self.bindings and name not in self.parameters
                and name not in self.unsure and name not in self.module.bindings
                and name not in self.module.functions and name not in self.module.classes)

    # -- expressions ---------------------------------------------------------------------------------
    def expr(self, node, depth: int) -> Shape:
        if depth > _MAX_EXPRESSION_DEPTH:
            return UNKNOWN
        kind = type(node)
        if kind is ast.Constant or kind is ast.JoinedStr:
            return PYTHON
        if kind is ast.Name:
            return self.name(node.id, node)
        if kind is ast.Tuple:
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return CONTAINER
            return tuple(self.expr(e, depth + 1) for e in node.elts)
        if kind in (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp):
            return CONTAINER
        if kind is ast.Call:
            return self._call(node, depth)
        if kind is ast.Attribute:
            owner = collapse(self.expr(node.value, depth + 1))
            if node.attr in _PYTHON_ATTRIBUTES and owner in _TENSOR_KINDS | {NUMPY, _PARAMETER}:
                return PYTHON
            if node.attr in _TENSOR_ATTRIBUTES and owner in _TENSOR_KINDS:
                return owner
            if is_output_field(node.attr) and owner == DEVICE:
                return DEVICE  # ``model(**batch).logits``
            if owner in (NUMPY, CPU_TENSOR):
                return owner
            return UNKNOWN
        if kind is ast.Subscript:
            owner = self.expr(node.value, depth + 1)
            index = node.slice
            if isinstance(owner, tuple):
                if (isinstance(index, ast.Constant) and isinstance(index.value, int)
                        and -len(owner) <= index.value < len(owner)):
                    return owner[index.value]
                return UNKNOWN
            return owner if owner in _TENSOR_KINDS or owner in (NUMPY, PYTHON, _PARAMETER) else UNKNOWN
        if kind is ast.BinOp:
            return _combine((collapse(self.expr(node.left, depth + 1)), collapse(self.expr(node.right, depth + 1))))
        if kind is ast.UnaryOp:
            if isinstance(node.op, ast.Not):
                return PYTHON
            return self.expr(node.operand, depth + 1)
        if kind is ast.Compare:
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return PYTHON
            return _combine([collapse(self.expr(v, depth + 1)) for v in (node.left, *node.comparators)])
        if kind in (ast.BoolOp, ast.IfExp):
            values = node.values if kind is ast.BoolOp else (node.body, node.orelse)
            shapes = [collapse(self.expr(v, depth + 1)) for v in values]
            return shapes[0] if len(set(shapes)) == 1 else UNKNOWN
        return UNKNOWN

    def _arguments(self, call: ast.Call, depth: int) -> Optional[List[str]]:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        return [collapse(self.expr(a, depth + 1)) for a in (*call.args, *(k.value for k in call.keywords))]

    def _call(self, call: ast.Call, depth: int) -> Shape:
        func = call.func
        if isinstance(func, ast.Name) and self._builtin(func.id):
            return self._builtin_call(func.id, call, depth)
        dotted = _dotted(func)
        qual = self.module.resolve(dotted) if dotted and dotted.split(".", 1)[0] not in (
            "self", "cls") and dotted.split(".", 1)[0] not in self.bindings and dotted.split(".", 1)[
            0] not in self.parameters else None
        if qual is not None:
            if qual.startswith("numpy."):
                return NUMPY
            if qual.startswith(_PYTHON_MODULES):
                return PYTHON
            if qual == "torch" or qual.startswith("torch."):
                return self._torch_call(call, qual, depth)
        project = self.kinds._call_shape(self.module, _ast_ref(func, self.record, self.qual), self.self_cls,
                                         self.depth)
        if project is not None:
            return at_call(project, self._arguments(call, depth))
        if isinstance(func, ast.Call):
            return self._instance_call(func)
        if isinstance(func, ast.Name) and self._names_a_torch_module(func.id):
            return DEVICE  # ``loss_function = nn.CrossEntropyLoss(...)`` ... ``loss_function(out, y)`` (R110)
        if isinstance(func, ast.Attribute):
            owner = self.expr(func.value, depth + 1)
            method = self._method(func.attr, call, collapse(owner))
            if method is not None:
                return method
            if _is_self_attribute(func.value) or (isinstance(func.value, ast.Name) and func.value.id == "self"):
                return self._attribute_module_call(func)
        if isinstance(func, (ast.Name, ast.Attribute)):
            name = func.id if isinstance(func, ast.Name) else func.attr
            if is_model_name(name) or is_loss_function_name(name):
                return DEVICE  # ``model(x)``, ``criterion(out, y)``: a model's or a loss's output (value flow)
        if isinstance(func, ast.Subscript) and isinstance(func.value, (ast.Name, ast.Attribute)) and is_loss_collection_name(
                func.value.id if isinstance(func.value, ast.Name) else func.value.attr):
            return DEVICE  # ``loss_functions[name](logits, label)``
        return UNKNOWN

    def _builtin_call(self, name: str, call: ast.Call, depth: int) -> Shape:
        if name in _PYTHON_BUILTINS:
            return PYTHON
        if name in _CONTAINER_BUILTINS:
            return CONTAINER
        if name in _REDUCING_BUILTINS and call.args and not call.keywords:
            items = []
            for arg in call.args:
                if isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
                    items.append(collapse(self.expr(arg.elt, depth + 1)))
                elif isinstance(arg, ast.Starred):
                    return UNKNOWN
                elif len(call.args) > 1 or name == "abs":
                    items.append(collapse(self.expr(arg, depth + 1)))
                else:
                    return UNKNOWN  # ``sum(values)``: the items of a container are not followed
            return PYTHON if items and all(k == PYTHON for k in items) else UNKNOWN
        return UNKNOWN

    def _torch_call(self, call: ast.Call, qual: str, depth: int) -> Shape:
        short = qual[len("torch."):] if qual.startswith("torch.") else ""
        if short.startswith(("nn.functional.", "linalg.", "fft.", "special.")):
            return self._follow(call, depth)
        if not short or "." in short:
            return UNKNOWN
        if short in _PYTHON_TORCH or short.startswith(("is_", "get_")):
            return PYTHON
        device = any(k.arg == "device" for k in call.keywords) or any(k.arg is None for k in call.keywords)
        if short in LEGACY_CONSTRUCTORS:
            return DEVICE if device else CPU_TENSOR  # ``torch.Tensor(n)``: as value flow reads it (R122)
        if short in _NON_TENSOR_TORCH or not short[:1].islower() or short.startswith(("set_", "use_")):
            return UNKNOWN
        if short in _CPU_FACTORIES:
            if device:
                return DEVICE if not _device_is_cpu(call) else CPU_TENSOR
            if short in ("tensor", "as_tensor") and call.args:
                data = collapse(self.expr(call.args[0], depth + 1))
                if data in (DEVICE, ARGS):
                    return data
                if short == "as_tensor" and data not in HOST:
                    return UNKNOWN  # hands a tensor back as it is, on its device
            return CPU_TENSOR
        if short.endswith("_like"):
            return UNKNOWN
        return self._follow(call, depth)

    def _follow(self, call: ast.Call, depth: int) -> Shape:
        """A torch op: on the device when a tensor it is given may be, where its arguments live when
        its tensors are the function's parameters, on the host when they all are."""
        kinds = []
        for arg in (*call.args, *(k.value for k in call.keywords if k.arg in (None, "input", "other", "tensors"))):
            value = arg.value if isinstance(arg, ast.Starred) else arg
            if isinstance(value, (ast.List, ast.Tuple)):
                kinds.extend(collapse(self.expr(e, depth + 1)) for e in value.elts)
            else:
                kinds.append(collapse(self.expr(value, depth + 1)))
        if DEVICE in kinds:
            return DEVICE
        tensors = [k for k in kinds if k in _TENSOR_KINDS or k == _PARAMETER]
        if tensors and all(k in HOST for k in kinds):
            return CPU_TENSOR
        if tensors and all(k in HOST or k in (ARGS, _PARAMETER) for k in kinds):
            return ARGS
        return DEVICE  # a torch op over a value of unknown origin: possibly on the device (value flow)

    def _method(self, name: str, call: ast.Call, owner: str) -> Optional[Shape]:
        """A tensor's (or an array's) method; None when ``name`` says nothing for ``owner``."""
        if name in ("item", "tolist"):
            return PYTHON
        if name == "numpy":
            return NUMPY
        if name == "cpu":
            return CPU_TENSOR
        if name == "cuda":
            return DEVICE
        if name == "to" and owner not in (NUMPY, _PARAMETER) and _names_an_accelerator(
                call.args[0] if len(call.args) == 1 and not call.keywords else None):
            # ``compute_loss(pred, targets.to(device))``: a move to a device named so, whatever the
            # receiver (a loader's batch this evaluation does not follow), as ``.cuda()`` (R102)
            return DEVICE
        if owner not in _TENSOR_KINDS and owner not in (NUMPY, _PARAMETER):
            return None
        if owner == _PARAMETER and name in _TENSOR_ONLY_METHODS:
            return ARGS  # ``output.topk(maxk, 1)``: only a tensor has it, made where the argument is
        if name == "to":
            where = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "device"), None)
            if isinstance(where, ast.Constant) and isinstance(where.value, str):
                return CPU_TENSOR if where.value.startswith("cpu") else DEVICE
            if isinstance(where, ast.Attribute) and (where.attr == "dtype" or (
                    _dotted(where) or "").startswith("torch.") and where.attr != "device"):
                return owner  # ``.to(torch.float16)``, ``.to(x.dtype)``: a dtype
            return DEVICE if owner != _PARAMETER else UNKNOWN
        if name in _PYTHON_METHODS:
            return PYTHON
        if name in _OTHER_METHODS:
            return UNKNOWN
        return owner  # ``x.detach()``, ``a.dot(b)``, ``arr.mean()``, ``x.exp()``: where the receiver lives

    def _attribute_module_call(self, func: ast.Attribute) -> Shape:
        """``self.fc(x)`` with ``self.fc = nn.Linear(...)`` in ``__init__``: a module's output."""
        attr = func.value.attr if _is_self_attribute(func.value) else func.attr
        if _is_self_attribute(func.value) and func.attr != "forward":
            return UNKNOWN  # ``self.model.method(...)``: what an object's other methods give is not known
        if self.self_cls is not None:
            module = self.kinds._module(self.self_cls[0])
            record = module.classes.get(self.self_cls[1]) if module is not None else None
            made = record["attrs"].get(attr) if record is not None else None
            resolved = module.resolve(made) if made else None
            if resolved and resolved.startswith("torch.nn."):
                return DEVICE
        return DEVICE if is_model_name(attr) or is_loss_function_name(attr) else UNKNOWN

    def _names_a_torch_module(self, name: str) -> bool:
        """Is ``name`` bound, by every binding of the function and nothing else, to a torch module built
        on the spot (``loss_function = nn.CrossEntropyLoss(reduction="none")``)? Calling it is calling
        that module, as ``nn.CrossEntropyLoss(...)(x)`` is (TOFU's ``get_batch_loss``, holdout143)."""
        bindings = self.bindings.get(name)
        if not bindings or name in self.unsure or name in self.parameters:
            return False
        return all(source == "expr" and not path and isinstance(value, ast.Call) and self._instance_call(value) == DEVICE
                   for source, value, path in bindings)

    def _instance_call(self, made: ast.Call) -> Shape:
        """``Net(...)(x)``: the forward of a class built on the spot."""
        dotted = _dotted(made.func)
        resolved = self.module.resolve(dotted) if dotted else None
        if resolved and resolved.startswith("torch.nn.") and resolved.rsplit(".", 1)[-1][:1].isupper():
            return DEVICE
        return UNKNOWN


def _device_is_cpu(call: ast.Call) -> bool:
    where = next((k.value for k in call.keywords if k.arg == "device"), None)
    return isinstance(where, ast.Constant) and isinstance(where.value, str) and where.value.startswith("cpu")


def _item(shape: Shape, index: int, count: int) -> Shape:
    if isinstance(shape, tuple):
        return shape[index] if len(shape) == count else UNKNOWN
    if shape in _TENSOR_KINDS or shape in (NUMPY, PYTHON):
        return shape
    return UNKNOWN


def _is_self_attribute(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _dotted(node) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _names_in(target):
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node.id
