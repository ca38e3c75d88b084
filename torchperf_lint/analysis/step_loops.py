"""Step loops: the loops that do device work each time round (the spec's "A step loop").

A loop is a step loop when
- it iterates a data loader: an object made by ``DataLoader(...)``, or a name or attribute ending in
  ``loader``/``dataloader``/``loaders``, also through ``enumerate``/``zip``/``tqdm``/``iter``, or its
  body takes batches with ``next(...)`` from one;
- or its body (not counting nested ``def``/``class``/``lambda``) calls ``.backward()``, an optimizer's
  or scaler's ``.step(...)``, or a model: a name bound to an ``nn.Module`` made in the module, a
  ``self.<attr>`` built from one, or a model-ish name (``model``, ``net``, ``ema``, ``generator``...).
  A name bound by a ``def`` of the module, or ``self.<method>`` of one of its classes, is a function
  whatever its name (``evaluate_model(...)``): it makes a loop a step loop only through the last rule;
- or it is nested inside a step loop that is not an epoch-level loop (it runs every step);
- or it is inside a function of the module that a step loop calls, directly or through other
  functions and methods of the module (``log_loss_dict(...)`` called every step).

The first two are read from the loop itself (libcst, during the walk, cached per loop). The last
needs the whole file while libcst sees one unit: the call graph is built from flake8's ``ast`` tree,
once per file and only when a rule first asks about a loop that is not a step loop by itself.
"""

from __future__ import annotations

import ast
import re
import weakref
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from .generation_loops import ast_feeds_back, ast_iterates_steps, cst_feeds_back, cst_iterates_steps
from .run_once import is_per_epoch_hook
from .optimizer_loops import cst_steps_each_item, steps_each_item
from .names import (MODULO_FUNCTIONS, MODULO_OWNERS, bound_names, canonical, dotted_name_ast, is_process_rank,
                    SUBCLASSED_LOADERS, TRAINER_CONTROL_FLAGS, is_shard_split, is_torch_name, setting_root,
                    turns_grad_off)
from .segments import BLOCK_FIELDS, walk_ast, walk_statements
from .tree import ast_less_than_sides, children, descendants
from .unmoving_callees import unmoving_call

# ---- names (shared by the libcst and the ast side) ----------------------------------------------
# A model is held in a variable named by a noun, at most one qualifier before it; functions that
# make, convert or inspect one are verb phrases (``load_model``, ``should_convert_module``).
_MODEL_NOUNS = frozenset(
    "model net network module backbone generator discriminator encoder decoder policy critic actor "
    "ema teacher student".split()
)
_VERBS = frozenset(
    "load save build get create make init export compile prepare configure wrap unwrap freeze print setup is has "
    "should convert to check find apply estimate count log upload update evaluate validate sync reset "
    "register summarize describe inspect push average swap quantize prune fuse merge patch replace dump "
    "restore store track watch visualize plot show draw run named".split()  # named_modules(): an iterator
)
# Not verbs here: ``eval_model``, ``train_model``, ``test_model`` name models as often as functions.
# ``self.eval_model(...)`` is a method (one a project base class defines, text2vec's
# ``SentenceModel.eval_model``) unless the module binds ``self.eval_model = ...`` (ModuleSteps._is_function).
_MODEL_OR_METHOD_WORDS = frozenset(("eval", "train", "test"))
# ``optimizer``, ``self.optim``, ``opt_g``, ``optG``, ``opt1``, ``grad_scaler``; not ``optional_name``,
# ``options`` or ``opts`` (an argparse namespace): ``opt`` at the start must end the word or be
# followed by a capital, a digit or ``_`` (decaNLP's ``getattr(batch, optional_name)``, holdout70).
OPTIMIZER_WORD = re.compile(r"(?i:optim|(^|_)opt(_|$)|scaler)|^[oO]pt(?:[A-Z0-9_]|$)")
# ``train_loader``, ``loaders``; also with the short suffix of a split or a stream (Dassl's
# ``train_loader_x``/``train_loader_u``, ``dataloader_train``, ``loader_src``, ``train_loader_iter``);
# ``train_dl``, ``dl`` (pytorch-accelerated's name for a loader; not ``dls``, a list of loaders whose
# iteration hands out loaders: icefall's ``zip(valid_sets, valid_dls)``).
_LOADER_WORD = re.compile(
    r"(?:(?:loader|loaders)(?:_(?:x|u|s|l|ul|lb|ulb|train|tr|trn|val|valid|dev|eval|test|src|tgt|source|target|"
    r"labeled|unlabeled|lab|unlab|sup|unsup|id|ood|main|aux|all|full|mix|clean|noisy|real|fake|pos|neg|iter|\d))?"
    r"|(?:^|_)dl)$",
    re.I)
_NOT_LOADER = re.compile(r"(?:down|up|pre)loaders?$", re.I)
# A dict of loaders by split (USB's ``self.loader_dict["train_lb"]``): an item of it is a loader.
_LOADER_TABLE = re.compile(r"(?:^|_)(?:data_?)?loaders?_(?:dict|dic|map|table)$", re.I)
_WRAPPERS = frozenset(("DistributedDataParallel", "DataParallel", "FullyShardedDataParallel"))
_LOSS_CLASS = re.compile(r"torch\.nn\.(?:modules\.loss\.)?\w+Loss$")
# Builtins that only look at what they are given (``print(model)``): no move (``unmoved_models``).
_LOOKS_ONLY = frozenset("print str repr isinstance type len id hasattr getattr".split())
# Methods that put a module on a device (``unmoved_models``).
_MOVES = frozenset(("to", "cuda", "xpu", "mps", "to_empty", "ipu", "npu", "hpu"))
# Wrappers whose loaders place batches on the device themselves (accelerate, Lightning Fabric).
_DEVICE_PLACING = frozenset(("prepare", "prepare_data_loader", "setup_dataloaders"))
# nn.Module methods that return the module itself: ``Net().to(device).eval()`` is a ``Net``.
RETURNS_THE_MODULE = frozenset(("to", "cuda", "cpu", "xpu", "eval", "train", "float", "half", "double",
                                "bfloat16", "requires_grad_", "share_memory", "to_empty"))


# Wrappers that iterate what they are given: ``enumerate(loader)``, ``tqdm(loader, ...)``.
_ITERATING_WRAPPERS = frozenset(
    "enumerate zip tqdm trange iter islice chain cycle reversed progress_bar track auto".split()
)
# Logging and progress wrappers named by what they do: ``metric_logger.log_every(loader, 50)`` (the
# DeiT/MAE/BLIP idiom), ``progress.track(loader)``, ``self.pbar(loader)``.
_LOGGING_WRAPPER = re.compile(r"(?:^|_)(?:log_every|progress|pbar|track)(?:_|$)")
# Methods of a loader object that hand out its batches (Graph-WaveNet's own DataLoader class:
# ``for x, y in dataloader["val_loader"].get_iterator():``).
_LOADER_ITERATORS = frozenset(("get_iterator", "iterator", "__iter__", "iter_batches"))


def _unwrapped(expr):
    """What ``tqdm(enumerate(x), total=...)`` iterates (wrappers that hand out its items, first
    argument each): ``x``; None when a wrapper takes several iterables (``zip(a, b)``)."""
    while isinstance(expr, ast.Call) and is_iterating_wrapper(_last_ast(expr.func)) and expr.args:
        if _last_ast(expr.func) in ("zip", "chain") and len(expr.args) > 1:
            return None  # several iterables: not one loader's batches
        expr = expr.args[0]
        if isinstance(expr, ast.NamedExpr):
            expr = expr.value  # ``enumerate(pbar := tqdm(loader))``
    return expr


def _wrapped_loader(expr) -> Optional[str]:
    """The name inside ``tqdm(enumerate(loader), total=...)``, or the name itself (a ``self.``
    attribute by its last name); None for anything else."""
    expr = _unwrapped(expr)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
        return expr.attr  # ``enumerate(self.train_loader)`` (ZoeDepth): the attribute's last name
    return expr.id if isinstance(expr, ast.Name) else None


def iterated_name(expr) -> Optional[str]:
    """The plain name a ``for`` over ``expr`` iterates, through wrappers (``enumerate(gen_val)``):
    what may be a parameter the callers hand a loader (step_bodies.StepBodies.loader_parameter)."""
    expr = _unwrapped(expr)
    return expr.id if isinstance(expr, ast.Name) else None


def is_iterating_wrapper(name: Optional[str]) -> bool:
    """Does ``name(x, ...)`` iterate ``x`` and hand out its items (``tqdm(loader)``)?"""
    return bool(name) and (name in _ITERATING_WRAPPERS or _LOGGING_WRAPPER.search(name) is not None)


# Builtins that compute nothing on a tensor's device (``only_takes_apart``).
_PURE_BUILTINS = frozenset("len int str bool isinstance hasattr getattr tuple list dict zip range enumerate".split())


def is_model_name(name: Optional[str]) -> bool:
    """``model``, ``ddp_model``, ``text_encoder``, ``resnet``, ``ema``, ``self.net``'s ``net``."""
    if not name:
        return False
    parts = name.lower().strip("_").split("_")
    last = parts[-1][:-1] if parts[-1].endswith("s") and parts[-1][:-1] in _MODEL_NOUNS else parts[-1]
    if len(parts) == 1:
        return last in _MODEL_NOUNS or last.endswith("net")
    return len(parts) == 2 and last in _MODEL_NOUNS and parts[0] not in _VERBS


def hands_out_loaders(name: Optional[str]) -> bool:
    """A plural name of loaders (``self.testloaders``, ``val_dataloaders``): iterated directly or
    through ``enumerate``, it hands out loaders, not batches (OpenP5's ``for loader in
    self.testloaders: self.test_dataset_task(loader)`` runs one evaluation per loader); one of
    them (``loaders["val"]``) or ``zip(*loaders)`` hands out batches."""
    return bool(name) and name.lower().endswith("loaders") and _NOT_LOADER.search(name) is None


def is_loader_name(name: Optional[str]) -> bool:
    return bool(name) and _LOADER_WORD.search(name) is not None and _NOT_LOADER.search(name) is None


# The receivers of R159's ``forward_*`` calls: the model itself, by name (``model``, ``net``,
# ``self.model``, ``student_model``, ``ddp_net``).
_FORWARD_VARIANT_RECEIVER = re.compile(r"(?:^|_)(?:model|net|network)s?$", re.I)


def is_step_shape(method: Optional[str], receiver: Optional[str], func: Optional[str], objects) -> bool:
    """A call that runs a training step, from its shape: ``recv.method(...)`` or ``func(...)``.

    ``objects`` holds the last names of objects built from ``nn.Module`` in the module."""
    if method == "backward":
        return True
    if method == "step":
        return receiver is not None and OPTIMIZER_WORD.search(receiver) is not None
    if method == "forward" and (is_model_name(receiver) or receiver in objects):
        return True
    if method is not None and method.startswith("forward_") and _FORWARD_VARIANT_RECEIVER.search(receiver or "") and (
            not method.endswith(("parameters", "params"))):
        # ``model.forward_pre(e1, rel, X, adj)`` (SACN, holdout181), ``net.forward_train(...)``: a
        # forward of the model under another name runs it as ``forward`` does (R159). Only a
        # receiver named as the model: kornia's ``module.forward_parameters(shape)`` (an
        # augmentation drawing its parameters) runs no model, and reading every ``forward_*`` of
        # every module name so made a tenth more of the index's work over a library.
        return True
    if method == "modules":
        return False  # ``model.modules()``: nn.Module's list of submodules, not a model named ``modules`` (R47.5)
    # ``self(x)`` is not a model call here: an RL module stepping its environment calls itself,
    # and the spec names models by their variables. ``TimeLLM.Model(args)``, ``ResNet(...)``: a
    # capitalised name is a class being built, not a model run.
    return func is not None and (func in objects or (is_model_name(func) and not _names_class(func)))


def _names_class(name: str) -> bool:
    """``Model``, ``UNet``, ``ResNet50``: capitalised with some lower case (``G``, ``D``, ``MODEL`` are not)."""
    return name[:1].isupper() and any(c.islower() for c in name)


# ---- libcst side ------------------------------------------------------------------------------
def _last(expr) -> Optional[str]:
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if isinstance(expr, cst.Name):
        return expr.value
    return None


def _cst_call_shape(call: cst.Call):
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value, _last(func.value), func.attr.value
    return None, None, _last(func)


def _is_definition(node) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))


class ModuleSteps:
    """What a file says about models, loaders and which of its functions run every step (ast).

    Built at most once per file, on first use."""

    def __init__(self, tree: ast.Module, table, facts=None):
        self.table = table
        # A proxy: the facts hold this object, and a reference cycle would keep the module's ast
        # alive until the cyclic garbage collector finds it.
        self._facts = weakref.proxy(facts) if facts is not None else None
        self.objects: Set[str] = set()  # last names bound to nn.Module instances made in the module
        self.loss_objects: Set[str] = set()  # ... to torch's loss modules (``nn.MSELoss()``)
        self.wrapped_loaders: Set[str] = set()  # ... to ``tqdm(loader)``, ``enumerate(loader)``
        self.loaders: Set[str] = set()  # last names bound to DataLoader(...)
        self.pinned_loaders: Set[str] = set()
        self.unpinned_loaders: Set[str] = set()
        self.device_data_loaders: Set[str] = set()  # loaders whose dataset is built from CUDA tensors
        # Of those, names only ever bound as plain local names by ``accelerator.prepare(...)``:
        # (last names key every set here) they say nothing of a ``self.`` attribute of the same
        # last name (minChatGPT's ``train_dataloader = accelerator.prepare(self.train_dataloader)``
        # in one method, ``for b in self.train_dataloader`` of a pinned loader in another class)
        self.prepared_locals: Set[str] = set()
        self.iterators: Set[str] = set()  # names bound to iter(<loader>)
        self.iterated: Dict[str, str] = {}  # iterator name -> the loader's name
        self.module_classes: Set[str] = set()
        self.class_instances: Set[str] = set()  # last names bound to instances of the module's classes
        self._tree = tree
        self._defs: Dict[str, List[ast.AST]] = {}
        # Names bound by a ``def`` outside classes, and methods of the module's classes: calling
        # one runs a function (a step only through the call graph), never a model.
        self.functions: Set[str] = set()
        self.methods: Set[str] = set()
        self._pinning: FrozenSet[str] = frozenset()  # names bound to loader settings that pin (_collect)
        self._collect()
        self._step_called: Optional[FrozenSet[str]] = None
        self._step_called_methods: FrozenSet[Tuple[Optional[str], str]] = frozenset()
        self._runs_step: Dict[int, bool] = {}  # id of a loop -> its body runs a step (ast)
        self._passed: Optional[Dict] = None
        self._takes_apart: Dict[Optional[str], bool] = {}
        self._updating: Optional[FrozenSet[str]] = None
        self._performs: Dict[str, bool] = {}  # name -> performs one step (performs_step)
        self._step_fact_memo: Dict[str, tuple] = {}
        self._hook_loops: Optional[FrozenSet[int]] = None
        self._unmoved: Optional[FrozenSet[str]] = None
        # id of a loop -> (it is epoch-level, ids of its sample-generation loops): R1
        self._epoch_facts: Dict[int, Tuple[bool, FrozenSet[int]]] = {}
        self._cst_epoch: Dict[int, tuple] = {}  # id -> (the libcst loop, its facts)
        self._sample_ids: Optional[FrozenSet[int]] = None
        self._self_attributes: Optional[FrozenSet[str]] = None
        self._batch_sources: Optional[FrozenSet[str]] = None  # batch_sources, on first use
        self._quiet_loops: Optional[FrozenSet[int]] = None  # ids of loops with autograd off around them
        self._generation: Dict[int, bool] = {}  # id of a loop -> it is a generation loop (ast)
        self._grad_off_callees: Optional[FrozenSet[str]] = None  # grad_off_callees, on first ask
        self._loop_functions: Dict[int, Tuple[str, ...]] = {}  # id of a loop -> the functions around it

    # -- module facts ------------------------------------------------------------------------------
    def _qual(self, node) -> Optional[str]:
        return self.table.resolve(dotted_name_ast(node))

    def _is_module_base(self, base) -> bool:
        dotted = dotted_name_ast(base) or ""
        qual = self.table.resolve(dotted) or ""
        last = dotted.rsplit(".", 1)[-1]
        return qual == "torch.nn.Module" or qual == "torch.nn.modules.module.Module" or last in (
            "Module", "LightningModule") or last in self.module_classes

    def _makes_module(self, value) -> bool:
        """``Net(...)``, ``nn.Linear(...)``, ``Net().to(device)``, ``DDP(Net())``, ``torch.compile(net)``."""
        while isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in RETURNS_THE_MODULE:
                value = func.value
                continue
            qual = self._qual(func) or ""
            last = (dotted_name_ast(func) or "").rsplit(".", 1)[-1]
            if last in self.module_classes:
                return True
            if is_torch_name(qual):
                short = qual.rsplit(".", 1)[-1]
                if short in _WRAPPERS:
                    # ``DDP(agent)`` wraps a model made elsewhere: a module of this module only if
                    # what it wraps is one (``DDP(Net())``, or a name already known).
                    inner = value.args[0] if value.args else None
                    return inner is not None and (self._makes_module(inner) or _last_ast(inner) in self.objects)
                if qual.startswith("torch.nn.") and short[:1].isupper() and "Parameter" not in short:
                    return True
                if qual == "torch.compile" and value.args:
                    value = value.args[0]
                    continue
            return False
        return False

    def _loader_call(self, value) -> Optional[ast.Call]:
        if not isinstance(value, ast.Call):
            return None
        qual = self._qual(value.func)
        if (qual is not None and (canonical(qual) == "torch.utils.data.DataLoader" or qual in SUBCLASSED_LOADERS)) or (
            qual is None and isinstance(value.func, ast.Name) and value.func.id == "DataLoader"
        ):
            return value
        return None

    def _collect(self) -> None:
        classes = []
        assigns = []
        factories: Dict[str, ast.Call] = {}  # functions of the module that return DataLoader(...)
        # Functions that return a tuple holding loaders (``return train_loader, val_loader``): per
        # item, the DataLoader call it is (or a name the function binds to one), or None.
        tuple_factories: Dict[str, List[Optional[ast.Call]]] = {}
        local_loaders: Dict[tuple, ast.Call] = {}  # (function, name) -> the DataLoader call bound to it
        returns = []
        stores = []  # (function or None, assignment to an item: ``self.data_loaders[name] = loader``)
        for stmt, owner in walk_statements(self._tree.body):
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                if stmt.value is not None:
                    assigns.append(stmt)
                    if type(stmt) is ast.Assign and any(type(t) is ast.Subscript for t in stmt.targets):
                        stores.append((owner, stmt))
                    target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
                        stmt.target if isinstance(stmt, ast.AnnAssign) else None)
                    if owner is not None and isinstance(target, ast.Name) and self._loader_call(stmt.value):
                        local_loaders[(owner, target.id)] = stmt.value
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                # ``with tqdm(val_loader) as bar:`` binds ``bar`` as ``bar = tqdm(val_loader)`` would
                assigns.extend(ast.Assign(targets=[item.optional_vars], value=item.context_expr)
                               for item in stmt.items
                               if type(item.optional_vars) is ast.Name and type(item.context_expr) is ast.Call)
            elif isinstance(stmt, ast.Return) and owner is not None and self._loader_call(stmt.value) is not None:
                factories[owner] = stmt.value
            elif isinstance(stmt, ast.Return) and owner is not None and isinstance(stmt.value, (ast.Tuple, ast.Name)):
                returns.append((owner, stmt.value))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._defs.setdefault(stmt.name, []).append(stmt)
                for arg in (*stmt.args.posonlyargs, *stmt.args.args, *stmt.args.kwonlyargs):
                    # ``train_data: DataLoader``: a loader whose settings the module does not show
                    if arg.annotation is not None and (dotted_name_ast(arg.annotation) or "").endswith("DataLoader"):
                        self.loaders.add(arg.arg)
            elif isinstance(stmt, ast.ClassDef):
                classes.append(stmt)
        self._factories = factories
        self._pinning = _pinning_settings(assigns)
        for owner, value in returns:
            items = value.elts if isinstance(value, ast.Tuple) else [value]
            made = [self._loader_call(item) or (local_loaders.get((owner, item.id)) if isinstance(item, ast.Name)
                                                else None) for item in items]
            if isinstance(value, ast.Name):
                if made[0] is not None:
                    factories.setdefault(owner, made[0])  # ``loader = DataLoader(...); return loader``
            elif any(m is not None for m in made):
                tuple_factories[owner] = made
        for cls in classes:
            self.methods.update(s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))
        in_classes = {id(s) for cls in classes for s in cls.body}
        self._plain_defs = {name: [n for n in nodes if id(n) not in in_classes] for name, nodes in self._defs.items()}
        self.functions.update(name for name, nodes in self._defs.items() if any(id(n) not in in_classes for n in nodes))
        class_names = {cls.name for cls in classes}
        self.class_names: FrozenSet[str] = frozenset(class_names)
        # id of a method's ``def`` -> its class: the call graph follows ``x.update()`` on an instance
        # of one class to that class's method only (step_called_methods)
        self._def_class: Dict[int, str] = {id(s): cls.name for cls in classes for s in cls.body
                                           if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        changed = True
        while changed:  # subclasses of subclasses of nn.Module, in any order
            changed = False
            for cls in classes:
                if cls.name not in self.module_classes and any(self._is_module_base(b) for b in cls.bases):
                    self.module_classes.add(cls.name)
                    changed = True
        device_datasets: Set[str] = set()
        # names the module binds only to tensors it moves (``all_input_ids, all_label_ids =
        # all_input_ids.to(device), all_label_ids.to(device)``), asked only by a dataset made of names
        moved_names: List[Dict[str, List[Tuple[int, bool]]]] = []  # made when first asked

        def made_of_moved(dataset) -> bool:
            if not (isinstance(dataset, ast.Call) and _last_ast(dataset.func) in _TENSOR_DATASETS):
                return False
            if not moved_names:
                moved_names.append(_bindings_by_line(assigns, tuple_factories))
            return any(_holds_device_tensors(a) or (isinstance(a, ast.Name) and _last_bound_to_move(
                moved_names[0].get(a.id, ()), getattr(dataset, "lineno", 0))) for a in dataset.args)
        aliases = []
        later: List[tuple] = []  # wrappers of names not known to be loaders yet (_bind_wrapper)
        choices: List[tuple] = []  # (names, loaders): a name bound to one of some loaders
        items_read: List[tuple] = []  # (names, collection): ``train_loader = self.data_loaders[name]``
        made_by_class: Dict[str, Set[str]] = {}  # name -> the module's classes it is bound to instances of
        bound_otherwise: Set[str] = set()  # ... and names also bound to anything else
        for node, names, value in _unpacked(assigns, tuple_factories):
            made = _last_ast(value.func) if isinstance(value, ast.Call) else None
            for name in names:
                if made in class_names:
                    made_by_class.setdefault(name, set()).add(made)
                else:
                    bound_otherwise.add(name)
            if isinstance(value, (ast.Name, ast.Attribute)):
                if node is not None:
                    aliases.append(node)  # ``self.train_data = train_data``
                continue
            if isinstance(value, ast.Subscript) and isinstance(value.value, (ast.Name, ast.Attribute)):
                items_read.append((names, _last_ast(value.value)))
                continue
            if isinstance(value, ast.IfExp):
                # minGPT's ``pbar = tqdm(enumerate(loader)) if is_train else enumerate(loader)``:
                # one loader either way, wrapped or not (its pinning is that loader's)
                wrapped = {_wrapped_loader(branch) for branch in (value.body, value.orelse)}
                if len(wrapped) == 1 and None not in wrapped and len(names) == 1:
                    self.wrapped_loaders.update(names)
                    self.iterated[names[0]] = wrapped.pop()
                elif (None not in wrapped and len(names) == 1 and isinstance(value.body, (ast.Name, ast.Attribute))
                      and isinstance(value.orelse, (ast.Name, ast.Attribute))):
                    # AMPLIFY's ``dataloader = train_dataloader if skipped is None else skipped``:
                    # one of two loaders; what both are, it is (read once every loader is known)
                    choices.append((names, tuple(wrapped)))
                continue
            if (isinstance(value, ast.Call) and _last_ast(value.func) == "skip_first_batches" and value.args
                    and isinstance(value.args[0], (ast.Name, ast.Attribute))):
                # ``accelerator.skip_first_batches(train_dataloader, n)``: the same loader, resumed
                choices.append((names, (_last_ast(value.args[0]),)))
                continue
            if not isinstance(value, ast.Call):
                continue
            if _last_ast(value.func) in class_names:
                self.class_instances.update(names)
            if self._makes_module(value):
                self.objects.update(names)
                if _LOSS_CLASS.match(self._qual(value.func) or ""):
                    self.loss_objects.update(names)
            loader = self._loader_call(value)
            if loader is None and isinstance(value.func, ast.Name) and value.func.id == "iter" and len(value.args) == 1:
                # ``self.train_dataloader = iter(DataLoader(...))`` then ``next(self.train_dataloader)``
                # (minChatGPT): the iterator hands out that loader's batches
                loader = self._loader_call(value.args[0])
            if loader is None and _last_ast(value.func) in factories:
                loader = factories[_last_ast(value.func)]  # ``train_data = prepare_dataloader(ds, 32)``
            if loader is not None:
                self.loaders.update(names)
                (self.pinned_loaders if _pins(loader, self._pinning) else self.unpinned_loaders).update(names)
                dataset = loader.args[0] if loader.args else next(
                    (k.value for k in loader.keywords if k.arg == "dataset"), None)
                if dataset is not None and (_holds_device_tensors(dataset) or _last_ast(dataset) in device_datasets
                                            or made_of_moved(dataset)):
                    self.device_data_loaders.update(names)
                    self.prepared_locals.difference_update(names)
            elif _last_ast(value.func) in _DEVICE_PLACING and any(
                    _last_ast(a) in self.loaders or is_loader_name(_last_ast(a)) for a in value.args):
                # ``dl = accelerator.prepare(dl)``: the wrapper hands out batches already on the device;
                # also a loader known by its name only (AMPLIFY's ``train_dataloader`` made by a
                # project function of another file). Of several prepared together, the loaders.
                prepared = [n for n, a in zip(names, value.args)
                            if _last_ast(a) in self.loaders or is_loader_name(_last_ast(a))] if (
                    len(names) == len(value.args) and len(names) > 1) else names
                self.loaders.update(prepared)
                targets = (node.targets if isinstance(node, ast.Assign) else [node.target]) if node is not None else []
                if targets and all(isinstance(e, ast.Name) for t in targets
                                   for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])):
                    self.prepared_locals.update(n for n in prepared if n not in self.device_data_loaders)
                else:
                    self.prepared_locals.difference_update(prepared)
                self.device_data_loaders.update(prepared)
            elif made_of_moved(value):
                # a dataset of tensors on the device hands out slices of them: its loader's batches
                # are there (SUMBT's evaluation loader, holdout217; R187)
                device_datasets.update(names)
            elif is_iterating_wrapper(_last_ast(value.func)) and value.args and not self._bind_wrapper(names, value):
                # ``pbar = tqdm(train_sampler)`` in ``train()`` above the ``main()`` that binds
                # ``train_sampler = DataLoader(...)`` (open-unmix): asked again once every loader is known
                later.append((names, value))
        for node in aliases:
            source = _last_ast(node.value)
            if source in self.loaders:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n for t in targets for n in _target_last_names(t)]
                self.loaders.update(names)
                for group in (self.pinned_loaders, self.unpinned_loaders, self.device_data_loaders):
                    if source in group:
                        group.update(names)
        # names bound only to instances of the module's classes (``data_time = SmoothedValue(...)``)
        self._instance_classes: Dict[str, FrozenSet[str]] = {
            name: frozenset(made) for name, made in made_by_class.items() if name not in bound_otherwise}
        self._read_loader_collections(assigns, stores, items_read)
        for names, value in later:
            self._bind_wrapper(names, value)
        for names, sources in choices:
            if all(source in self.loaders for source in sources):
                self.loaders.update(names)
                for group in (self.pinned_loaders, self.unpinned_loaders, self.device_data_loaders):
                    if all(source in group for source in sources):
                        group.update(names)

    def _read_loader_collections(self, assigns, stores, items_read) -> None:
        """R135: a dict or list the module fills with loaders only (cpjku_dcase20's
        ``self.data_loaders[name] = loader`` in ``init_loaders``, holdout157): a name bound to one
        of its items (``train_loader = self.data_loaders[dataset_name]``) is a loader, pinned when
        every loader stored in it is (unpinned when none is). A collection also bound to anything
        but an empty dict or list, or given an item that is not a known loader, is no collection
        of loaders."""
        wanted = {collection for _, collection in items_read if collection is not None}
        stored: Dict[str, List[str]] = {}  # collection -> the groups of the loaders stored in it
        spoilt: Set[str] = set()
        for owner, node in stores:
            for target in node.targets:
                if type(target) is ast.Subscript and isinstance(target.value, (ast.Name, ast.Attribute)):
                    collection = _last_ast(target.value)
                    if collection in wanted:
                        group = self._stored_loader_group(node.value, owner)
                        if group is None:
                            spoilt.add(collection)
                        else:
                            stored.setdefault(collection, []).append(group)
        if not stored:
            return
        for node in assigns:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for collection in stored.keys() & set(_target_last_names(target)):
                    if not _empty_container(node.value):
                        spoilt.add(collection)
        for names, collection in items_read:
            groups = stored.get(collection)
            if not groups or collection in spoilt:
                continue
            self.loaders.update(names)
            if all(group == "pinned" for group in groups):
                self.pinned_loaders.update(names)
            elif all(group == "unpinned" for group in groups):
                self.unpinned_loaders.update(names)
            elif "device" in groups:
                self.device_data_loaders.update(names)

    def _stored_loader_group(self, value, owner: Optional[str]) -> Optional[str]:
        """"pinned", "unpinned" or "device" for a loader (a DataLoader call, or a name the module
        binds to loaders of one kind only), "mixed" for a loader of several; None for anything else,
        and for a parameter of the function that stores it (``register(self, name, loader)``: what
        its callers hand it, whatever the module binds to the name elsewhere)."""
        if isinstance(value, ast.Call):
            loader = self._loader_call(value)
            if loader is None:
                return None
            return "pinned" if _pins(loader, self._pinning) else "unpinned"
        name = _last_ast(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if name is None or name not in self.loaders:
            return None
        if type(value) is ast.Name and owner is not None and any(
                name in {a.arg for a in (*d.args.posonlyargs, *d.args.args, *d.args.kwonlyargs)}
                for d in self._defs.get(owner, ())):
            return None
        if name in self.device_data_loaders:
            return "device"
        pinned, unpinned = name in self.pinned_loaders, name in self.unpinned_loaders
        return "mixed" if pinned == unpinned else "pinned" if pinned else "unpinned"

    def _bind_wrapper(self, names: List[str], value: ast.Call) -> bool:
        """``bar = tqdm(val_loader)`` / ``it = iter(loader)`` over a loader the module knows: record
        the names (and the loader whose batches they hand out); False when it iterates none known."""
        if not self.ast_iterates_loader(value.args[0]):
            return False
        if _last_ast(value.func) != "iter":
            self.wrapped_loaders.update(names)  # ``bar = tqdm(val_loader)``: R1's sample loops
            loader = _wrapped_loader(value)
            if loader is not None and len(names) == 1:
                # its batches are that loader's (pinned or not): ``for i, (x, y) in bar:``
                self.iterated[names[0]] = loader
            elif _last_ast(value.func) == "zip" and len(value.args) > 1:
                # ``loader = zip(trainloader_l, trainloader_u)`` (UniMatch's semi-supervised loop,
                # holdout67): each time round hands one batch of each; pinned when every one is
                zipped = [_last_ast(a) for a in value.args]
                if all(z in self.pinned_loaders and z not in self.unpinned_loaders for z in zipped):
                    self.pinned_loaders.update(names)
                    self.loaders.update(names)
        elif isinstance(value.func, ast.Name):
            self.iterators.update(names)
            loader = _last_ast(value.args[0])
            if loader is not None:
                for name in names:
                    self.iterated[name] = loader
        return True

    def add_loaders(self, names) -> None:
        """Names the project shows to be loaders (parameters every caller hands a ``DataLoader``):
        the facts worked out from the module's loaders so far are dropped, to be worked out again."""
        self.loaders.update(names)
        self._step_called = self._hook_loops = self._sample_ids = None
        for memo in (self._runs_step, self._performs, self._step_fact_memo, self._epoch_facts, self._cst_epoch):
            memo.clear()

    # -- loops on the ast side ---------------------------------------------------------------------
    def ast_iterates_loader(self, expr, starred: bool = False) -> bool:
        if isinstance(expr, ast.NamedExpr):
            expr = expr.value  # ``enumerate(pbar := tqdm(loader))`` (minChatGPT): the bar's iterable
        if isinstance(expr, ast.Call):
            name = _last_ast(expr.func)
            if is_iterating_wrapper(name):
                # ``zip(*loaders)`` as libcst sees it: the starred argument's value; ``enumerate(bar)``
                # where ``bar = tqdm(val_loader)`` (a bar alone is asked about by the loops' tests)
                return any(self.ast_iterates_loader(a.value if isinstance(a, ast.Starred) else a,
                                                    isinstance(a, ast.Starred))
                           or _last_ast(a) in self.wrapped_loaders for a in expr.args)
            if (name in _LOADER_ITERATORS and isinstance(expr.func, ast.Attribute) and not expr.args
                    and self.ast_iterates_loader(expr.func.value)):
                return True  # ``dataloader["val_loader"].get_iterator()``
            return is_loader_name(name)
        if isinstance(expr, ast.Subscript):
            expr = expr.value  # ``self.data_loader["dev"]``, ``dataloaders[phase]``: one loader of several
            if _LOADER_TABLE.search(_last_ast(expr) or "") is not None:
                return True  # ``self.loader_dict["train_lb"]``: one of a dict of loaders (USB, R47.7)
        elif not starred and hands_out_loaders(_last_ast(expr)):
            return False
        name = _last_ast(expr)
        return is_loader_name(name) or name in self.loaders or name in self.iterators or (
            isinstance(expr, ast.Name) and self._iterates_named_loader(name))

    def iterates_pinned_loader(self, expr, parameters: FrozenSet[str] = frozenset()) -> bool:
        """Does a ``for`` over ``expr`` take batches from a loader the module makes with
        ``pin_memory=True`` only (``for data in dataloader``, ``enumerate(tqdm(self.train_loader))``),
        in a function whose ``parameters`` are these (a loader handed in is what the callers make:
        not known here)? As value_flow reads a loop's batch, in ``ast`` (R155)."""
        if self.device_data_loaders or not self.ast_iterates_loader(expr):
            return False
        inner = _unwrapped(expr)
        if isinstance(inner, ast.Name) and inner.id in parameters:
            return False
        name = _wrapped_loader(expr)
        if name is None:
            return False
        name = self.iterated.get(name, name)
        return name in self.pinned_loaders and name not in self.unpinned_loaders

    def _is_function(self, receiver: Optional[str], name: Optional[str], attribute: bool) -> bool:
        """``name(...)`` bound by a ``def`` of the module, or ``self.name(...)`` a method of its
        classes (and not a name the module also binds to a model)."""
        if name is None or name in self.objects:
            return False
        if attribute:
            return receiver in ("self", "cls") and (name in self.methods or (
                name.split("_", 1)[0] in _MODEL_OR_METHOD_WORDS and name not in self.self_attributes))
        return name in self.functions

    @property
    def batch_sources(self) -> FrozenSet[str]:
        """Names the module binds to an instance of a class (``test_batches = Batches(test_set,
        ...)``) another instance of which a loop that runs the update iterates (``for batch in
        enumerate(train_batches): ... loss.backward()``): that class hands out batches, so a loop
        over one of its instances that calls a model evaluates over data (R7), it does not make
        samples (R1; robust_overfitting's PGD evaluation, holdout147; R120). Asked only about the
        loops beside an epoch's step loop that R1 might read as sample generation."""
        if self._batch_sources is None:
            made: Dict[str, Set[str]] = {}
            for stmt, _ in walk_statements(self._tree.body):
                if not (type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.value) is ast.Call
                        and type(stmt.targets[0]) in (ast.Name, ast.Attribute)):
                    continue
                made_by, target = _last_ast(stmt.value.func), _last_ast(stmt.targets[0])
                if made_by and _names_class(made_by) and made_by != "DataLoader" and target not in self.objects:
                    made.setdefault(target, set()).add(made_by)
            training: Set[str] = set()
            if made:
                for node in ast.walk(self._tree):
                    if type(node) in (ast.For, ast.AsyncFor):
                        source = _unwrapped_ast(node.iter)
                        if source in made and _ast_runs_update(node.body, self):
                            training |= made[source]
            self._batch_sources = frozenset(name for name, classes in made.items() if classes & training)
        return self._batch_sources

    @property
    def self_attributes(self) -> FrozenSet[str]:
        """The names ``X`` the module binds as ``self.X = ...`` (or ``cls.X``), anywhere."""
        if self._self_attributes is None:
            self._self_attributes = frozenset(
                target.attr for stmt, _ in walk_statements(self._tree.body) if type(stmt) in (ast.Assign, ast.AnnAssign)
                for top in (stmt.targets if type(stmt) is ast.Assign else [stmt.target])
                for target in (top.elts if type(top) in (ast.Tuple, ast.List) else [top])
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id in ("self", "cls"))
        return self._self_attributes

    def only_takes_apart(self, name: Optional[str]) -> bool:
        """Every ``def name`` of the module only takes its arguments apart: subscripts, attributes,
        tuples, and calls of pure builtins (``len``, ``int``). What it returns of a host batch is
        still on the host (``imgs, pids = self.parse_data(batch)``)."""
        known = self._takes_apart.get(name)
        if known is None:
            definitions = self._defs.get(name or "", ())
            known = bool(definitions) and not any(
                (type(node) is ast.Call and not (type(node.func) is ast.Name and node.func.id in _PURE_BUILTINS))
                or type(node) in (ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.FunctionDef,
                                  ast.AsyncFunctionDef, ast.ClassDef)
                for definition in definitions for node in walk_ast(definition.body)
            ) and not any(isinstance(d, ast.AsyncFunctionDef) or d.decorator_list for d in definitions) and all(
                # a body that returns nothing (``raise NotImplementedError``, ``pass``: an abstract
                # method a subclass overrides, daisyRec's ``calc_loss``) says nothing of the override
                any(type(node) is ast.Return and node.value is not None for node in walk_ast(definition.body))
                for definition in definitions)
            self._takes_apart[name] = known
        return known

    def is_module_function(self, func) -> bool:
        """The libcst callee ``func`` is a function or method of the module (see ``_is_function``)."""
        if isinstance(func, cst.Attribute):
            return isinstance(func.value, cst.Name) and self._is_function(func.value.value, func.attr.value, True)
        return isinstance(func, cst.Name) and self._is_function(None, func.value, False)

    def _ast_is_step_call(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Attribute):
            receiver = _last_ast(func.value) if isinstance(func.value, ast.Name) else None
            if self._is_function(receiver, func.attr, True):
                if self.performs_step(func.attr):
                    return True
                model = None
            else:
                model = func.attr
            return is_step_shape(func.attr, _last_ast(func.value), model, self.objects)
        if isinstance(func, ast.Name) and func.id == "next" and call.args:
            return not _ast_fresh_iterator(call.args[0]) and self.ast_iterates_loader(call.args[0])
        name = _last_ast(func)
        if self._is_function(None, name, False):
            return self.performs_step(name)
        return is_step_shape(None, None, name, self.objects)

    def _ast_runs_step(self, nodes) -> bool:
        """A step call among ``nodes`` (nested definitions apart). A nested loop's body is judged
        once per file (``_body_runs_step``): the file's call graph and the units' prefilter ask
        about every loop, and an outer loop's body holds the inner ones."""
        nested = []
        for node in walk_ast(nodes, prune=_DEFINITIONS_AND_LOOPS):
            kind = type(node)
            if kind is ast.Call:
                if self._ast_is_step_call(node):
                    return True
            elif kind in _LOOP_TYPES:
                nested.append(node)
        for loop in nested:
            heads = [loop.target, loop.iter] if type(loop) is not ast.While else [loop.test]
            if self._ast_runs_step(heads + loop.orelse) or self._body_runs_step(loop):
                return True
        return False

    def _body_runs_step(self, loop) -> bool:
        known = self._runs_step.get(id(loop))
        if known is None:
            known = self._runs_step[id(loop)] = self._ast_runs_step(loop.body)
        return known

    def _ast_is_intrinsic(self, loop) -> bool:
        if loop.body and type(loop.body[-1]) in (ast.Break, ast.Return):
            # its first pass ends in a ``break`` or ``return``: it runs once (a check on one batch,
            # DeiT's and Swin's ``throughput()`` timing one batch)
            return False
        if isinstance(loop, (ast.For, ast.AsyncFor)) and self.ast_iterates_loader(loop.iter):
            return True
        return id(loop) not in self.epoch_hook_loops and self._body_runs_step(loop) and not self._ast_generates(loop)

    def _ast_generates(self, loop) -> bool:
        """A generation loop (generation_loops, R41): autograd off around it, no loader, no
        update, and a model fed what the loop made."""
        if self._quiet_loops is None:
            self._loop_functions = {}
            self._quiet_loops = frozenset(self._loops_with_grad_off())
        known = self._generation.get(id(loop))
        if known is None:
            # (the loop's own facts first: the callees with autograd off are a walk of the whole
            # file, made only when a loop that feeds its model back is not under no_grad itself)
            known = self._generation[id(loop)] = (
                not (isinstance(loop, (ast.For, ast.AsyncFor)) and _last_ast(loop.iter) in self.wrapped_loaders)
                and ast_iterates_steps(loop) and not _ast_runs_update(loop.body, self)
                and ast_feeds_back(loop, self._ast_model_call)
                and (id(loop) in self._quiet_loops
                     or any(name in self.grad_off_callees for name in self._loop_functions.get(id(loop), ()))))
        return known

    def _ast_model_call(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("backward", "step"):
            return False
        if isinstance(func, ast.Name) and func.id == "next":
            return False
        return self._ast_is_step_call(call)

    def _loops_with_grad_off(self) -> Iterator[int]:
        """Ids of the loops of the file that run with autograd off: in a function decorated with
        ``no_grad``/``inference_mode`` (or in a function nested in one), or under such a ``with``.
        ``set_grad_enabled(<not a literal False>)`` does not count (a mode a name chooses). Records
        on the way the functions around every loop (``_loop_functions``: grad_off_callees asks)."""
        pending = [(stmt, False, ()) for stmt in self._tree.body]
        while pending:
            node, quiet, functions = pending.pop()
            kind = type(node)
            if kind is ast.ClassDef:
                pending.extend((child, False, functions) for child in node.body)
                continue
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                off = quiet or any(self._ast_turns_grad_off(d) for d in node.decorator_list)
                inner = functions + (node.name,)
                pending.extend((child, off, inner) for child in node.body)
                continue
            if kind in _LOOP_TYPES:
                self._loop_functions[id(node)] = functions  # for grad_off_callees (_ast_generates)
                if quiet:
                    yield id(node)
            if (kind is ast.With or kind is ast.AsyncWith) and any(
                    self._ast_turns_grad_off(item.context_expr) for item in node.items):
                pending.extend((child, True, functions) for child in node.body)
                continue
            fields = BLOCK_FIELDS.get(kind)
            if fields is None:
                continue
            for name in fields:
                for child in getattr(node, name):
                    if name == "handlers" or name == "cases":
                        pending.extend((grandchild, quiet, functions) for grandchild in child.body)
                    else:
                        pending.append((child, quiet, functions))

    @property
    def grad_off_callees(self) -> FrozenSet[str]:
        """Names of the file's functions and methods that run only with autograd off because every
        use of their name in the file does (R46): each is named at least once outside its own body
        (``f(...)``, ``self.f(...)``, ``x.f`` as a value), and every such use sits under a
        ``no_grad``/``inference_mode`` ``with``, in a function decorated with one, or in a function
        that is itself such a callee (a sampler that only ``@torch.no_grad()`` evaluation hooks
        call). A name used anywhere with autograd on, or never used, is not one; nor is a name a
        framework calls by itself (``training_step``, ``forward``)."""
        if self._grad_off_callees is None:
            self._grad_off_callees = frozenset(self._find_grad_off_callees())
        return self._grad_off_callees

    def _find_grad_off_callees(self) -> Iterator[str]:
        defined: Set[str] = set()
        uses: Dict[str, List[Tuple[bool, Tuple[str, ...]]]] = {}  # name -> (under a with/decorator, enclosing functions)
        pending = [(stmt, False, ()) for stmt in self._tree.body]
        while pending:
            node, quiet, enclosing = pending.pop()
            kind = type(node)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                defined.add(node.name)
                for expr in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
                    if expr is not None:
                        pending.append((expr, quiet, enclosing))
                off = quiet or any(self._ast_turns_grad_off(d) for d in node.decorator_list)
                pending.extend((child, off, enclosing + (node.name,)) for child in node.body)
                continue
            if (kind is ast.With or kind is ast.AsyncWith) and any(
                    self._ast_turns_grad_off(item.context_expr) for item in node.items):
                pending.extend((item, quiet, enclosing) for item in node.items)
                pending.extend((child, True, enclosing) for child in node.body)
                continue
            if kind is ast.Name and type(node.ctx) is ast.Load:
                uses.setdefault(node.id, []).append((quiet, enclosing))
            elif kind is ast.Attribute:
                uses.setdefault(node.attr, []).append((quiet, enclosing))
            pending.extend((child, quiet, enclosing) for child in ast.iter_child_nodes(node))
        candidates = {name: [(q, e) for q, e in uses.get(name, ()) if name not in e]
                      for name in defined if name not in _CALLED_BY_FRAMEWORKS and not name.startswith("__")}
        found: Set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, places in candidates.items():
                if name not in found and places and all(q or found.intersection(e) for q, e in places):
                    found.add(name)
                    changed = True
        return iter(found)

    def _ast_turns_grad_off(self, expr) -> bool:
        if not self._ast_grad_off(expr):
            return False
        if isinstance(expr, ast.Call) and (dotted_name_ast(expr.func) or "").endswith("set_grad_enabled"):
            first = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "mode"), None)
            return isinstance(first, ast.Constant) and first.value is False
        return True

    def generates(self, loop) -> bool:
        """The libcst twin of ``_ast_generates``, autograd off around ``loop`` known to the caller
        (walker.Context._generates)."""
        if isinstance(loop, cst.For) and (self.iterates_loader(loop.iter) or _last(loop.iter) in self.wrapped_loaders):
            return False
        return cst_iterates_steps(loop) and not self.runs_update(loop.body) and cst_feeds_back(loop, self._cst_model_call)

    def _cst_model_call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("backward", "step"):
            return False
        if isinstance(func, cst.Name) and func.value == "next":
            return False
        return self.is_step_call(call)

    @property
    def epoch_hook_loops(self) -> FrozenSet[int]:
        """Ids of the loops of per-epoch hooks (``validation_epoch_end(self, outputs)``) that
        iterate no loader and run no update: they go over what the epoch's steps collected, once
        per epoch, and a model or loss module they call (molformer's ``self.loss(preds, actuals)``
        per dataset) makes no step of them (the walker's twin: ``Context._classify_loop``)."""
        if self._hook_loops is None:
            found: Set[int] = set()
            for name, definitions in self._defs.items():
                if not is_per_epoch_hook(name):
                    continue
                for definition in definitions:
                    for node in walk_ast(definition.body, prune=_DEFINITIONS):
                        if type(node) in _LOOP_TYPES and self.aggregates_in_hook_ast(node):
                            found.add(id(node))
            self._hook_loops = frozenset(found)
        return self._hook_loops

    def aggregates_in_hook_ast(self, loop) -> bool:
        """(In a per-epoch hook) ``loop`` iterates no loader and runs no update itself: it goes over
        what the epoch collected."""
        if isinstance(loop, (ast.For, ast.AsyncFor)) and (
                self.ast_iterates_loader(loop.iter) or _last_ast(loop.iter) in self.wrapped_loaders):
            return False
        return not _ast_runs_update(loop.body, self)

    def aggregates_in_hook(self, loop) -> bool:
        """The libcst twin of ``aggregates_in_hook_ast``."""
        if isinstance(loop, cst.For) and (self.iterates_loader(loop.iter) or _last(loop.iter) in self.wrapped_loaders):
            return False
        return not self.runs_update(loop.body)

    def _ast_is_epoch(self, loop) -> bool:
        """Its own body runs no step, but a nested loop does. The lead's reading R1 (2026-11-26):
        a model call of its own body under ``torch.no_grad()``/``inference_mode()``, or of a model
        that body puts in eval mode (``generator.eval()``), evaluates once per epoch: no step. Then
        the nested step loop must be one that is not sample generation (``ast_sample_loops``)."""
        return self._ast_epoch_facts(loop)[0]

    def ast_sample_loops(self, loop) -> FrozenSet[int]:
        """Ids of the sample-generation loops of ``loop``'s own body when ``loop`` is epoch-level
        (R1): beside the step loop, not inside it, they call a model under no_grad (or one put in
        eval mode) and iterate no loader, call no backward and step no optimizer."""
        return self._ast_epoch_facts(loop)[1]

    def is_sample_loop_ast(self, loop) -> bool:
        """Is ``loop`` a sample-generation loop of an epoch-level loop of the file (R1)?"""
        if self._sample_ids is None:
            found: Set[int] = set()
            for outer, _ in self._loops_with_outer_counters():
                found.update(self.ast_sample_loops(outer))
            self._sample_ids = frozenset(found)
        return id(loop) in self._sample_ids

    def _ast_epoch_facts(self, loop) -> Tuple[bool, FrozenSet[int]]:
        known = self._epoch_facts.get(id(loop))
        if known is not None:
            return known
        # each time round takes a batch: a loop over a loader is no epoch by its nested loops'
        # model calls (SMDM's validation: 128 Monte Carlo passes of the model per batch); a loop
        # over several loaders (``for loader in loaders:``) takes loaders, not batches. Only a nested
        # loop that trains over a loader of its own makes it one (R76: a rollout batch, then epochs
        # of updates over the experience it made, tiny-grpo's ``for exp in experience_sampler:``).
        over_loader = type(loop) is not ast.While and not hands_out_loaders(_unwrapped_ast(loop.iter)) and (
            self.ast_iterates_loader(loop.iter) or _last_ast(loop.iter) in self.wrapped_loaders)
        own: List[Tuple[ast.Call, bool]] = []
        nested: List[Tuple[ast.AST, bool]] = []
        pending: List[Tuple[ast.AST, bool]] = [(node, False) for node in loop.body]
        while pending:
            node, quiet = pending.pop()
            kind = type(node)
            if kind in _DEFINITIONS_SET:
                continue
            if kind in _LOOP_TYPES:
                if steps_each_item(node, self):
                    # ``for opt in optimizers: opt.step()``: the body's own update, once each time
                    # round, not a nested loop of steps (R74)
                    pending.extend((child, quiet) for child in ast.iter_child_nodes(node))
                    continue
                nested.append((node, quiet))
                pending.append((node.test if kind is ast.While else node.iter, quiet))
                continue
            if kind is ast.Call:
                own.append((node, quiet))
            elif (kind is ast.With or kind is ast.AsyncWith) and any(
                    self._ast_grad_off(item.context_expr) for item in node.items):
                pending.extend((item, quiet) for item in node.items)
                pending.extend((child, True) for child in node.body)
                continue
            pending.extend((child, quiet) for child in ast.iter_child_nodes(node))
        # a loss module measures: without a backward in the body, what it computes is evaluation
        evaluated = _ast_evaluated_names(call for call, _ in own) | self.loss_objects
        # (a call named for the optimizer step runs the update each time round: RL2's ``for batch in
        # batches: <micro-batch loop with backward>; self._optimizer_step()``, one step a batch; R173)
        steps = [(call, quiet) for call, quiet in own
                 if self._ast_is_step_call(call) or steps_optimizer_by_name(_last_ast(call.func))]
        facts: Tuple[bool, FrozenSet[int]] = (False, frozenset())
        if over_loader:
            if (all(self._ast_evaluates(call, quiet, evaluated) for call, quiet in steps)
                    and any(self._ast_trains_over_loader(node) for node, _ in nested)):
                facts = (True, frozenset())  # R76
        elif all(self._ast_evaluates(call, quiet, evaluated) for call, quiet in steps):
            samples = frozenset(id(node) for node, quiet in nested if self._ast_samples(node, quiet, evaluated))
            if any(id(node) not in samples and self._body_runs_step(node)
                   and (not steps or self._ast_trains(node)) for node, _ in nested):
                facts = (True, samples)  # beside a step loop (one that trains, when the body evaluates): R1
            elif not steps and samples:
                facts = (True, frozenset())  # its only nested step loops make samples: as before R1
        self._epoch_facts[id(loop)] = facts
        return facts

    def _ast_trains_over_loader(self, loop) -> bool:
        """R76: ``loop`` (nested in a loop over a loader) iterates a loader of its own and runs the
        update, or holds such a loop (``for epoch in range(k): for exp in sampler: ...``)."""
        if type(loop) is ast.While:
            return False
        if (not hands_out_loaders(_unwrapped_ast(loop.iter)) and (
                self.ast_iterates_loader(loop.iter) or _last_ast(loop.iter) in self.wrapped_loaders)):
            return _ast_runs_update(loop.body, self)
        return any(type(node) in _LOOP_TYPES and self._ast_trains_over_loader(node)
                   for node in walk_ast(loop.body, prune=_DEFINITIONS_AND_LOOPS))

    def _ast_trains(self, loop) -> bool:
        """The step loop an evaluating epoch body needs beside it (R1): it iterates a loader or
        runs the update; a warm-up loop that only calls the model (yolov7's ``detect.py``) makes
        no epoch of the loop around it."""
        return ((type(loop) is not ast.While and (self.ast_iterates_loader(loop.iter)
                                                   or _last_ast(loop.iter) in self.wrapped_loaders))
                or _ast_runs_update(loop.body, self))

    def _ast_grad_off(self, expr) -> bool:
        target = expr.func if isinstance(expr, ast.Call) else expr
        dotted = dotted_name_ast(target)
        return turns_grad_off(canonical(self.table.resolve(dotted)), dotted)

    def _ast_evaluates(self, call: ast.Call, quiet: bool, evaluated: FrozenSet[str]) -> bool:
        """A model call (not ``.backward()``, an optimizer's ``.step()`` or ``next(loader)``) with
        autograd off, or of a model put in eval mode in the same body: evaluation, not a step."""
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr in ("backward", "step"):
                return False
            name = _last_ast(func.value) if func.attr == "forward" else func.attr
        else:
            if isinstance(func, ast.Name) and func.id == "next":
                return False
            name = _last_ast(func)
        return quiet or name in evaluated

    def _ast_samples(self, loop, quiet: bool, evaluated: FrozenSet[str]) -> bool:
        """R1's sample generation: ``loop`` (beside an epoch's step loop) iterates no loader, takes
        no batches by slicing data with its counter, and every step call in it, nested loops
        included, is an evaluating model call."""
        if type(loop) is not ast.While and (self.ast_iterates_loader(loop.iter)
                                            or _last_ast(loop.iter) in self.wrapped_loaders
                                            or _ast_slices_by_counter(loop)
                                            or _unwrapped_ast(loop.iter) in self.batch_sources):
            return False
        pending: List[Tuple[ast.AST, bool]] = [(node, quiet) for node in loop.body]
        found = False
        while pending:
            node, inner = pending.pop()
            kind = type(node)
            if kind in _DEFINITIONS_SET:
                continue
            if (kind is ast.For or kind is ast.AsyncFor) and (self.ast_iterates_loader(node.iter)
                                                              or _last_ast(node.iter) in self.wrapped_loaders):
                return False
            if kind is ast.Call and self._ast_is_step_call(node):
                if not self._ast_evaluates(node, inner, evaluated):
                    return False
                found = True
            if (kind is ast.With or kind is ast.AsyncWith) and any(
                    self._ast_grad_off(item.context_expr) for item in node.items):
                pending.extend((child, True) for child in node.body)
                continue
            pending.extend((child, inner) for child in ast.iter_child_nodes(node))
        return found

    def may_hold_step_loop(self, statements) -> bool:
        """Could a loop among ``statements`` (a unit's ast) be a step loop for the libcst side
        (walker.Context.is_step_loop)? The engine asks before parsing a unit for the rules that
        report only in a step loop (``Rule.needs_step_loop``), so the answer may be "maybe" where
        libcst later says no, never "no" where it says yes: a step loop iterates a loader or runs a
        step itself (the same test, on the ast), is nested in such a loop of the same function (so
        that one is in the unit too), or sits in a function that step loops call."""
        owners: Set[str] = set()
        # (statement, the function it is in, inside the body of a loop of that function that runs
        # no step: a loop there runs none either, so only what it iterates is left to test)
        pending = [(stmt, None, False) for stmt in statements]
        pop, push = pending.pop, pending.append
        while pending:
            stmt, owner, covered = pop()
            kind = type(stmt)
            fields = BLOCK_FIELDS.get(kind)
            if fields is None:
                continue
            inner = covered
            if kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
                if covered:
                    if kind is not ast.While and self.ast_iterates_loader(stmt.iter):
                        return True
                elif self._ast_is_intrinsic(stmt):
                    return True
                if owner is not None:
                    owners.add(owner)
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                owner, inner = stmt.name, False
            elif kind is ast.ClassDef:
                owner, inner = None, False
            for name in fields:
                below = inner or (name == "body" and kind in _LOOP_TYPES)
                for child in getattr(stmt, name):
                    if name == "handlers" or name == "cases":
                        for grandchild in child.body:
                            push((grandchild, owner, below))
                    else:
                        push((child, owner, below))
        # The call graph last: it walks the file's step loops and what they call.
        return bool(owners) and not owners.isdisjoint(self.step_called)

    def loaders_passed(self, function: str, parameter: str) -> Set[str]:
        """The last names of the arguments the module passes to ``parameter`` of ``function``
        (``evaluate(model, test_loader)`` -> {"test_loader"} for ``evaluate``'s ``loader``)."""
        if self._passed is None:
            self._passed = {}
            params: Dict[str, List[str]] = {}
            for node in ast.walk(self._tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
                    if names and names[0] in ("self", "cls"):
                        names = names[1:]
                    params.setdefault(node.name, names)
            for node in ast.walk(self._tree):
                if not isinstance(node, ast.Call):
                    continue
                name = _last_ast(node.func)
                if name not in params:
                    continue
                for index, arg in enumerate(node.args):
                    if isinstance(arg, ast.Starred) or index >= len(params[name]):
                        break
                    self._passed.setdefault((name, params[name][index]), set()).add(self._passed_name(arg))
                for keyword in node.keywords:
                    if keyword.arg is not None:
                        self._passed.setdefault((name, keyword.arg), set()).add(self._passed_name(keyword.value))
        return self._passed.get((function, parameter), set())

    def _passed_name(self, arg) -> Optional[str]:
        """The last name of an argument; for a loader made in the call (``evaluate(model,
        DataLoader(ds, pin_memory=True))``, ``validate(model, prepare_dataloader(val_set))``), a
        stand-in name recorded as a loader with that call's settings."""
        name = _last_ast(arg)
        if name is None and isinstance(arg, ast.Call):
            loader = self._loader_call(arg) or self._factories.get(_last_ast(arg.func) or "")
            if loader is not None:
                name = f"<loader at line {arg.lineno}>"
                self.loaders.add(name)
                (self.pinned_loaders if _pins(loader, self._pinning) else self.unpinned_loaders).add(name)
        return name

    @property
    def step_called(self) -> FrozenSet[str]:
        """Names of the module's functions and methods that run every step (called from a step loop,
        directly or through other functions of the module), computed once."""
        if self._step_called is None:
            reached = self._call_graph()
            self._step_called = frozenset(d.name for d in reached)
            self._step_called_methods = frozenset((self._def_class.get(id(d)), d.name) for d in reached)
        return self._step_called

    @property
    def step_called_methods(self) -> FrozenSet[Tuple[Optional[str], str]]:
        """(class or None, name) of the module's functions and methods that run every step: a call
        on an instance of one class of the module (``data_time.update(...)``, ``data_time =
        SmoothedValue()``) reaches that class's method, not every method of that name (DETR-style
        ``MetricLogger.update``, whose ``kwargs.items()`` loop reads ``.item()`` of what it is handed:
        MM-Interleaved, holdout197; R176)."""
        self.step_called  # noqa: B018 (computes both)
        return self._step_called_methods

    def _call_graph(self) -> List[ast.AST]:
        defs = self._defs
        if not defs:
            return []
        instances = self.objects | self.class_instances

        def callee(call: ast.Call) -> Optional[Tuple[str, Optional[FrozenSet[str]]]]:
            func = call.func
            if isinstance(func, ast.Name):
                return (func.id, None) if func.id in defs else None
            if isinstance(func, ast.Attribute) and func.attr in defs:
                owner = func.value
                if isinstance(owner, ast.Name) and (
                    owner.id in ("self", "cls") or owner.id in self.module_classes or owner.id in instances
                ):
                    return func.attr, self._instance_classes.get(owner.id)
                if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                    return func.attr, None
            return None

        def calls_in(nodes, found: Set[str], counters: FrozenSet[str] = frozenset(),
                     names: FrozenSet[str] = frozenset()) -> None:
            """The module's functions called in ``nodes``, leaving out what runs only every N
            steps (``if step % N == 0: save_samples()``) and what nested definitions do.
            ``counters``: outer loops' counters, which pick no single step (see syntax.tests_once);
            a ``for`` inside that binds one again makes it its own counter in its body."""
            pending = [(node, counters) for node in nodes]
            while pending:
                node, counters = pending.pop()
                kind = type(node)
                if kind in _DEFINITIONS_SET:
                    continue
                if (kind is ast.If and _ast_tests_interval(node.test, counters, names)
                        and not _ast_runs_update(node.body, self)):
                    pending.append((node.test, counters))
                    pending.extend((child, counters) for child in node.orelse)
                    continue
                if kind is ast.For or kind is ast.AsyncFor:
                    inside = counters.difference(bound_names(node.target)) if counters else counters
                    pending.extend((child, inside) for child in node.body)
                    pending.append((node.iter, counters))
                    pending.extend((child, counters) for child in node.orelse)
                    continue
                if kind is ast.Call:
                    name = callee(node)
                    if name is not None:
                        found.add(name)
                pending.extend((child, counters) for child in ast.iter_child_nodes(node))

        seeds: Set[tuple] = set()
        for loop, around in self._loops_with_outer_counters():
            if self._ast_is_intrinsic(loop) and not self._ast_is_epoch(loop) and not self.is_sample_loop_ast(loop):
                own = frozenset(bound_names(loop.target)) if isinstance(loop, (ast.For, ast.AsyncFor)) else frozenset()
                counters = around - own
                calls_in(loop.body, seeds, counters, _ast_interval_names(loop.body, counters))
        reached: List[ast.AST] = []
        seen: Set[int] = set()
        pending = list(seeds)
        while pending:
            name, classes = pending.pop()
            for definition in defs.get(name, ()):
                if id(definition) in seen or (
                        classes is not None and self._def_class.get(id(definition)) not in classes):
                    continue
                seen.add(id(definition))
                reached.append(definition)
                found: Set[tuple] = set()
                calls_in(definition.body, found)
                pending.extend(found)
        return reached

    def _loops_with_outer_counters(self) -> Iterator:
        """(loop, names bound by the ``for`` targets around it in its function) for every loop of
        the file: walker.Context.outer_loop_targets on the ast."""
        pending = [(stmt, frozenset()) for stmt in self._tree.body]
        while pending:
            stmt, around = pending.pop()
            kind = type(stmt)
            fields = BLOCK_FIELDS.get(kind)
            if fields is None:
                continue
            if kind in _LOOP_TYPES:
                yield stmt, around
            elif kind in _DEFINITIONS_SET:
                around = frozenset()
            for name in fields:
                below = around
                if name == "body" and (kind is ast.For or kind is ast.AsyncFor):
                    below = around.union(bound_names(stmt.target))
                for child in getattr(stmt, name):
                    if name == "handlers" or name == "cases":
                        pending.extend((grandchild, below) for grandchild in child.body)
                    else:
                        pending.append((child, below))

    # -- loops on the libcst side ------------------------------------------------------------------
    def iterates_loader(self, expr, starred: bool = False) -> bool:
        if isinstance(expr, cst.NamedExpr):
            expr = expr.value  # ``enumerate(pbar := tqdm(loader))``
        if isinstance(expr, cst.Call):
            name = _last(expr.func)
            if is_iterating_wrapper(name):
                return any(self.iterates_loader(a.value, bool(a.star)) or _last(a.value) in self.wrapped_loaders
                           for a in expr.args if a.keyword is None)
            if (name in _LOADER_ITERATORS and isinstance(expr.func, cst.Attribute) and not expr.args
                    and self.iterates_loader(expr.func.value)):
                return True
            return is_loader_name(name)
        if isinstance(expr, cst.Subscript):
            expr = expr.value  # ``self.data_loader["dev"]``, ``dataloaders[phase]``: one loader of several
            if _LOADER_TABLE.search(_last(expr) or "") is not None:
                return True  # ``self.loader_dict["train_lb"]``: one of a dict of loaders (USB, R47.7)
        elif not starred and hands_out_loaders(_last(expr)):
            return False
        name = _last(expr)
        return is_loader_name(name) or name in self.loaders or name in self.iterators or (
            isinstance(expr, cst.Name) and self._iterates_named_loader(name))

    def _iterates_named_loader(self, name: Optional[str]) -> bool:
        """``pbar``, bound to ``tqdm(enumerate(self.train_loader)) if rank == 0 else
        enumerate(self.train_loader)`` (ZoeDepth, minGPT): its items are a loader's batches when
        the loader it wraps is one (``iterated``)."""
        loader = self.iterated.get(name or "")
        return loader is not None and (is_loader_name(loader) or loader in self.loaders)

    def is_step_call(self, call: cst.Call) -> bool:
        method, receiver, func = _cst_call_shape(call)
        if method is None and func == "next" and call.args:
            return not _cst_fresh_iterator(call.args[0].value) and self.iterates_loader(call.args[0].value)
        if self.is_module_function(call.func):
            if self.performs_step(method or func):
                return True  # it performs one step: the loop calling it runs steps
            func = None  # otherwise a function of the module runs a step only through the call graph
        return is_step_shape(method, receiver, func, self.objects)

    def runs_update(self, node) -> bool:
        """Runs ``.backward()`` or an optimizer's/scaler's ``.step(...)`` (a model call alone is not
        the update: sampling images every N steps calls the model), at any depth of ``node``, or
        through a function or method of the module that does (``self.optimizer_step()``)."""
        return any(isinstance(n, cst.Call) and self.call_updates(n) for n in descendants(node, prune=_is_definition))

    def call_updates(self, call: cst.Call) -> bool:
        """Is ``call`` the update itself (``runs_update`` for one call)?"""
        method, receiver, func = _cst_call_shape(call)
        if method is not None and is_step_shape(method, receiver, None, ()) and method in ("backward", "step"):
            return True
        if steps_optimizer_by_name(func):
            return True  # ``self._step_optimizer()`` (R161)
        return self.is_module_function(call.func) and func in self.updating_functions

    @property
    def unmoved_models(self) -> FrozenSet[str]:
        """Plain names the file binds only to modules it builds (its own ``nn.Module`` classes, torch
        layers), never moved: no ``.to(...)``/``.cuda()`` is called on them anywhere in the file, and
        they are never handed to a call (``accelerator.prepare(model)``, ``trainer.fit(model)``,
        ``DDP(model)`` may move them) other than one of a function of the file that only calls
        them or their methods (unmoving_callees). A model the file builds and keeps on the CPU."""
        if self._unmoved is None:
            values: Dict[str, List] = {}
            unsure: Set[str] = set()
            unmoving: Dict[tuple, object] = {}  # unmoving_call's answers and parent maps
            for node in ast.walk(self._tree):
                kind = type(node)
                if kind is ast.Assign or kind is ast.AnnAssign:
                    targets = node.targets if kind is ast.Assign else [node.target]
                    for target in targets:
                        if type(target) is ast.Name:
                            values.setdefault(target.id, []).append(node.value)
                        else:
                            unsure.update(bound_names(target))
                elif kind is ast.Call:
                    func = node.func
                    if type(func) is ast.Attribute and func.attr in _MOVES and type(func.value) is ast.Name:
                        unsure.add(func.value.id)
                    if type(func) is ast.Name and func.id in _LOOKS_ONLY:
                        continue
                    for arg in (*node.args, *(k.value for k in node.keywords)):
                        if type(arg) is ast.Name:
                            if type(func) is ast.Name and unmoving_call(self._plain_defs.get(func.id, ()), node, arg,
                                                                        unmoving):
                                continue  # ``test(step_idx, model)``: a function of the file that only calls it
                            unsure.add(arg.id)
                        elif type(arg) is ast.Starred and type(arg.value) is ast.Name:
                            unsure.add(arg.value.id)
                elif kind in (ast.For, ast.AsyncFor, ast.AugAssign, ast.NamedExpr):
                    unsure.update(bound_names(node.target))  # bound to something else as well
                elif kind is ast.With or kind is ast.AsyncWith:
                    for item in node.items:
                        if item.optional_vars is not None:
                            unsure.update(bound_names(item.optional_vars))
            self._unmoved = frozenset(
                name for name, assigned in values.items()
                if name not in unsure and all(self._builds_module_here(v) for v in assigned)
            )
        return self._unmoved

    def _builds_module_here(self, value) -> bool:
        """``Net(...)``, ``nn.Linear(...)``, ``MLP(...).eval()``: a module made by a call, not moved."""
        while (type(value) is ast.Call and type(value.func) is ast.Attribute
               and value.func.attr in ("eval", "train", "float", "double", "requires_grad_")):
            value = value.func.value
        if type(value) is not ast.Call:
            return False
        last = _last_ast(value.func)
        if last in self.module_classes:
            return True
        qual = self._qual(value.func) or ""
        return (qual.startswith("torch.nn.") and (last or "")[:1].isupper() and "Parameter" not in qual
                and last not in _WRAPPERS)

    @property
    def updating_functions(self) -> FrozenSet[str]:
        """Names of the module's functions and methods that run the update themselves
        (``_ast_runs_update``) or through other functions of the module, computed once."""
        if self._updating is None:
            own: Set[str] = set()
            calls: Dict[str, Set[str]] = {}
            for name, definitions in self._defs.items():
                for definition in definitions:
                    if _ast_runs_update(definition.body):
                        own.add(name)
                    called = calls.setdefault(name, set())
                    for node in _ast_body_nodes(definition.body):
                        if type(node) is ast.Call:
                            callee = self._module_callee(node.func)
                            if callee is not None:
                                called.add(callee)
            _close(own, calls)
            self._updating = frozenset(own)
        return self._updating

    def _module_callee(self, func) -> Optional[str]:
        """The name of the module's function or ``self.`` method an ``ast`` call's ``func`` calls."""
        if type(func) is ast.Name and self._is_function(None, func.id, False):
            return func.id
        if type(func) is ast.Attribute and type(func.value) is ast.Name and self._is_function(
                func.value.id, func.attr, True):
            return func.attr
        return None

    def performs_step(self, name: Optional[str]) -> bool:
        """Does the module's function or method ``name`` perform one training step: its body,
        outside any loop, calls ``.backward()``, itself or through another such function of the
        module (rules.md "A step body": "it performs one step, and its caller runs it every step"),
        and it steps an optimizer or a scaler on the way, anywhere in its body or its callees'
        (R18: a function that only computes gradients, a notebook's ``get_grads`` for a plot,
        trains nothing; ``for opt in optimizers: opt.step()`` is one step). A loop that calls one is
        a step loop (R23: tab-ddpm's ``while step < self.steps:`` calling ``self._run_step(x)``). A
        function whose backward sits in its own loop runs many steps (a whole epoch) and is not
        one: the loop calling it is epoch-level. Worked out per name asked, from the functions it
        reaches (most modules never ask: a library's loops call no function of their own that
        trains)."""
        if not name or name not in self._defs:
            return False
        known = self._performs.get(name)
        if known is None:
            known = self._performs[name] = (self._reaches(name, 0, set()) and self._reaches(name, 1, set()))
        return known

    def _reaches(self, name: str, which: int, seen: Set[str]) -> bool:
        """``which`` 0: a backward outside loops, through calls outside loops; 1: an optimizer's or
        scaler's ``step``, anywhere, through calls anywhere (``_step_facts``)."""
        if name in seen:
            return False
        seen.add(name)
        facts = self._step_facts(name)
        if facts[which]:
            return True
        return any(self._reaches(callee, which, seen) for callee in facts[2 + which])

    def _step_facts(self, name: str) -> tuple:
        """(backward outside loops, an optimizer step anywhere, callees outside loops, callees
        anywhere) of the module's definitions of ``name``, in one walk that knows the loops."""
        known = self._step_fact_memo.get(name)
        if known is not None:
            return known
        backward = stepped = False
        flat_callees: Set[str] = set()
        all_callees: Set[str] = set()
        for definition in self._defs.get(name, ()):
            pending = [(node, False) for node in definition.body]
            while pending:
                node, looped = pending.pop()
                kind = type(node)
                if kind in _DEFINITIONS_SET:
                    continue
                if kind in _LOOP_TYPES:
                    looped = True
                elif kind is ast.Call:
                    func = node.func
                    if type(func) is ast.Attribute and func.attr == "backward":
                        backward = backward or not looped
                    elif type(func) is ast.Attribute and func.attr == "step" and is_step_shape(
                            "step", _last_ast(func.value), None, ()):
                        stepped = True
                    else:
                        callee = self._module_callee(func)
                        if callee is not None:
                            all_callees.add(callee)
                            if not looped:
                                flat_callees.add(callee)
                pending.extend((child, looped) for child in ast.iter_child_nodes(node))
        known = self._step_fact_memo[name] = (backward, stepped, flat_callees, all_callees)
        return known

    def runs_step(self, node) -> bool:
        return any(
            isinstance(n, cst.Call) and self.is_step_call(n) for n in descendants(node, prune=_is_definition)
        )

    def is_intrinsic(self, loop) -> bool:
        """Iterates a loader, or its body runs a step (nested loops included); not a loop whose
        first pass ends in a ``break`` or ``return`` (it runs once)."""
        if _ends_in_break(loop.body):
            return False
        if isinstance(loop, cst.For) and self.iterates_loader(loop.iter):
            return True
        return self.runs_step(loop.body)

    def is_epoch_loop(self, loop) -> bool:
        """Its body runs no step itself, but a nested loop does (R1: evaluating model calls are no
        step, see ``_ast_is_epoch``)."""
        return self._cst_epoch_facts(loop)[0]

    def is_sample_loop(self, loop, epoch) -> bool:
        """Is ``loop`` a sample-generation loop of the epoch-level loop ``epoch`` (R1)?"""
        return self.is_epoch_loop(epoch) and id(loop) in self._cst_epoch_facts(epoch)[1]

    def _cst_epoch_facts(self, loop) -> Tuple[bool, FrozenSet[int]]:
        known = self._cst_epoch.get(id(loop))
        if known is not None and known[0] is loop:  # a unit's tree may be gone and its ids reused
            return known[1]
        over_loader = isinstance(loop, cst.For) and not hands_out_loaders(_unwrapped_cst(loop.iter)) and (
            self.iterates_loader(loop.iter) or _last(loop.iter) in self.wrapped_loaders)  # (R76, as above)
        own: List[Tuple[cst.Call, bool]] = []
        nested: List[Tuple[cst.CSTNode, bool]] = []
        pending: List[Tuple[cst.CSTNode, bool]] = [(loop.body, False)]
        while pending:
            node, quiet = pending.pop()
            if _is_definition(node):
                continue
            if isinstance(node, (cst.For, cst.While)):
                if cst_steps_each_item(node, self):
                    pending.extend((child, quiet) for _, child in children(node))  # R74, as above
                    continue
                nested.append((node, quiet))
                # The iterable of a nested ``for`` is evaluated by this loop's own body.
                pending.append((node.iter if isinstance(node, cst.For) else node.test, quiet))
                continue
            if isinstance(node, cst.Call):
                own.append((node, quiet))
            elif isinstance(node, cst.With) and any(self._cst_grad_off(item.item) for item in node.items):
                pending.extend((item, quiet) for item in node.items)
                pending.append((node.body, True))
                continue
            pending.extend((child, quiet) for _, child in children(node))
        evaluated = _cst_evaluated_names(call for call, _ in own) | self.loss_objects
        steps = [(call, quiet) for call, quiet in own
                 if self.is_step_call(call) or steps_optimizer_by_name(_last(call.func))]  # (R173)
        facts: Tuple[bool, FrozenSet[int]] = (False, frozenset())
        if over_loader:
            if (all(_cst_evaluates(call, quiet, evaluated) for call, quiet in steps)
                    and any(self._cst_trains_over_loader(node) for node, _ in nested)):
                facts = (True, frozenset())  # R76
        elif all(_cst_evaluates(call, quiet, evaluated) for call, quiet in steps):
            samples = frozenset(id(node) for node, quiet in nested if self._cst_samples(node, quiet, evaluated))
            if any(id(node) not in samples and self.runs_step(node.body)
                   and (not steps or self._cst_trains(node)) for node, _ in nested):
                facts = (True, samples)  # beside a step loop (one that trains, when the body evaluates): R1
            elif not steps and samples:
                facts = (True, frozenset())  # its only nested step loops make samples: as before R1
        self._cst_epoch[id(loop)] = (loop, facts)
        return facts

    def _cst_trains_over_loader(self, loop) -> bool:
        """The libcst twin of ``_ast_trains_over_loader``."""
        if not isinstance(loop, cst.For):
            return False
        if not hands_out_loaders(_unwrapped_cst(loop.iter)) and (
                self.iterates_loader(loop.iter) or _last(loop.iter) in self.wrapped_loaders):
            return self.runs_update(loop.body)
        return any(isinstance(node, (cst.For, cst.While)) and self._cst_trains_over_loader(node)
                   for node in descendants(loop.body, prune=lambda n: n is not loop.body and (
                       _is_definition(n) or isinstance(n, (cst.For, cst.While)))))

    def _cst_trains(self, loop) -> bool:
        """The libcst twin of ``_ast_trains``."""
        return ((isinstance(loop, cst.For) and (self.iterates_loader(loop.iter)
                                                 or _last(loop.iter) in self.wrapped_loaders))
                or self.runs_update(loop.body))

    def _cst_grad_off(self, expr) -> bool:
        target = expr.func if isinstance(expr, cst.Call) else expr
        dotted = _cst_dotted(target)
        return turns_grad_off(canonical(self.table.resolve(dotted)), dotted)

    def _cst_samples(self, loop, quiet: bool, evaluated: FrozenSet[str]) -> bool:
        if isinstance(loop, cst.For) and (self.iterates_loader(loop.iter)
                                          or _last(loop.iter) in self.wrapped_loaders
                                          or _cst_slices_by_counter(loop)
                                          or _unwrapped_cst(loop.iter) in self.batch_sources):
            return False
        pending: List[Tuple[cst.CSTNode, bool]] = [(loop.body, quiet)]
        found = False
        while pending:
            node, inner = pending.pop()
            if _is_definition(node):
                continue
            if isinstance(node, cst.For) and (self.iterates_loader(node.iter)
                                              or _last(node.iter) in self.wrapped_loaders):
                return False
            if isinstance(node, cst.Call) and self.is_step_call(node):
                if not _cst_evaluates(node, inner, evaluated):
                    return False
                found = True
            if isinstance(node, cst.With) and any(self._cst_grad_off(item.item) for item in node.items):
                pending.append((node.body, True))
                continue
            pending.extend((child, inner) for _, child in children(node))
        return found


def _ast_slices_by_counter(loop) -> bool:
    """Does the ``for`` loop's own body bind a name to a slice, by the loop's counter, of data it
    does not make (``batch = val_buffer[i * bs:(i + 1) * bs]``)? Each time round takes a batch: an
    evaluation over data (R7), not sample generation (R1; OfflineRL's validation, holdout58)."""
    if not isinstance(loop.target, ast.Name):
        return False
    counter = loop.target.id
    # (names the body's own statements bind, as the libcst twin reads them)
    made = {t.id for stmt in loop.body if isinstance(stmt, ast.Assign) for t in stmt.targets if isinstance(t, ast.Name)}
    for stmt in loop.body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Subscript)):
            continue
        data = stmt.value.value
        if isinstance(data, ast.Name) and data.id in made:
            continue
        if any(isinstance(n, ast.Slice) and any(isinstance(m, ast.Name) and m.id == counter for m in ast.walk(n))
               for n in ast.walk(stmt.value.slice)):
            return True
    return False


def _cst_slices_by_counter(loop) -> bool:
    """The libcst twin of ``_ast_slices_by_counter``."""
    if not isinstance(loop.target, cst.Name) or not isinstance(loop.body, cst.IndentedBlock):
        return False
    counter = loop.target.value
    statements = [small for line in loop.body.body if isinstance(line, cst.SimpleStatementLine) for small in line.body]
    made = {t.target.value for small in statements if isinstance(small, cst.Assign)
            for t in small.targets if isinstance(t.target, cst.Name)}
    for small in statements:
        if not (isinstance(small, cst.Assign) and isinstance(small.value, cst.Subscript)):
            continue
        data = small.value.value
        if isinstance(data, cst.Name) and data.value in made:
            continue
        if any(isinstance(element.slice, cst.Slice) and any(
                isinstance(n, cst.Name) and n.value == counter for n in descendants(element.slice))
               for element in small.value.slice):
            return True
    return False


def _ast_evaluated_names(calls) -> FrozenSet[str]:
    """Last names of the receivers of ``X.eval()`` among ``calls`` (a model put in eval mode)."""
    return frozenset(_last_ast(c.func.value) for c in calls
                     if isinstance(c.func, ast.Attribute) and c.func.attr == "eval" and not c.args)


def _cst_evaluated_names(calls) -> FrozenSet[str]:
    return frozenset(_last(c.func.value) for c in calls
                     if isinstance(c.func, cst.Attribute) and c.func.attr.value == "eval" and not c.args)


def _ast_fresh_iterator(expr) -> bool:
    """``iter(loader)`` written inside ``next(...)``: a new pass over the loader each time, of
    which ``next`` takes the first batch (CVQ-VAE's ``images, _ = next(iter(test_loader))`` once per
    epoch for its reconstructions): one sample batch, not a stream of steps (R165)."""
    return (type(expr) is ast.Call and type(expr.func) is ast.Name and expr.func.id == "iter"
            and len(expr.args) == 1 and not expr.keywords)


def _cst_fresh_iterator(expr) -> bool:
    """The libcst twin of ``_ast_fresh_iterator``."""
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "iter"
            and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star)


def _cst_evaluates(call: cst.Call, quiet: bool, evaluated: FrozenSet[str]) -> bool:
    """The libcst twin of ModuleSteps._ast_evaluates."""
    func = call.func
    if isinstance(func, cst.Attribute):
        if func.attr.value in ("backward", "step"):
            return False
        name = _last(func.value) if func.attr.value == "forward" else func.attr.value
    else:
        if isinstance(func, cst.Name) and func.value == "next":
            return False
        name = _last(func)
    return quiet or name in evaluated


def _cst_dotted(expr) -> Optional[str]:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = _cst_dotted(expr.value)
        return f"{head}.{expr.attr.value}" if head else None
    return None


# ---- retry loops (libcst) ------------------------------------------------------------------------
def _leaves(statements, kinds) -> bool:
    """Does any of ``statements`` (not looking into nested loops or definitions) leave by ``kinds``?"""
    for statement in statements:
        for node in descendants(statement, prune=lambda n: isinstance(n, (cst.For, cst.While)) or _is_definition(n)):
            if isinstance(node, kinds):
                return True
    return False


def _handler_leaves(handler) -> bool:
    """Does an ``except`` handler end by leaving the loop (``raise``, ``return``, ``break``)?"""
    body = handler.body.body if isinstance(handler.body, cst.IndentedBlock) else [handler.body]
    if not body:
        return False
    last = body[-1]
    small = last.body if isinstance(last, cst.SimpleStatementLine) else ()
    return any(isinstance(part, (cst.Raise, cst.Return, cst.Break)) for part in small)


def is_retry_loop(loop) -> bool:
    """A loop that tries again after an error: its body has a ``try`` that catches one and goes round
    again, or that leaves the loop on success (``while bs: ...; try: return run(bs) except
    RuntimeError: bs //= 2``). Freeing the cache there makes room for the next attempt."""
    for node in descendants(loop.body, prune=lambda n: isinstance(n, (cst.For, cst.While)) or _is_definition(n)):
        if not isinstance(node, (cst.Try, cst.TryStar)) or not node.handlers or _only_frees_memory(node.body):
            continue
        success = list(node.body.body) + (list(node.orelse.body.body) if node.orelse is not None else [])
        if _leaves(success, (cst.Return, cst.Break)):
            return True
        if any(not _handler_leaves(h) and not _catches_lookup_errors_only(h) for h in node.handlers):
            return True
    return False


# Calls that free memory: a ``try`` around them alone (``try: torch.cuda.empty_cache() except:
# pass``, transformer-uncertainty's copy of run_glue, holdout97) guards the call, retrying nothing.
_FREEING_CALLS = frozenset(("empty_cache", "collect", "ipc_collect", "synchronize"))


def _only_frees_memory(block) -> bool:
    statements = [line for statement in block.body
                  for line in (statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement])]
    return bool(statements) and all(
        isinstance(line, cst.Expr) and isinstance(line.value, cst.Call) and _last(line.value.func) in _FREEING_CALLS
        for line in statements)


# Errors of looking a name or key up: a handler for them picks a fallback (UCTransNet's ``try:
# loss_name = criterion._get_name() except AttributeError: loss_name = criterion.__name__``,
# holdout67); it makes no attempt again.
_LOOKUP_ERRORS = frozenset(("AttributeError", "KeyError", "IndexError", "NameError", "ImportError",
                            "ModuleNotFoundError", "LookupError",
                            # ... and the end of an iterator: ``try: batch = next(it) except
                            # StopIteration: it = iter(loader); batch = next(it)`` starts the loader
                            # again and takes the next batch; the step is not attempted again
                            # (StableAnimator's two alternating loaders, holdout115, R61)
                            "StopIteration"))


def _catches_lookup_errors_only(handler) -> bool:
    caught = handler.type
    names = [e.value for e in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return caught is not None and all(_last(n) in _LOOKUP_ERRORS for n in names)


# ---- ast helpers -------------------------------------------------------------------------------
def _unpacked(assigns, tuple_factories) -> Iterator:
    """(assignment or None, last names bound, value) for each assignment (the value of ``x if test
    else None`` is ``x``), and for each item of a tuple unpacked into as many targets:
    ``train_dl, val_dl = DataLoader(a), DataLoader(b)``, or ``train_loader, val_loader = build(...)``
    where the module's ``build`` returns loaders (the item's DataLoader call stands for its value;
    items that are not loaders are left out)."""
    for node in assigns:
        value = node.value
        if isinstance(value, ast.IfExp):  # ``self._prepare_dataloader(ds) if ds else None``
            made = [b for b in (value.body, value.orelse) if not (isinstance(b, ast.Constant) and b.value is None)]
            if len(made) == 1:
                value = made[0]
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)):
            elements = targets[0].elts
            items = None
            if isinstance(value, (ast.Tuple, ast.List)):
                items = value.elts
            elif isinstance(value, ast.Call) and _last_ast(value.func) in tuple_factories:
                items = tuple_factories[_last_ast(value.func)]
            if items is not None and len(items) == len(elements) and not any(
                    isinstance(e, ast.Starred) for e in (*elements, *(i for i in items if i is not None))):
                for element, item in zip(elements, items):
                    if item is not None:
                        yield None, list(_target_last_names(element)), item
                continue
        yield node, [n for t in targets for n in _target_last_names(t)], value


def _unwrapped_ast(expr):
    """``x`` of ``enumerate(x)``/``tqdm(x, ...)`` (wrappers that hand out its items one by one)."""
    while isinstance(expr, ast.Call) and _last_ast(expr.func) in _ONE_BY_ONE and expr.args:
        expr = expr.args[0]
        if isinstance(expr, ast.NamedExpr):
            expr = expr.value
    return _last_ast(expr)


def _unwrapped_cst(expr):
    while isinstance(expr, cst.Call) and _last(expr.func) in _ONE_BY_ONE and expr.args:
        expr = expr.args[0].value
        if isinstance(expr, cst.NamedExpr):
            expr = expr.value
    return _last(expr)


# Wrappers that hand out the items of their first argument one at a time.
_ONE_BY_ONE = frozenset(("enumerate", "tqdm", "trange", "iter", "progress_bar", "track"))


def _last_ast(node) -> Optional[str]:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _empty_container(value) -> bool:
    """``{}``, ``[]``, ``dict()``, ``OrderedDict()``: an empty dict or list, to be filled."""
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, ast.List):
        return not value.elts
    return (isinstance(value, ast.Call) and not value.args and not value.keywords
            and _last_ast(value.func) in ("dict", "list", "OrderedDict"))


def _target_last_names(target) -> Iterator[str]:
    if isinstance(target, (ast.Name, ast.Attribute)):
        yield _last_ast(target)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_last_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_last_names(target.value)


def _pins(call: ast.Call, pinning: FrozenSet[str] = frozenset()) -> bool:
    """``pin_memory=True``, or ``**kwargs`` of a name the module binds to settings that pin
    (``pinning``: ``kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}``, the
    PyTorch examples' and pytorch-flows' form: pinned whenever a GPU runs it)."""
    return _sets_pin_memory(call.keywords) or any(
        k.arg is None and isinstance(k.value, ast.Name) and k.value.id in pinning for k in call.keywords)


def _sets_pin_memory(keywords) -> bool:
    return any(k.arg == "pin_memory" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in keywords)


def _pinning_settings(assigns) -> FrozenSet[str]:
    """Names assigned a dict of loader settings that pins: a ``{..., "pin_memory": True}`` display,
    ``dict(..., pin_memory=True)``, or a conditional expression with one in a branch."""
    found = set()
    for stmt in assigns:
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if isinstance(target, ast.Name) and _pinning_value(stmt.value):
            found.add(target.id)
    return frozenset(found)


def _pinning_value(value) -> bool:
    if isinstance(value, ast.IfExp):
        return _pinning_value(value.body) or _pinning_value(value.orelse)
    if isinstance(value, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "pin_memory" and isinstance(v, ast.Constant)
                   and v.value is True for k, v in zip(value.keys, value.values))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return _sets_pin_memory(value.keywords)
    return False


_TENSOR_DATASETS = ("TensorDataset", "StackDataset")


def _bindings_by_line(assigns, tuple_factories) -> Dict[str, List[Tuple[int, bool]]]:
    """name -> (line, whether the binding holds tensors moved to an accelerator, as
    ``_holds_device_tensors`` reads a dataset's arguments: ``x.cuda()``, ``x.to(device)``) of each of
    its bindings in ``assigns`` (a tuple unpacked item by item: ``all_input_ids, all_label_ids =
    all_input_ids.to(device), all_label_ids.to(device)``)."""
    found: Dict[str, List[Tuple[int, bool]]] = {}
    for node in assigns:
        # (an assignment the module scan made up has no line: it counts as above every use, not moved)
        line = getattr(node, "lineno", 0)
        for _, names, value in _unpacked((node,), tuple_factories):
            moved = line > 0 and value is not None and _holds_device_tensors(value)
            for name in names:
                found.setdefault(name, []).append((line, moved))
    return found


def _last_bound_to_move(bindings, line: int) -> bool:
    """Is the binding nearest above ``line`` (of those ``_bindings_by_line`` lists) a move? (SUMBT
    binds its feature tensors, then moves them, then builds the dataset: holdout217; R187)"""
    above = [b for b in bindings if b[0] < line]
    return bool(above) and max(above)[1]


def _holds_device_tensors(expr) -> bool:
    """``TensorDataset(x.cuda(), y.to(device))``'s arguments: tensors already on an accelerator."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "cuda":
                return True
            if node.func.attr == "to" and node.args and not (
                isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("cpu")
            ):
                return True
        if isinstance(node, ast.keyword) and node.arg == "device":
            return True
    return False


def _close(found: Set[str], calls: Dict[str, Set[str]]) -> None:
    """Add to ``found`` every function that calls one of ``found`` (``calls``: name -> callees)."""
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in found and not called.isdisjoint(found):
                found.add(name)
                changed = True


def _ast_body_nodes(stmts) -> Iterator[ast.AST]:
    """The nodes of ``stmts``, not looking into nested definitions (which are yielded)."""
    return walk_ast(stmts, prune=_DEFINITIONS)


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Functions a framework runs by itself, whatever the file's own uses of their names say.
_CALLED_BY_FRAMEWORKS = frozenset(("training_step", "train_step", "compute_loss", "forward", "step",
                                   "validation_step", "test_step", "predict_step", "prediction_step"))
_DEFINITIONS_SET = frozenset(_DEFINITIONS)
_LOOP_TYPES = (ast.For, ast.AsyncFor, ast.While)
_DEFINITIONS_AND_LOOPS = _DEFINITIONS + _LOOP_TYPES


# Loop counters: ``i``, ``step``, ``global_step``, ``batch_idx``, ``batch_i`` and ``ni`` (yolov5), ``it``,
# Lightning's old ``batch_nb`` (MVSNet_pl's ``if batch_nb == 0:``), ``batch_cnt`` (MOSS's ``if batch_cnt == 1:``),
# ``num_updates``. Not ranks:
# ``if rank == 0:`` runs every step on rank 0.
_COUNTER = re.compile(
    r"^(?:[ijkn]|ni|it|iters?|iteration|idx|\w*_idx|\w*steps?|\w*_iters?|\w*_iteration|epoch\w*|count\w*|\w*_count|\w*_?cnt"
    r"|num_updates|\w*_updates?|\w*batch_i|\w*batch_(?:nb|num|no|number)|[ij]_batch(?:es)?)$",
    re.I,
)


def is_counter_name(name: Optional[str]) -> bool:
    return (bool(name) and _COUNTER.search(name) is not None and "rank" not in name.lower()
            and _PICKS_NO_STEP.search(name) is None)


# Indices a step is handed that pick no step: Lightning's ``optimizer_idx`` (which optimizer this
# call steps: ``if optimizer_idx == 1:`` runs on every step of the discriminator) and
# ``dataloader_idx`` (which validation loader the batch came from).
_PICKS_NO_STEP = re.compile(r"^(?:optimizer|opt|dataloader|loader)_idx$", re.I)


# The counters of steps and batches alone (``step``, ``global_step``, ``batch_idx``, ``iteration``):
# not ``i``/``idx``, which also count layers and samples (``if i in self.out_indices:`` in a
# forward picks layers, every step).
_STEP_OR_BATCH_COUNTER = re.compile(
    r"^(?:\w*steps?|\w*batch_idx|\w*batch_ids?|\w*batch_i|\w*batch_(?:nb|num|no|number)|iters?|iteration|\w*_iters?"
    r"|\w*_iteration|num_updates|[ij]_batch(?:es)?)$",
    re.I,
)


def is_step_or_batch_counter(name: Optional[str]) -> bool:
    return bool(name) and _STEP_OR_BATCH_COUNTER.search(name) is not None


def _ast_runs_update(stmts, steps: Optional["ModuleSteps"] = None) -> bool:
    """``.backward()`` or an optimizer's/scaler's ``.step(...)`` in ``stmts`` (gradient accumulation);
    with ``steps``, also a call of a function or method of the module that runs one."""
    return any(type(n) is ast.Call and _ast_call_updates(n, steps) for n in _ast_body_nodes(stmts))


# Calls whose name says they step the optimizer (``self._step_optimizer()``, ``optimizer_step()``),
# wherever they are defined: a project base class in another module, which the file's own facts do
# not show (nougat-latex-ocr's ``BaseExperiment._step_optimizer``, holdout186; R161).
_STEPS_OPTIMIZER = re.compile(r"^_*(?:step_optim(?:izer)?s?|optim(?:izer)?s?_step)$")


def steps_optimizer_by_name(name: Optional[str]) -> bool:
    """Does a call of ``name`` step the optimizer by its name alone (``_step_optimizer``)?"""
    return bool(name) and _STEPS_OPTIMIZER.match(name) is not None


def _ast_call_updates(call: ast.Call, steps: Optional["ModuleSteps"] = None) -> bool:
    """Is ``call`` ``.backward()``, an optimizer's/scaler's ``.step(...)``, a call named for stepping
    the optimizer (R161) or (with ``steps``) a call of a function or method of the module that runs
    one?"""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("backward", "step") and is_step_shape(
            func.attr, _last_ast(func.value), None, ()):
        return True
    if steps_optimizer_by_name(_last_ast(func)):
        return True
    return steps is not None and _last_ast(func) in steps.updating_functions and (
        (type(func) is ast.Name and steps._is_function(None, func.id, False))
        or (type(func) is ast.Attribute and type(func.value) is ast.Name
            and steps._is_function(func.value.id, func.attr, True)))


def interval_properties(tree) -> FrozenSet[Tuple[str, str]]:
    """(qualified class name, property) for each ``@property`` of a class of the file that returns
    only interval tests (``if self.is_active:`` with ``return (self.batch_idx % self.update_freq) == 0``:
    matsciml's callbacks, holdout66): the test is that interval, written once."""
    found = set()
    pending = [(node, "") for node in getattr(tree, "body", ())]
    while pending:
        node, prefix = pending.pop()
        if isinstance(node, ast.ClassDef):
            name = prefix + node.name
            pending.extend((child, name + ".") for child in node.body)
            for stmt in node.body:
                if not (isinstance(stmt, ast.FunctionDef) and any(
                        isinstance(d, ast.Name) and d.id == "property" for d in stmt.decorator_list)):
                    continue
                returns = [n for n in ast.walk(stmt) if isinstance(n, ast.Return)]
                if returns and all(r.value is not None and _ast_tests_interval(r.value) for r in returns):
                    found.add((name, stmt.name))
    return frozenset(found)


def _ast_tests_interval(test, outer_counters: FrozenSet[str] = frozenset(),
                        interval_names: FrozenSet[str] = frozenset()) -> bool:
    """The ast twin of syntax.tests_interval: ``%`` anywhere, a name holding such a test, or a
    counter compared with a number (not a plain name among ``outer_counters``: ``if fold == 0:``
    holds for a whole fold), equal to it or, for the first few steps, below it."""
    shards: list = []  # the test's shard splits, worked out at its first ``%`` (_ast_step_modulo)
    for n in walk_ast((test,)):  # any node: the order does not matter (walk_ast: no generator per node)
        kind = type(n)
        if (kind is ast.BinOp or kind is ast.Call) and _ast_step_modulo(n, test, shards):
            return True
        if kind is ast.Name and n.id in interval_names:
            return True
        if kind is ast.Attribute and n.attr in TRAINER_CONTROL_FLAGS and _last_ast(n.value) == "control":
            return True  # ``if self.control.should_log:`` (syntax.tests_interval, R174)
        if kind is not ast.Compare or len(n.ops) != 1:
            continue
        op, left, right = n.ops[0], n.left, n.comparators[0]
        if isinstance(op, ast.In):
            # ``if batch_idx in self.val_log_indices:``, ``if step + 1 in log_steps:``: chosen
            # steps (rules.md "An interval": a test on the step or batch counter), not every step
            left = _ast_unshifted(left)
            if (isinstance(left, (ast.Name, ast.Attribute)) and is_step_or_batch_counter(_last_ast(left))
                    and not (isinstance(left, ast.Name) and left.id in outer_counters)):
                return True
            continue
        if isinstance(op, ast.Eq):
            sides = (left, right)
            if any(_ast_fixed_index(a) for a in sides) and any(
                isinstance(a, (ast.Name, ast.Attribute)) and is_counter_name(_last_ast(a))
                and not (isinstance(a, ast.Name) and a.id in outer_counters)
                for a in sides
            ):
                return True
            if any(_ast_shifted_counter(a, outer_counters) and _ast_bound(b) for a, b in (sides, sides[::-1])):
                return True
            if any(_ast_step_counter(a, outer_counters) and _ast_setting(b) for a, b in (sides, sides[::-1])):
                return True  # ``train_step == args.pretrain_steps`` (syntax._step_counter, R142)
            continue
        if isinstance(op, (ast.Gt, ast.GtE)):
            left, right = right, left
        elif not isinstance(op, (ast.Lt, ast.LtE)):
            continue
        if (isinstance(left, ast.Name) and isinstance(right, ast.Constant) and type(right.value) is int
                and is_counter_name(left.id) and left.id not in outer_counters):
            return True
        if (isinstance(left, ast.Attribute) and isinstance(right, ast.Constant) and type(right.value) is int
                and is_step_or_batch_counter(left.attr)):
            return True  # ``if self.global_step < 5:`` (syntax._first_steps)
    return False


def _ast_step_modulo(n, test, shards: list) -> bool:
    """Is ``n`` (a node of ``test``) a ``%`` of the step, not a process's share (``shards`` holds
    the test's shard splits once asked), or ``np.mod`` (``%`` by another name: ChangeFormer's
    ``np.mod(self.batch_id, 100) == 1``)?"""
    kind = type(n)
    if kind is ast.BinOp:
        if not isinstance(n.op, ast.Mod):
            return False
        if not shards:
            shards.append(_ast_shard_splits(test))
        return id(n) not in shards[0]
    return (kind is ast.Call and type(n.func) is ast.Attribute and n.func.attr in MODULO_FUNCTIONS
            and type(n.func.value) is ast.Name and n.func.value.id in MODULO_OWNERS)


def ast_tests_periodic(test) -> bool:
    """The ast twin of syntax.tests_periodic: a ``%`` of the step (not a process's share) or
    ``np.mod`` in ``test``."""
    shards: list = []
    return any(_ast_step_modulo(n, test, shards) for n in walk_ast((test,)))


def ast_tests_first_steps_by_setting(test) -> bool:
    """The ast twin of syntax.tests_first_steps_by_setting (R166): ``j < args.num_plots``, also an
    operand of ``and``."""
    if isinstance(test, ast.BoolOp):
        return isinstance(test.op, ast.And) and any(ast_tests_first_steps_by_setting(v) for v in test.values)
    sides = ast_less_than_sides(test)
    if sides is None:
        return False
    left, right = sides
    return isinstance(left, ast.Name) and is_counter_name(left.id) and _ast_setting(right)


def _ast_step_counter(node, outer_counters: FrozenSet[str]) -> bool:
    return (isinstance(node, (ast.Name, ast.Attribute)) and is_step_or_batch_counter(_last_ast(node))
            and not _ast_setting(node) and not (isinstance(node, ast.Name) and node.id in outer_counters))


def _ast_setting(node) -> bool:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return isinstance(node, ast.Name) and setting_root([node.id, *reversed(parts)])


def _ast_shard_splits(test) -> set:
    """syntax._shard_splits on the ast: ``x % world_size != rank`` (R70), ``rank % n`` (R115)."""
    found = set()
    for node in walk_ast((test,)):
        if type(node) is ast.BinOp and isinstance(node.op, ast.Mod) and is_process_rank(_last_ast(node.left)):
            found.add(id(node))  # ``rank % ngpus_per_node == 0``: a test of the process (R115)
        if type(node) is ast.Compare and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            sides = (node.left, node.comparators[0])
            for modulo, other in (sides, sides[::-1]):
                if (type(modulo) is ast.BinOp and isinstance(modulo.op, ast.Mod)
                        and is_shard_split(_last_ast(modulo.right), _last_ast(other))):
                    found.add(id(modulo))
    return found


def _ast_unshifted(node):
    """``step`` of ``step + 1`` / ``step - 1``; any other node as it is."""
    if (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))
            and isinstance(node.right, ast.Constant) and type(node.right.value) is int):
        return node.left
    return node


def _ast_shifted_counter(node, outer_counters: FrozenSet[str]) -> bool:
    """The ast twin of syntax._shifted_counter: ``step + 1``, ``self.global_step + 1``."""
    inner = _ast_unshifted(node)
    return (inner is not node and isinstance(inner, (ast.Name, ast.Attribute)) and is_counter_name(_last_ast(inner))
            and not (isinstance(inner, ast.Name) and inner.id in outer_counters))


def _ast_bound(node) -> bool:
    """The ast twin of syntax._bound: a number, a length, a name or a setting's attribute."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "len"
    return isinstance(node, (ast.Name, ast.Attribute)) or _ast_fixed_index(node)


def _ast_fixed_index(node) -> bool:
    """The ast twin of syntax._fixed_index: a number, ``len(x) - 1``, ``nb - 1``."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        right, left = node.right, node.left
        if not (isinstance(right, ast.Constant) and type(right.value) is int):
            return False
        if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len":
            return True
        return isinstance(left, ast.Name) and not is_counter_name(left.id)
    return False


def assigned_values(nodes) -> Dict[str, List]:
    """Name -> the values the assignments among ``nodes`` give it (None where the value is not the
    name's own: a tuple target, an augmented assignment): what names_holding reads."""
    values: Dict[str, List] = {}
    for node in nodes:
        kind = type(node)
        if kind is ast.Assign:
            for target in node.targets:
                if type(target) is ast.Name:
                    values.setdefault(target.id, []).append(node.value)
                else:
                    for name in bound_names(target):
                        values.setdefault(name, []).append(None)
        elif kind is ast.AnnAssign and type(node.target) is ast.Name:
            values.setdefault(node.target.id, []).append(node.value)
        elif kind is ast.AugAssign and type(node.target) is ast.Name:
            values.setdefault(node.target.id, []).append(None)
    return values


def _ast_interval_names(body, outer_counters: FrozenSet[str]) -> FrozenSet[str]:
    """The ast twin of syntax.interval_names."""
    values = assigned_values(walk_ast(body, prune=_DEFINITIONS))
    return names_holding(values, lambda value, found: _ast_tests_interval(value, outer_counters, found))


def names_holding(values: Dict[str, List], is_test) -> FrozenSet[str]:
    """The names whose every assigned value (None: not a plain value) passes ``is_test(value,
    names found so far)``: found again until nothing changes, so names built from other such
    names count in any order (shared by the libcst and the ast side)."""
    found: Set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, assigned in values.items():
            if name not in found and all(value is not None and is_test(value, frozenset(found)) for value in assigned):
                found.add(name)
                changed = True
    return frozenset(found)


def _ends_in_break(body) -> bool:
    """Does a loop's body (a libcst block) end in an unconditional ``break`` or ``return``?"""
    statements = getattr(body, "body", ())
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], (cst.Break, cst.Return))
    return False
