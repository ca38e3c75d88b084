"""Step bodies (rules.md "A step body"): the functions of a file that run once per step, and why.

A step body is a framework step method (Lightning, Hugging Face ``Trainer``/trl and their callbacks,
Ignite), a function whose own body calls ``.backward()`` outside loops, or a function or method
called from one or from a step loop — in the same file or in another file of the project. The
index (project_index.py) gives each module's summary; this module follows the calls from the roots
of the modules that can reach the linted file (the file itself, and the modules that import it,
found by a text prefilter and confirmed by their summaries) and keeps, for each function of the
linted file that is reached, the call chain that reaches it (the shortest: a breadth-first walk).

Not step bodies: hooks that run per epoch or every N steps, ``predict_step``, code that runs once,
anything the project cannot see into (an installed package, ``self.trainer``).
"""

from __future__ import annotations

import ast
import builtins
import os
from collections import deque
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from .argument_places import HOST_KEY, UNKNOWN_KEY, passed_host, passed_host_values, passed_pinned
from .names import canonical
from .project_index import AUTOGRAD_FUNCTION, INSTANCE_KEY, Module, Project, content_digest, project_for, summarize
from .inference_calls import (EVALUATION_BRANCH, LIGHTNING_EVALUATION_STEPS, chain_level, chain_state, names_training,
                              runs_inference)
from .run_once import RunOnce, module_call_sites
from .step_callers import describe_performs, related_performs, step_performers

# Names a call may take from the builtins: never looked up in star-imported modules
_BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_"))

LIGHTNING_MODULE_STEPS = frozenset((
    "training_step", "validation_step", "test_step", "on_train_batch_start", "on_train_batch_end",
    "on_before_backward", "on_after_backward", "on_before_optimizer_step", "optimizer_step", "backward",
))
LIGHTNING_CALLBACK_STEPS = frozenset((
    "on_train_batch_start", "on_train_batch_end", "on_before_backward", "on_after_backward",
    "on_before_optimizer_step",
))
HF_TRAINER_STEPS = frozenset(("compute_loss", "training_step", "prediction_step"))
HF_EVALUATION_STEP = "prediction_step"
HF_PREPARED_INPUTS_STEP = "compute_loss"  # handed the inputs the Trainer moved (moved_batch_parameter)
HF_CALLBACK_STEPS = frozenset(("on_step_begin", "on_step_end", "on_substep_end", "on_pre_optimizer_step",
                               "on_optimizer_step"))
# The Lightning steps that are handed a batch the framework moved (not hooks: ``on_train_batch_end``
# is handed the outputs first).
LIGHTNING_BATCH_STEPS = frozenset(("training_step", "validation_step", "test_step", "predict_step"))
_STEP_METHODS = {"lightning": LIGHTNING_MODULE_STEPS, "lightning-callback": LIGHTNING_CALLBACK_STEPS,
                 "hf": HF_TRAINER_STEPS, "hf-callback": HF_CALLBACK_STEPS}
# How far the walk goes: modules that import the linted file, and how many summaries in all.
MAX_IMPORTER_DEPTH = 3
MAX_MODULES = 400
MAX_CHAIN = 12
_DATA_LOADER = "torch.utils.data.DataLoader"


# Lightning's own callbacks, subclasses of ``Callback`` a project derives from (scvi-tools'
# ``SaveCheckpoint(ModelCheckpoint)`` overrides ``on_train_batch_end``, holdout62).
LIGHTNING_CALLBACKS = frozenset((
    "Checkpoint", "ModelCheckpoint", "OnExceptionCheckpoint", "EarlyStopping", "LearningRateMonitor",
    "StochasticWeightAveraging", "BaseFinetuning", "BackboneFinetuning", "GradientAccumulationScheduler",
    "ModelSummary", "RichModelSummary", "ProgressBar", "RichProgressBar", "TQDMProgressBar", "Timer",
    "DeviceStatsMonitor", "BasePredictionWriter", "LambdaCallback", "ThroughputMonitor", "ModelPruning",
    "LearningRateFinder", "BatchSizeFinder", "SpikeDetection"))


# A base class in an installed package the project cannot see into (framework_kind knows none of it):
# a Lightning module built on a library's own LightningModule subclass (flowmm's
# ``MaterialsRFMLitModule(manifm.model_pl.ManifoldFMLitModule)``, holdout111) shows only that.
EXTERNAL_BASE = "external"
# ... not these: their classes are no framework's (``nn.Module``, ``object``, a ``Generic``).
_NOT_FRAMEWORK_HEADS = frozenset(("torch", "builtins", "typing", "abc", "collections", "enum", "dataclasses",
                                  "numpy", "object"))
_LIGHTNING_MODULES = ("lightning", "pytorch_lightning")


def _lightning_by_its_steps(module: Module, qual: str) -> bool:
    """A class whose framework base the project cannot see (R59): Lightning's when its module imports
    Lightning and the class itself defines ``training_step(self, batch, batch_idx, ...)``, the
    method Lightning calls with a batch and its index."""
    record = module.functions.get(f"{qual}.training_step")
    params = [p[0] for p in record.get("params", ())] if record is not None and record.get("cls") == qual else []
    if len(params) < 3 or params[0] != "self":
        return False
    return any(bound.split(".", 1)[0] in _LIGHTNING_MODULES for bound in module.bindings.values())


def framework_kind(qual: str) -> Optional[str]:
    """The framework base a fully qualified class name stands for, if any."""
    head = qual.split(".", 1)[0]
    last = qual.rsplit(".", 1)[-1]
    if head in ("lightning", "pytorch_lightning"):
        if last == "LightningModule":
            return "lightning"
        if last == "Callback" or last in LIGHTNING_CALLBACKS:
            return "lightning-callback"
    if head == "transformers":
        if last == "TrainerCallback":
            return "hf-callback"
        if last.endswith("Trainer"):
            return "hf"
    if head == "trl" and last.endswith("Trainer"):
        return "hf"
    if head == "ignite" and last == "Engine":
        return "ignite-engine"
    return None


# A function of the project: (path, qualified name); a class the same way.
Key = Tuple[str, str]
# One call on the way: (path, line, qualified name of the caller).
Hop = Tuple[str, int, str]


class Chain:
    """Why a function runs every step: the calls from a root to it (empty: it is a root)."""

    __slots__ = ("hops", "root_named", "framework", "framework_trains", "caller_steps_env", "grad_off", "trains",
                 "performs", "named_from", "returns_to_framework")

    def __init__(self, hops: Tuple[Hop, ...], root_named: bool, framework: bool, caller_steps_env: bool = False,
                 framework_trains: bool = False, grad_off: bool = False, trains: bool = True, performs: tuple = ()):
        self.hops = hops
        # A root that performs one step through its calls (step_callers, R18): the calls down to
        # the function that calls backward, which the message names.
        self.performs = performs
        # On the way: autograd is off, and the innermost loop trains (inference_calls.chain_state);
        # a chain with autograd off and no training loop runs inference only (R7).
        self.grad_off = grad_off
        self.trains = trains
        self.root_named = root_named  # the first caller is a step body itself (not a loop's owner)
        self.framework = framework  # a framework runs the root
        # ... and runs the backward and the optimizer step around it (Lightning, the HF Trainer and
        # their callbacks), so AMP, DDP and accumulation are its to run (rules.md "A step body").
        # Ignite's Engine only calls the function it was given: that function trains by itself.
        self.framework_trains = framework_trains
        # The direct caller steps an environment (``self.env.step(action)``): what the function
        # returns is needed on the host (rules.md "A step body": an environment's ``env.step``).
        self.caller_steps_env = caller_steps_env
        # The callers whose names may say the chain trains (_named_for_training): those after the
        # last call made in a branch that runs only in evaluation (``if stage == "val":
        # self.log_samples(...)`` in a ``shared_step``: the step's name says nothing of that branch).
        self.named_from = 0
        # Every caller up to a framework step returns what this function returns (``metrics =
        # self._get_all_metrics(batch); ...; return metrics`` in ``training_step``): the framework
        # gets it, for its loggers (rules.md "A step body": a Python container that the step returns
        # to its framework; R47.8).
        self.returns_to_framework = False

    def describe(self, project: Optional[Project]) -> str:
        if not self.hops:
            if self.performs:
                return describe_performs(self.performs, project.relative if project is not None else os.path.basename)
            return ""
        path, line, _ = self.hops[0]
        where = project.relative(path) if project is not None else os.path.basename(path)
        names = [hop[2].rsplit(".", 1)[-1] for hop in (self.hops if self.root_named else self.hops[1:])]
        via = f" via {' → '.join(names)}" if names else ""
        return f"called every step from {where}:{line}{via}"

    def related(self, project: Optional[Project]) -> Tuple[Tuple[str, int, str], ...]:
        """(path, line, note) per call on the way; the path as the project index knows it (absolute)."""
        if not self.hops and self.performs:
            return related_performs(self.performs)
        return tuple((path, line, f"called every step from here (in {caller.rsplit('.', 1)[-1]})")
                     for path, line, caller in self.hops)


def _named_for_training(qualname: str, chain: Chain) -> bool:
    """Does the function or a caller on its chain have a name that says it may train (``take_step``
    whose closure calls backward, a ``train_step`` in another file)? Such a chain may train even
    where the index sees no backward or optimizer step in its loops: R8 stays off there. Not on a
    chain with autograd off from its root (a ``@torch.no_grad()`` evaluation calling a metric's
    ``step``, 3detr's APCalculator): nothing there builds a graph to train on."""
    if chain.grad_off:
        return False
    return names_training(qualname.rpartition(".")[2]) or any(
        names_training(hop[2].rpartition(".")[2]) for hop in chain.hops[chain.named_from:])


def _from_evaluation_branch(chain: Chain, mode: int) -> Chain:
    """``chain`` (just extended by a call of ``mode``), its callers' names set aside when that
    call is made in a branch that runs only in evaluation."""
    if mode & EVALUATION_BRANCH:
        chain.named_from = len(chain.hops)
    return chain


_STAR_DEPTH = 2  # star re-exports followed by symbol()


class StepBodies:
    """The step bodies of one linted file, by qualified name, with their chains."""

    def __init__(self, project: Optional[Project], module: Module):
        self.project = project
        self.module = module
        self.bodies: Dict[str, Chain] = {}
        self._loaded: Dict[str, Module] = {module.path: module}
        self._budget = MAX_MODULES
        self._star_expanding: Set[str] = set()  # modules whose star imports symbol() is reading
        # Lightning step methods whose ``batch`` the framework has moved to the device (rules.md
        # "Where a value lives": a batch moved is on the device), and the HF Trainer's ``compute_loss(self, model, inputs, ...)``, which the Trainer's own
        # ``training_step``/``prediction_step`` hand ``self._prepare_inputs(inputs)`` (R152; not an
        # override of those two: each is handed the batch as the loader made it). (path, qualified
        # name) -> the position of that parameter
        self._moved_batch_steps: Dict[Key, int] = {}
        self._reachers: List[Module] = [module]
        self._memo: Dict[tuple, object] = {}  # without a project
        # Per function of the linted file: the literal arguments of each per-step call of it, by
        # parameter (functions called with values the index cannot see are in _unknown_arguments).
        self._arguments: Dict[str, List[Dict[str, object]]] = {}
        self._unknown_arguments: Set[str] = set()
        self._call_sites: Dict[str, list] = {}  # per function of the linted file: its per-step calls
        # (path, function, parameter) -> the project class its callers hand it (through_callers)
        self._parameter_classes: Dict[Tuple[str, str, str], Optional[Key]] = {}
        # (method of the linted file, attribute) -> is ``self.<attr>`` a project nn.Module (R90):
        # asked for every ``self.<attr>(...)`` call the walk meets
        self._module_attributes: Dict[Tuple[str, str], bool] = {}
        # Per function of the linted file: the parameters every per-step call hands a host value.
        self._host_parameters: Dict[str, FrozenSet[str]] = {}
        # ... and those every per-step call hands a value on the host that may be a batch or a
        # tensor (a loader batch not moved, a ``.cpu()`` copy: argument_places, R14).
        self._host_value_parameters: Dict[str, FrozenSet[str]] = {}
        self._pinned_parameters: Dict[str, FrozenSet[str]] = {}  # handed a pinned loader's batch (R155)
        # ... and which of the functions whose callers are not all seen a framework runs, or some
        # call hands splatted arguments (a root that calls backward itself is called by the project)
        self._framework_or_splatted: Set[str] = set()
        # Functions of the linted file reached by some chain that does not run inference only (R7).
        self._trained: Set[str] = set()
        # ... and by some chain whose loop trains (a backward or an optimizer step on the way; R8).
        self._training: Set[str] = set()
        try:
            self._compute()
        except RecursionError:
            self.bodies = {}

    # -- modules -----------------------------------------------------------------------------------
    def _load_named(self, name: str, load: bool = True) -> Optional[Module]:
        """The module ``name``; with ``load`` False only one already read (a call into a module
        that does not import the linted file, directly or not, cannot reach it: not read)."""
        if self.project is None:
            return self.module if name == self.module.name else None
        if name == self.module.name:
            return self.module
        path = self.project.path_of(name)
        if path is None:
            return None
        if not load:
            return self._loaded.get(os.path.abspath(path))
        return self._load_path(path)

    def _load_path(self, path: str) -> Optional[Module]:
        path = os.path.abspath(path)
        if path in self._loaded:
            return self._loaded[path]
        if self._budget <= 0 or self.project is None:
            return None
        self._budget -= 1
        module = self.project.module(path)
        if module is not None:
            self._loaded[path] = module
        return module

    def dependencies(self) -> List[Module]:
        """The other modules whose summaries these facts read (the finding cache checks them)."""
        return [m for p, m in self._loaded.items() if p != self.module.path]

    def _importer_closure(self) -> None:
        """The modules that import the linted file, up to MAX_IMPORTER_DEPTH levels (the project
        keeps who imports whom across the files of a run: project_index.Project.importer_closure)."""
        if self.project is None:
            return
        listed = set()
        for path, module, reaches in self.project.importer_closure(self.module, MAX_IMPORTER_DEPTH, self._budget):
            if path not in listed:  # (a path is listed again when it reaches a module of a later level)
                listed.add(path)
                self._budget -= 1
            if module is not None:
                self._loaded[path] = module
                if reaches:
                    self._reachers.append(module)

    # -- symbols -----------------------------------------------------------------------------------
    def symbol(self, dotted: Optional[str], depth: int = 0, load: bool = True) -> Optional[Tuple[str, Module, str]]:
        """("class"|"function", module, qualified name) of an absolute dotted name of the project.
        ``load``: read modules not read yet (base classes); calls only look among those read."""
        if not dotted or depth > 8:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self._load_named(".".join(parts[:cut]), load)
            if module is None:
                continue
            rest = parts[cut:]
            for length in range(len(rest), 0, -1):
                qual = ".".join(rest[:length])
                if qual in module.classes:
                    if length == len(rest):
                        return "class", module, qual
                    if length == len(rest) - 1:
                        method = self.find_method((module.path, qual), rest[-1])
                        if method is not None:
                            return "function", self._loaded[method[0]], method[1]
                    return None
                if qual in module.functions and length == len(rest):
                    return "function", module, qual
            if rest[0] in module.bindings:  # a re-export: ``from .models import Base`` in __init__.py
                again = module.bindings[rest[0]] + ("." + ".".join(rest[1:]) if len(rest) > 1 else "")
                if again != dotted:
                    return self.symbol(again, depth + 1, load)
            if (module.star_imports and depth < _STAR_DEPTH and module.path not in self._star_expanding
                    and rest[0] not in module.functions.get("<module>", {}).get("locals", {})):
                # a re-export through a star import: ``from .meters import *`` in dassl/utils/__init__.py,
                # then ``from dassl.utils import MetricMeter`` (the last star-imported module that
                # defines the name, as Python binds it). Two levels at most, and never through a
                # module whose stars are being read already (packages that star-import each other).
                self._star_expanding.add(module.path)
                try:
                    for star in module.star_imports:
                        if star.split(".", 1)[0] == dotted.split(".", 1)[0]:  # a module of the project
                            found = self.symbol(f"{star}.{'.'.join(rest)}", depth + 1, load)
                            if found is not None:
                                return found
                finally:
                    self._star_expanding.discard(module.path)
            locals_ = module.functions.get("<module>", {}).get("locals", {})
            if len(rest) == 2 and rest[0] in locals_:  # ``helper = Helper()`` at module level
                found = self._class_of(module, locals_[rest[0]])
                if found is not None:
                    method = self.find_method(found, rest[1])
                    if method is not None:
                        return "function", self._loaded[method[0]], method[1]
            return None
        return None

    def _class_of(self, module: Module, dotted: str, depth: int = 0) -> Optional[Key]:
        if dotted in module.classes:
            return module.path, dotted
        resolved = module.resolve(dotted)
        found = self.symbol(resolved)
        if found is None and resolved is None and module.star_imports and "." not in dotted:
            # ``from .BaseTrainer import *`` then ``class EditTrainer(BaseTrainer)`` (EasyEdit,
            # holdout63): the last star-imported project module that defines it, as Python binds it
            for star in reversed(module.star_imports):
                found = self.symbol(f"{star}.{dotted}")
                if found is not None:
                    break
        if found is not None and found[0] == "class":
            return found[1].path, found[2]
        if found is not None and found[0] == "function" and depth < 3:
            return self._class_returned(found[1], found[2], depth)
        return None

    def _class_returned(self, module: Module, qualname: str, depth: int) -> Optional[Key]:
        """The project class whose instance the function ``qualname`` of ``module`` returns from
        every ``return`` (a factory: ``def blip_pretrain(**kw): model = BLIP_Pretrain(**kw); return
        model``); None when a return gives something else or the returns disagree."""
        record = module.functions.get(qualname)
        made = record.get("retcls") if record is not None else None
        if not made or None in made:
            return None
        found = {self._class_of(module, dotted, depth + 1) for dotted in made}
        return found.pop() if len(found) == 1 and None not in found else None

    def mro(self, cls: Key) -> Tuple[List[Key], Set[str]]:
        """The project classes of ``cls``'s ancestry (itself first) and the framework bases met.
        Kept per project while no module changes (Project.memo): every file of a run asks about
        the same classes."""
        memo = self.project.memo if self.project is not None else self._memo
        known = memo.get(("mro", cls))
        if known is not None:
            order, kinds, read = known
            # the modules the ancestry was read from, and those a base's name was resolved in
            # (a star-imported module's imports), so that the finding cache depends on them
            for path in [path for path, _ in order] + read:
                if path not in self._loaded:
                    module = self.project.module(path) if self.project is not None else None
                    if module is None:
                        break
                    self._loaded[path] = module
            else:
                return order, kinds
        read: List[str] = []
        order, kinds = self._mro(cls, read)
        memo[("mro", cls)] = (order, kinds, read)
        return order, kinds

    def _mro(self, cls: Key, read: List[str]) -> Tuple[List[Key], Set[str]]:
        seen: Set[Key] = set()
        order: List[Key] = []
        kinds: Set[str] = set()
        pending = [cls]
        while pending and len(order) < 64:
            current = pending.pop(0)
            if current in seen:
                continue
            seen.add(current)
            module = self._loaded.get(current[0])
            record = module.classes.get(current[1]) if module is not None else None
            if record is None:
                continue
            order.append(current)
            for base in record["bases"]:
                qual = module.resolve(base)
                if qual is None:
                    found = self._class_of(module, base) if module.star_imports else None
                    if found is not None:
                        pending.append(found)  # a project class a star import brings
                        continue
                    # a framework base named through a star import of a project module that
                    # imports the framework (RWKV-infctx-trainer's ``class RWKV(L.LightningModule)``
                    # with ``import lightning as L`` in ``module/CoreDependencies.py``)
                    qual = self._star_bound(module, base, read)
                    if qual is None or framework_kind(qual) is None:
                        continue
                kind = framework_kind(qual)
                if kind is not None:
                    kinds.add(kind)
                    continue
                found = self._class_of(module, base)
                if found is not None:
                    pending.append(found)
                elif qual.split(".", 1)[0] not in _NOT_FRAMEWORK_HEADS:
                    kinds.add(EXTERNAL_BASE)  # a class of an installed package, which the project cannot see into
        return order, kinds

    def _star_bound(self, module: Module, dotted: str, read: List[str]) -> Optional[str]:
        """The absolute name ``dotted`` stands for in ``module`` through its star imports of project
        modules (the last first, as Python binds them; star imports of those, _STAR_DEPTH levels):
        the import that binds its first part there. The modules read are added to ``read``."""
        head, _, rest = dotted.partition(".")
        frontier, seen = [module], {module.path}
        for _ in range(_STAR_DEPTH):
            following = []
            for current in frontier:
                for name in current.star_imports:
                    target = self._load_named(name)
                    if target is None or target.path in seen:
                        continue
                    seen.add(target.path)
                    read.append(target.path)
                    bound = target.bindings.get(head)
                    if bound is not None:
                        return f"{bound}.{rest}" if rest else bound
                    following.append(target)
            frontier = following
        return None

    def _process_methods(self, order: List[Key]) -> List[str]:
        """The methods the classes of ``order`` (an ancestry) hand to their base's ``__init__``."""
        names: List[str] = []
        for current in order:
            module = self._loaded.get(current[0])
            record = module.classes.get(current[1]) if module is not None else None
            for name in (record or {}).get("process", ()):
                if name not in names:
                    names.append(name)
        return names

    def find_method(self, cls: Key, name: str, skip_first: bool = False) -> Optional[Key]:
        order, _ = self.mro(cls)
        for current in order[1:] if skip_first else order:
            module = self._loaded[current[0]]
            if name in module.classes[current[1]]["methods"]:
                return current[0], f"{current[1]}.{name}"
        return None

    def _instance_attr(self, cls: Key, attr: str) -> Optional[Key]:
        order, _ = self.mro(cls)
        for current in order:
            module = self._loaded[current[0]]
            made = module.classes[current[1]]["attrs"].get(attr)
            if made is not None:
                return self._class_of(module, made)
        return None

    def alternatives(self, ref: list, self_cls: Optional[Key], module: Optional[Module] = None,
                     record: Optional[dict] = None) -> tuple:
        """The other targets of ``self.<attr>.<method>(...)`` / ``self.<attr>(...)`` when ``__init__``
        binds the attribute to instances of several project classes in its branches (``if noisy:
        self.qnetwork_target = DDQN_C51(...) else: self.qnetwork_target = Dueling_C51Network(...)``,
        DQN-Atari-Agents, holdout178; R157): ``resolve`` gives the last class bound, these the others
        (the index's "alts"). So with ``for flow in self.flows: x = flow(x)`` over a container
        ``__init__`` fills with instances of several classes (VITS' flows, R158: the calling
        function's "instalts"). Empty for most calls."""
        if ref[0] == "inst" and module is not None and record is not None:
            others = record.get("instalts", {}).get(ref[1], ())
            found = (self._call_instance(self._class_of(module, made), ref[2]) for made in others)
            return tuple(target for target in found if target is not None)
        if ref[0] == "name" and module is not None and record is not None:
            # a local name bound to functions of the project (``spline_fn = rational_quadratic_spline``
            # / ``unconstrained_rational_quadratic_spline``): each one it may call (R158)
            names = record.get("fnlocals", {}).get(ref[1], ())
            found = (self.resolve(module, ["name", name, ref[2]], self_cls, self_cls) for name in names if name != ref[1])
            return tuple(target for target in found if target is not None)
        if self_cls is None or ref[0] not in ("selfattr", "self"):
            return ()
        if ref[0] == "self":
            if self.find_method(self_cls, ref[1]) is not None:
                return ()
            attr, method = ref[1], "__call__"
        else:
            attr, method = ref[1], ref[2]
        order, _ = self.mro(self_cls)
        for current in order:
            base_module = self._loaded[current[0]]
            cls_record = base_module.classes[current[1]]
            if attr in cls_record["attrs"]:
                found = (self._call_instance(self._class_of(base_module, made), method)
                         for made in cls_record.get("alts", {}).get(attr, ()))
                return tuple(target for target in found if target is not None)
        return ()

    def _function_attr(self, cls: Key, attr: str) -> Optional[Tuple[Key, Optional[Key]]]:
        """``self.loss_fn(...)`` where ``__init__`` (of the class or a project base) binds
        ``self.loss_fn = label_smoothed_nll_loss``, a function of that class's module (defined or
        imported): that function (Fengshenbang's DeltaLM)."""
        order, _ = self.mro(cls)
        for current in order:
            module = self._loaded[current[0]]
            name = module.classes[current[1]].get("fnattrs", {}).get(attr)
            if name is None:
                continue
            if name in module.functions:
                return (module.path, name), None
            found = self.symbol(module.resolve(name), load=False)
            if found is not None and found[0] == "function":
                return (found[1].path, found[2]), None
            return None
        return None

    def _call_instance(self, cls: Optional[Key], method: str) -> Optional[Tuple[Key, Key]]:
        if cls is None:
            return None
        if method == "__call__":
            found = self.find_method(cls, "__call__") or self.find_method(cls, "forward")
        else:
            found = self.find_method(cls, method)
        return (found, cls) if found is not None else None

    # -- calls -------------------------------------------------------------------------------------
    def resolve(self, module: Module, ref: list, self_cls: Optional[Key],
                own_cls: Optional[Key]) -> Optional[Tuple[Key, Optional[Key]]]:
        """(the function called, the class its ``self`` is) for a call recorded by the index."""
        kind = ref[0]
        if kind == "name":
            name, scope = ref[1], ref[2]
            # (``output = self(**batch)`` is not followed to the module's own ``forward``: measured
            # twice on every framework set, 2026-11-26 and 2026-11-27, it found 10 more pitfalls and
            # 23 more false findings, host needs in model ``forward``s TPL102 cannot see yet:
            # docs/precision.md, "The self(...) reach, measured again and reverted")
            own_scope = scope
            while scope:
                candidate = f"{scope}.{name}"
                # a class's body is no enclosing scope of its methods: a bare ``trades_loss(...)``
                # in the method ``Trainer.trades_loss`` calls the imported function, not the method
                if candidate in module.functions and (scope == own_scope or scope not in module.classes):
                    return (module.path, candidate), self_cls
                scope = scope.rpartition(".")[0]
            dotted = module.resolve(name)
            found = self.symbol(dotted, load=False)
            if dotted is None and module.star_imports and name not in _BUILTIN_NAMES:
                # ``from .utils import *`` then ``log_losses(...)``: the name of the last
                # star-imported project module that defines it, as Python binds it (the modules
                # are read to know which one does: an earlier one's name is shadowed)
                for star in module.star_imports:
                    found = self.symbol(f"{star}.{name}", load=True)
                    if found is not None:
                        break
            if found is not None and found[0] == "function":
                return (found[1].path, found[2]), None
            return None
        if kind == "dotted":
            head = ref[1].split(".", 1)[0]
            locals_ = module.functions.get("<module>", {}).get("locals", {})
            if head in locals_ and ref[1].count(".") == 1:
                return self._call_instance(self._class_of(module, locals_[head]), ref[1].split(".")[1])
            found = self.symbol(module.resolve(ref[1]), load=False)
            if found is not None and found[0] == "function":
                return (found[1].path, found[2]), None
            return None
        if kind == "self":
            if self_cls is None:
                return None
            method = self.find_method(self_cls, ref[1])
            if method is not None:
                return method, self_cls
            found = self._call_instance(self._instance_attr(self_cls, ref[1]), "__call__")
            return found if found is not None else self._function_attr(self_cls, ref[1])
        if kind == "selfattr":
            if self_cls is None:
                return None
            return self._call_instance(self._instance_attr(self_cls, ref[1]), ref[2])
        if kind == "super":
            if own_cls is None:
                return None
            method = self.find_method(own_cls, ref[1], skip_first=True)
            return (method, self_cls) if method is not None else None
        if kind == "inst":
            return self._call_instance(self._class_of(module, ref[1]), ref[2])
        return None

    def _read_update_helpers(self, module: Module) -> None:
        """Read the modules of the project helpers that functions of ``module`` hand an optimizer,
        outside loops and with autograd on, when the helper runs the backward itself
        (``update_params(self.optim, loss, ...)`` in a ``utils.py`` that imports nothing of the
        linted file's; R64): R18's walk up from the functions with their own backward (step_callers)
        then finds the caller, which performs one step through it. Kept per project while no module
        changes (Project.memo); the helpers' modules are read into this walk each time, so that the
        finding cache depends on them."""
        memo = self.project.memo if self.project is not None else self._memo
        key = ("update-helpers", module.path, module.digest)
        known = memo.get(key)
        if known is None:
            known = []
            for record in module.functions.values():
                if not record.get("updates"):
                    continue
                own = self._own_class(module, record)
                for index in record["updates"]:
                    path = self._backward_helper(module, record["calls"][index][0], own)
                    if path is not None and path not in known:
                        known.append(path)
            memo[key] = known
        for path in known:
            self._load_path(path)

    def _resolve_reading(self, module: Module, ref, own: Optional[Key]) -> Optional[Tuple[Key, Optional[Key]]]:
        """``resolve``, and for a plain or dotted name that does not resolve among the modules read,
        the function it names after reading its module: a helper's module need not import the
        linted file (calls otherwise look only among the modules read)."""
        target = self.resolve(module, ref, own, own)
        if target is None and ref[0] in ("name", "dotted"):
            found = self.symbol(module.resolve(ref[1]), load=True)
            target = ((found[1].path, found[2]), None) if found is not None and found[0] == "function" else None
        return target

    def _backward_helper(self, module: Module, ref, own: Optional[Key]) -> Optional[str]:
        """The path of the module of the project function ``ref`` calls if that function runs the
        backward outside loops (a backward function of the index), else None. Its module is read
        (a helper module need not import the linted file)."""
        target = self._resolve_reading(module, ref, own)
        if target is None:
            return None
        path, qual = target[0]
        helper_module = self._loaded.get(path) or self._load_path(path)
        if helper_module is None or qual not in helper_module.backward_functions:
            return None
        return path

    # -- the walk ----------------------------------------------------------------------------------
    def _compute(self) -> None:
        self._importer_closure()
        queue: deque = deque()
        seen: Dict[Tuple[Key, Optional[Key]], int] = {}

        def push(function: Key, self_cls: Optional[Key], chain: Chain, args: Optional[dict] = None) -> None:
            # A function is walked again when a chain of a higher level reaches it (inference only,
            # then evaluation with autograd on, then training): every visible way to it decides
            # whether it runs inference only (R7) and whether it trains at all (R8). Literal
            # arguments that close a branch on a parameter (``pguards``) make a walk of their own:
            # a call there with other arguments may take the branch.
            sig = self._guard_signature(function, args)
            level = chain_level(chain.grad_off, chain.trains or _named_for_training(function[1], chain))
            walked = seen.get((function, self_cls, sig))
            if walked is not None and walked >= level:
                return
            if len(chain.hops) > MAX_CHAIN:
                return
            seen[(function, self_cls, sig)] = level
            queue.append((function, self_cls, chain, args if sig else None))

        for module in list(self._reachers):
            for qual in module.based_classes:
                order, kinds = self.mro((module.path, qual))
                if EXTERNAL_BASE in kinds and not kinds.intersection(_STEP_METHODS) and _lightning_by_its_steps(
                        module, qual):
                    kinds = kinds | {"lightning"}
                if "ignite-engine" in kinds:
                    # an Engine subclass that hands one of its methods to ``Engine.__init__``: the
                    # engine runs it every iteration (MONAI's ``Workflow._iteration``, overridden by
                    # each trainer), as it runs the function given to ``Engine(...)``
                    for name in self._process_methods(order):
                        method = self.find_method((module.path, qual), name)
                        if method is not None:
                            push(method, (module.path, qual), self._engine_chain(method))
                for kind in sorted(kinds):
                    if kind not in _STEP_METHODS:
                        continue
                    for name in sorted(_STEP_METHODS[kind]):  # a set: sorted, so the chain is the same every run
                        method = self.find_method((module.path, qual), name)
                        if method is not None:
                            # evaluation steps: Lightning's validation/test steps, and the Hugging
                            # Face Trainer's prediction_step, which its evaluation loop runs with
                            # autograd off (BELLE's DPO metrics, R8)
                            evaluates = ((kind == "lightning" and name in LIGHTNING_EVALUATION_STEPS)
                                         or (kind == "hf" and name == HF_EVALUATION_STEP))
                            push(method, (module.path, qual), Chain((), True, True, framework_trains=True,
                                                                    grad_off=evaluates, trains=not evaluates))
                            if kind == "lightning" and name in LIGHTNING_BATCH_STEPS:
                                self._moved_batch_steps[method] = 1  # (self, batch, batch_idx)
                            elif kind == "hf" and name == HF_PREPARED_INPUTS_STEP:
                                self._moved_batch_steps[method] = 2  # (self, model, inputs, ...)
            for kind, ref, line in module.data["roots"]:
                if kind == "handed":
                    handed = self._handed_to_engine(module, ref)
                    if handed is not None:
                        push(handed, None, self._engine_chain(handed))
                    continue
                if ref[0] == "param":
                    continue  # matched from the caller's side, the "handed" root above
                if ref[0] == "def":
                    push((module.path, ref[1]), None, self._engine_chain((module.path, ref[1])) if kind == "engine"
                         else Chain((), True, True))
                    continue
                if ref[0] == "made":
                    made = self._made_function(module, ref[1])
                    if made is not None:
                        push(made, None, self._engine_chain(made))
                    continue
                scope_fn = module.functions.get(ref[-1] or "<module>", {})
                target = self.resolve(module, ref, self._own_class(module, scope_fn), None)
                if target is not None:
                    push(target[0], target[1], self._engine_chain(target[0]) if kind == "engine"
                         else Chain((), True, True))
        once = RunOnce(self)
        for module in list(self._reachers):
            for qual in module.backward_functions:
                if once.only_once((module.path, qual)):
                    continue  # R2: every visible caller runs it once
                push((module.path, qual), self._own_class(module, module.functions[qual]), Chain((), True, False))
        # Calls made in step loops: their callees are step bodies, with the loop's call as the chain.
        for module in list(self._reachers):
            for qual, (ref, line, _, constants, mode) in module.step_call_sites:
                record = module.functions[qual]
                if any(first <= line <= last for first, last in record.get("handlers", ())):
                    continue  # in an ``except`` handler of the loop: runs when a step failed
                own = self._own_class(module, record)
                target = self.resolve(module, ref, own, own) or self.through_callers(module, qual, record, ref)
                for target in ((target,) if target is not None else ()) + self.alternatives(ref, own, module, record):
                    self._note_arguments(target[0], ref, constants, (module, qual, line))
                    grad_off, trains = chain_state(mode, False, True, record["backward"])
                    # (the loop stops on what the call returns: the caller needs it on the host)
                    push(target[0], target[1], _from_evaluation_branch(Chain(
                        ((module.path, line, qual),), False, False, line in record.get("stops", ()),
                        grad_off=grad_off, trains=trains), mode), self._call_values(target[0], ref, constants))
        # Step loops a class inherits: a project base's loop that calls ``self.<m>(...)`` runs on an
        # instance of each subclass too, and there ``self.<m>`` is the subclass's own override, in
        # whatever file (trlx's ``AccelerateRLTrainer.learn`` calls ``self.loss``, which
        # ``AccelerateSFTTrainer`` overrides in another module).
        for module in list(self._reachers):
            for qual in module.classes:
                order, _ = self.mro((module.path, qual))
                looping = [base for base in order[1:] if getattr(self._loaded.get(base[0]), "step_call_sites", None)]
                if not looping:
                    continue  # (most classes: no project base runs a step loop)
                initialised = self._initialised_bases(order)
                for base in looping:
                    base_module = self._loaded[base[0]]
                    if base not in initialised:
                        continue
                    for fqual, (ref, line, _, constants, mode) in base_module.step_call_sites:
                        record = base_module.functions[fqual]
                        if ref[0] != "self" or record.get("cls") != base[1]:
                            continue
                        target = self.resolve(base_module, ref, (module.path, qual), base)
                        if target is None or target[0][0] != module.path:
                            continue  # the base's own method: reached from the base's loop as it is
                        grad_off, trains = chain_state(mode, False, True, record["backward"])
                        push(target[0], target[1], _from_evaluation_branch(Chain(
                            ((base_module.path, line, fqual),), False, False, grad_off=grad_off, trains=trains), mode))
        # R18: a function that performs one step through its calls is a root too, R2 applied to it;
        # after the step loops' calls, so that one called from a step loop keeps that chain. (R64:
        # with the modules of the helpers handed an optimizer read, wherever they are.)
        for module in list(self._reachers):
            self._read_update_helpers(module)
        for (path, qual), performs in step_performers(self, list(self._loaded.values())).items():
            module = self._loaded[path]
            if module in self._reachers and not once.only_once((path, qual)):
                push((path, qual), self._own_class(module, module.functions[qual]),
                     Chain((), True, False, performs=performs))
        while queue:
            function, self_cls, chain, args = queue.popleft()
            path, qual = function
            if path == self.module.path:
                if qual not in self.bodies:
                    self.bodies[qual] = chain
                    if not chain.hops:
                        self._unknown_arguments.add(qual)  # a root: its framework or caller is not seen
                        if chain.framework:
                            self._framework_or_splatted.add(qual)
                if not runs_inference(chain.grad_off, chain.trains):
                    self._trained.add(qual)
                if chain.trains or _named_for_training(qual, chain):
                    self._training.add(qual)
            module = self._loaded.get(path)
            record = module.functions.get(qual) if module is not None else None
            if record is None:
                continue
            own = self._own_class(module, record)
            # what a callee returns is needed on the host when this function steps an environment
            # with it, or stops its loop on it (an early stop: project_index's "stops")
            steps_env = _steps_env(record)
            stops = record.get("stops", ())
            passed_back = record.get("returns", ()) if chain.caller_steps_env else ()
            passed_up = record.get("returns", ()) if (
                (chain.framework and not chain.hops) or chain.returns_to_framework) else ()
            handlers = record.get("handlers", ())
            closed = _closed_branches(record, args)
            handed_on = _handed_on(record, args)
            for index, (ref, line, _, constants, mode) in enumerate(record["calls"]):
                if handlers and any(first <= line <= last for first, last in handlers):
                    continue  # in an ``except`` handler: runs when the step failed, not every step
                if closed and any(first <= line <= last for first, last in closed):
                    continue  # in a branch the arguments of this chain's call close
                target = (self.resolve(module, ref, self_cls or own, own)
                          or self.through_callers(module, qual, record, ref))
                for target in ((target,) if target is not None else ()) + self.alternatives(
                        ref, self_cls or own, module, record):
                    self._note_arguments(target[0], ref, constants, (module, qual, line))
                    grad_off, trains = chain_state(mode, chain.grad_off, chain.trains, record["backward"])
                    # what a callee returns reaches the environment too when this function hands
                    # it back as it is to a caller that steps one (``return self.get_action(s)``)
                    extended = Chain(chain.hops + ((path, line, qual),), chain.root_named, chain.framework,
                                     steps_env or line in passed_back or line in stops, chain.framework_trains,
                                     grad_off, trains)
                    extended.named_from = chain.named_from
                    extended.returns_to_framework = line in passed_up
                    push(target[0], target[1], _from_evaluation_branch(extended, mode),
                         self._call_values(target[0], ref, constants, handed_on.get(index)))

    def through_callers(self, module: Module, qual: str, record: dict,
                         ref: list) -> Optional[Tuple[Key, Optional[Key]]]:
        """``model(**batch)`` / ``model.loss(x)`` in ``train(opt, model, ...)``, where ``model`` is a
        parameter that every visible call of ``train`` hands a name bound to an instance of one
        project class (``model = inbatch.InBatch(opt)`` then ``train(opt, model)``: the index's
        "inst:" arguments): that class's ``forward``/method. None when a caller hands anything
        else, callers disagree, or none is seen (contriever, holdout18)."""
        if ref[0] == "name":
            parameter, method = ref[1], "__call__"
        elif ref[0] == "dotted" and ref[1].count(".") == 1:
            parameter, method = ref[1].split(".")
        else:
            return None
        params = [p[0] for p in record.get("params", ())]
        if parameter not in params or parameter in ("self", "cls"):
            return None
        # asked for every such call of the walk (``model(x)`` in each function it reaches): the
        # callers' answer is worked out once per function and parameter
        key = (module.path, qual, parameter)
        if key not in self._parameter_classes:
            self._parameter_classes[key] = self._class_handed(module, qual, params, parameter)
        found = self._parameter_classes[key]
        return self._call_instance(found, method) if found is not None else None

    def loader_parameter(self, qual: str, parameter: str) -> bool:
        """Does every visible call of the linted file's function ``qual`` (at least one, in any file
        of the project) hand ``parameter`` a name its caller binds to ``DataLoader(...)``
        (deeplabv3-plus's ``fit_one_epoch(..., gen, gen_val, ...)`` from ``train.py``)? The index's
        "inst:" arguments name the class an argument was built from."""
        module = self.module
        record = module.functions.get(qual)
        params = [p[0] for p in record.get("params", ())] if record is not None else []
        if parameter not in params:
            return False
        seen = False
        for caller_module, made in self._handed(module, qual, params, parameter):
            if not made or canonical(caller_module.resolve(made) or made) != _DATA_LOADER:
                return False
            seen = True
        return seen

    def _class_handed(self, module: Module, qual: str, params: List[str], parameter: str) -> Optional[Key]:
        """The one project class whose instances every visible call of ``qual`` hands ``parameter``."""
        found: Optional[Key] = None
        for caller_module, made in self._handed(module, qual, params, parameter):
            cls = self._class_of(caller_module, made) if made else None
            if cls is None or (found is not None and cls != found):
                return None
            found = cls
        return found

    def _handed(self, module: Module, qual: str, params: List[str], parameter: str):
        """(the calling module, the class an "inst:" argument names or None) for every visible call
        of ``module``'s function ``qual``, as the index recorded what it hands ``parameter``."""
        position = params.index(parameter)
        function = (module.path, qual)
        for caller_module in self._reachers:
            for caller_qual, caller, call in module_call_sites(caller_module).get(qual.rsplit(".", 1)[-1], ()):
                own = self._own_class(caller_module, caller)
                target = self.resolve(caller_module, call[0], own, own)
                if target is None or target[0] != function:
                    continue
                constants = dict(call[3])
                skip = 1 if params[0] in ("self", "cls") and call[0][0] != "name" else 0
                made = (constants.get(f"{INSTANCE_KEY}{position - skip}") if position >= skip else None) or \
                    constants.get(f"{INSTANCE_KEY}{parameter}")
                yield caller_module, made

    def _initialised_bases(self, order: List[Key]) -> List[Key]:
        """The classes of ``order`` (a class's MRO) whose ``__init__`` runs for an instance of its
        first: the MRO up to the first class that defines ``__init__`` without calling one further
        up (``super().__init__(...)``, ``Base.__init__(self, ...)``). The bases past it set up
        nothing for the instance, so their step loops do not run on it (AVSS's ``Inferencer``,
        holdout171, overrides ``BaseTrainer.__init__`` without calling it and runs its own no-grad
        loop; the base's training loop, which would call its ``process_batch``, is never its; R153)."""
        for index, (path, qual) in enumerate(order):
            owner = self._loaded.get(path)
            init = owner.functions.get(f"{qual}.__init__") if owner is not None else None
            if init is None:
                continue
            if not any((ref[0] == "super" and ref[1] == "__init__")
                       or (ref[0] == "dotted" and ref[1].endswith(".__init__"))
                       for ref, *_ in init.get("calls", ())):
                return order[:index + 1]
        return order

    def moved_batch_parameter(self, path: str, qualname: str) -> Optional[str]:
        """The name of the batch parameter of the Lightning step method ``qualname`` of ``path``
        (``training_step(self, batch, batch_idx)``: Lightning moves the batch to the module's
        device before the call), or of the inputs of an HF Trainer's ``compute_loss`` (R152), or None."""
        position = self._moved_batch_steps.get((path, qualname))
        if position is None:
            return None
        module = self._loaded.get(path)
        record = module.functions.get(qualname) if module is not None else None
        params = [p[0] for p in record.get("params", ())] if record is not None else []
        return params[position] if len(params) > position and params[0] == "self" else None

    def _made_function(self, module: Module, ref: list) -> Optional[Key]:
        """The nested function that the factory ``ref`` calls returns (``def get_step_fn(...): def
        step_fn(engine, batch): ...; return step_fn``), or None."""
        found = self.resolve(module, ref, None, None)
        if found is None:
            return None
        (path, qual), _ = found
        owner = self._loaded.get(path)
        record = owner.functions.get(qual) if owner is not None else None
        name = record.get("retdef") if record is not None else None
        made = f"{qual}.{name}" if name else None
        return (path, made) if made is not None and made in owner.functions else None

    def _engine_chain(self, function: Key) -> Chain:
        """The chain of an Ignite root: Ignite's ``Engine`` only calls the function, which trains by
        itself or not (its own backward: an evaluator's ``@torch.no_grad()`` step trains nothing)."""
        module = self._loaded.get(function[0])
        record = module.functions.get(function[1]) if module is not None else None
        return Chain((), True, True, trains=record is None or bool(record["backward"]))

    def _handed_to_engine(self, module: Module, handed: list) -> Optional[Key]:
        """The function of ``module`` that a call hands, at the position where the callee (a
        function of the project, in any file) hands its parameter to Ignite's ``Engine(...)``
        (FixMatch: ``trainers.create_trainer(train_step, ...)``; ``Engine(train_step)`` in
        ``trainers/basic.py``): the Engine's function, rules.md "A step body"."""
        ref, position, qualname = handed
        caller = module.functions.get(qualname.rpartition(".")[0] or "<module>")
        if caller is None or qualname not in module.functions:
            return None
        own = self._own_class(module, caller)
        target = self._resolve_reading(module, ref, own)  # (one module per handed function, which few calls are)
        if target is None:
            return None
        path, callee = target[0]
        callee_module = self._loaded.get(path)
        record = callee_module.functions.get(callee) if callee_module is not None else None
        if record is None:
            return None
        params = record.get("params", [])
        shift = 1 if params and params[0][0] in ("self", "cls") and ref[0] != "name" else 0
        for kind, root, _ in callee_module.data["roots"]:
            if kind == "ignite" and root[0] == "param" and root[1] == callee and root[2] - shift == position:
                return module.path, qualname
        return None

    def _note_arguments(self, function: Key, ref: list, constants: tuple, site: tuple = None) -> None:
        constants = dict(constants)  # kept as (key, value) pairs (project_index._frozen_summary)
        path, qual = function
        if path != self.module.path:
            return
        if site is not None:
            # (the calling module, function and line, the call's record): where return_kinds reads
            # an argument the index could not place (argument_places) from what a callee returned
            self._call_sites.setdefault(qual, []).append((*site, ref))
        record = self.module.functions.get(qual)
        if record is None or "*" in constants:
            self._unknown_arguments.add(qual)
            self._framework_or_splatted.add(qual)
            return
        params = record.get("params", [])
        host = passed_host(constants, params, ref[0] != "name")
        known = self._host_parameters.get(qual)
        self._host_parameters[qual] = host if known is None else known & host
        values = passed_host_values(constants, params, ref[0] != "name")
        known = self._host_value_parameters.get(qual)
        self._host_value_parameters[qual] = values if known is None else known & values
        pinned = passed_pinned(constants, params, ref[0] != "name")
        known = self._pinned_parameters.get(qual)
        self._pinned_parameters[qual] = pinned if known is None else known & pinned
        self._arguments.setdefault(qual, []).append(_literal_values(record, ref, constants))

    def _guard_signature(self, function: Key, args: Optional[dict]) -> Optional[tuple]:
        """What ``args`` say of the parameters the function's branches test (None: nothing)."""
        if not args:
            return None
        module = self._loaded.get(function[0])
        record = module.functions.get(function[1]) if module is not None else None
        if record is None:
            return None
        # the parameters its branches test, and those it hands on as they are to a call (whose
        # callee's branches may test them: flow-forecast's ``multi_crit(..., valid)``)
        tested = sorted({guard[2] for guard in record.get("pguards", ()) if guard[2] in args}
                        | {handed[0] for handed in record.get("argp", ()) if handed[0] in args})
        # a parameter compared with literals (``task == 'annotation'``), or handed on to a callee
        # that may compare it, makes a walk per value; one only tested for truth, per truth
        valued = {guard[2] for guard in record.get("pguards", ()) if type(guard[3]) is not str} | {
            handed[0] for handed in record.get("argp", ())}
        return tuple((name, args[name] is None, bool(args[name]), args[name] if name in valued else None)
                     for name in tested) or None

    def _call_values(self, function: Key, ref: list, constants, handed: Optional[dict] = None) -> Optional[dict]:
        """The literal arguments a call hands ``function``, by parameter, with ``handed`` (the
        caller's own parameters it hands on as they are, by position or keyword: their values in
        the caller's walk); None when it splats or the function tests and hands on nothing."""
        module = self._loaded.get(function[0])
        record = module.functions.get(function[1]) if module is not None else None
        if record is None or not (record.get("pguards") or record.get("argp")):
            return None
        constants = dict(constants)
        # A splat (``**self.eval_dict``, ``*rest``) may fill any parameter the call leaves out, so
        # no default stands; what the call passes as a literal stays (Python rejects a second value
        # for it: CellPLM's ``downstream_eval('annotation', ..., **self.eval_dict)``)
        splats = constants.pop("*", False)
        for key, value in (handed or {}).items():
            constants[key] = value
        return _literal_values(record, ref, constants, defaults=not splats)

    def per_step_arguments(self, qualname: str) -> Optional[List[Dict[str, object]]]:
        """The literal arguments of every per-step call of a step body of the linted file, by
        parameter; None when some call is not seen (a root, a splat)."""
        if qualname in self._unknown_arguments or qualname not in self._arguments:
            return None
        return self._arguments[qualname]

    def host_value_parameters(self, qualname: str) -> FrozenSet[str]:
        """The parameters of the linted file's step body ``qualname`` that every per-step call hands
        a value on the host, a batch or a tensor there included (R14); empty when some call is not
        seen."""
        if qualname in self._unknown_arguments:
            return frozenset()
        return self._host_value_parameters.get(qualname, frozenset())

    def pinned_parameters(self, qualname: str) -> FrozenSet[str]:
        """The parameters of the linted file's step body ``qualname`` that every per-step call hands
        a batch, or a field of one, of a loader the calling module makes with ``pin_memory=True``
        (R155); empty when a framework runs it or a call splats its arguments. A function that calls
        backward itself counts with the calls the project shows (another caller's batch would only
        be copied with ``non_blocking=True`` that has nothing to overlap: no harm)."""
        if qualname in self._framework_or_splatted:
            return frozenset()
        pinned = self._pinned_parameters.get(qualname, frozenset())
        record = self.module.functions.get(qualname)
        if pinned and qualname in self._unknown_arguments and record is not None:
            # a root (it calls backward itself): every call of it the read modules show, per step
            # or not, hands the pinned batch (``train_step(model, opt, torch.zeros(4))`` once
            # before the loop does not)
            params, name, key = record.get("params", []), qualname.rpartition(".")[2], (self.module.path, qualname)
            for module in list(self._loaded.values()):
                for caller, caller_record, call in module_call_sites(module).get(name, ()):
                    own = self._own_class(module, caller_record)
                    target = self.resolve(module, call[0], own, own)
                    if target is not None and target[0] == key:  # (not ``optimizer.step()`` for ``step``)
                        pinned = pinned & passed_pinned(dict(call[3]), params, call[0][0] != "name")
        return pinned

    def per_step_call_sites(self, qualname: str) -> Optional[list]:
        """(module, calling function, line, call record) of every per-step call of the linted file's
        step body ``qualname``; None when some call is not seen (a root, a splat, a framework)."""
        if qualname in self._unknown_arguments:
            return None
        return self._call_sites.get(qualname)

    def host_parameters(self, qualname: str) -> FrozenSet[str]:
        """The parameters of the linted file's step body ``qualname`` that every per-step call hands
        a value known to be on the host (argument_places; ``"*"``/``"**"``: every extra positional /
        keyword argument); empty when some call is not seen (a root, a splat, a framework)."""
        if qualname in self._unknown_arguments:
            return frozenset()
        return self._host_parameters.get(qualname, frozenset())

    @staticmethod
    def _own_class(module: Module, record: dict) -> Optional[Key]:
        cls = record.get("cls")
        return (module.path, cls) if cls else None

    # -- questions the rules ask -------------------------------------------------------------------
    def attribute_method(self, qualname: str, attr: str, method: str) -> Optional[dict]:
        """The index record of the method that ``self.<attr>.<method>(...)`` calls in the linted
        file's method ``qualname``, where ``__init__`` (of its class or a project base) binds
        ``self.<attr>`` to an instance of a project class, in any file; None otherwise."""
        record = self.module.functions.get(qualname)
        own = self._own_class(self.module, record) if record is not None else None
        if own is None or own[1] not in self.module.classes:
            return None
        found = self._call_instance(self._instance_attr(own, attr), method)
        module = self._loaded.get(found[0][0]) if found is not None else None
        return module.functions.get(found[0][1]) if module is not None else None

    def own_method(self, qualname: str, method: str) -> Optional[dict]:
        """The index record of the method ``self.<method>(...)`` calls in the linted file's method
        ``qualname``: its class's own, or a project base's; None otherwise (R160)."""
        record = self.module.functions.get(qualname)
        own = self._own_class(self.module, record) if record is not None else None
        if own is None or own[1] not in self.module.classes:
            return None
        found = self.find_method(own, method)
        module = self._loaded.get(found[0]) if found is not None else None
        return module.functions.get(found[1]) if module is not None else None

    def attribute_is_module(self, qualname: str, attr: str) -> bool:
        """Does ``__init__`` (of the class of the linted file's method ``qualname`` or a project
        base) bind ``self.<attr>`` to an instance of a project class deriving from a ``torch.nn``
        module (yolov9's ``self.assigner = TaskAlignedAssigner(...)``, imported from another module)?
        Calling it runs its ``forward``: a model's output."""
        record = self.module.functions.get(qualname)
        own = self._own_class(self.module, record) if record is not None else None
        if own is None or own[1] not in self.module.classes:
            return False
        key = (qualname, attr)
        known = self._module_attributes.get(key)
        if known is None:
            cls = self._instance_attr(own, attr)
            known = self._module_attributes[key] = cls is not None and self._ancestry_has_base(
                cls, lambda qual: qual.startswith("torch.nn."))
        return known

    def _ancestry_has_base(self, cls: Key, test) -> bool:
        """Does a class of ``cls``'s project ancestry name a base whose absolute name passes ``test``?"""
        for path, qual in self.mro(cls)[0]:
            module = self._loaded.get(path)
            record = module.classes.get(qual) if module is not None else None
            if record is not None and any(test(module.resolve(base) or "") for base in record["bases"]):
                return True
        return False

    def class_method(self, dotted: str, method: str) -> Optional[dict]:
        """The index record of ``method`` of the project class the linted file names ``dotted``
        (defined there or imported, from any file; found through its project bases), or None."""
        found = self._call_instance(self._class_of(self.module, dotted), method)
        module = self._loaded.get(found[0][0]) if found is not None else None
        return module.functions.get(found[0][1]) if module is not None else None

    def is_autograd_function(self, dotted: str) -> bool:
        """Is ``dotted``, as the linted file names it, a project class deriving from
        ``torch.autograd.Function`` (V-JEPA's ``AllReduce``)? Its ``apply(...)`` gives tensors."""
        cls = self._class_of(self.module, dotted)
        return cls is not None and self._ancestry_has_base(cls, AUTOGRAD_FUNCTION.__contains__)

    def chain(self, qualname: str) -> Optional[Chain]:
        return self.bodies.get(qualname)

    def runs_inference_only(self, qualname: str) -> bool:
        """Is the linted file's step body ``qualname`` reached only by chains that run with autograd
        off in a loop that trains nothing (inference_calls; R7)?"""
        return qualname in self.bodies and qualname not in self._trained

    def trains_nothing(self, qualname: str) -> bool:
        """Is the linted file's step body ``qualname`` reached only by chains whose loops train
        nothing (an evaluation or inference loop, Lightning's ``validation_step``/``test_step``),
        with autograd on or off (the lead's reading R8)?"""
        return qualname in self.bodies and qualname not in self._training

    def body_lines(self) -> List[int]:
        """The ``def`` lines of the linted file's step bodies (the engine's unit prefilter)."""
        functions = self.module.functions
        return [functions[q]["line"] for q in self.bodies if q in functions]

    def scope_prefix(self, node) -> str:
        """The qualified name of what holds ``node`` (a unit's first statement, e.g. a method whose
        unit libcst parses without its class), "" at module level."""
        line = getattr(node, "lineno", None)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or line is None:
            return ""
        table = self.module.classes if isinstance(node, ast.ClassDef) else self.module.functions
        for qual, record in table.items():
            if record["line"] == line and qual.rpartition(".")[2] == node.name:
                return qual.rpartition(".")[0]
        return ""

    def framework_trains_line(self, line: int) -> bool:
        """Is ``line`` of the linted file inside a function that a framework runs, with the backward
        and the optimizer step around it (so AMP, DDP and accumulation are the framework's)?"""
        functions = self.module.functions
        for qual, chain in self.bodies.items():
            record = functions.get(qual)
            if chain.framework_trains and record is not None and record["line"] <= line <= (record.get("end") or 0):
                return True
        return False

    def framework_runs(self, qualname: str) -> bool:
        chain = self.bodies.get(qualname)
        return chain is not None and chain.framework

    def shares_values_with_project(self) -> bool:
        """Can values cross between the linted file and other modules of the project: does a module
        of the project import it, or does it import one (host_only.host_only_script)?"""
        if len(self._reachers) > 1:
            return True
        if self.project is None:
            return False
        for bound in self.module.bindings.values():
            parts = bound.split(".")
            if any(self.project.path_of(".".join(parts[:cut])) is not None for cut in range(len(parts), 0, -1)):
                return True
        return False

    def callers_convert_syncbn(self, qualname: str) -> bool:
        """Every call of the linted file's function ``qualname`` from another module of the project
        sits in a function that converts BatchNorm to SyncBatchNorm (and there is at least one):
        TPL202's DDP helper (rules.md item "a project fact")."""
        callers = []
        for module in self._reachers:
            if module is self.module:
                continue
            for qual, record in module.functions.items():
                own = self._own_class(module, record)
                for ref, *_ in record["calls"]:
                    if ref[0] not in ("name", "dotted"):
                        continue
                    target = self.resolve(module, ref, own, own)
                    if target is not None and target[0] == (self.module.path, qualname):
                        callers.append(record)
        return bool(callers) and all(record["syncbn"] for record in callers)


def _literal_values(record: dict, ref: list, constants: dict, defaults: bool = True) -> Dict[str, object]:
    """The literal value of each parameter of ``record`` that a call (``constants``, the index's
    record of its arguments) hands it, or leaves at its literal default (not with ``defaults``
    False: a call that splats may fill it)."""
    params = record.get("params", [])
    if params and params[0][0] in ("self", "cls") and ref[0] != "name":
        params = params[1:]  # a method called on an object or class: ``self`` is not passed
    values: Dict[str, object] = {}
    for index, (name, default) in enumerate(params):
        if str(index) in constants:
            values[name] = constants[str(index)]
        elif name in constants:
            values[name] = constants[name]
        elif any(f"{mark}{key}" in constants for mark in (HOST_KEY, UNKNOWN_KEY) for key in (str(index), name)):
            continue  # passed, but not a literal
        elif defaults and not isinstance(default, dict):
            values[name] = default  # not passed: its literal default
    return values


_GUARD_HOLDS = {"truthy": bool, "falsy": lambda value: not value, "none": lambda value: value is None,
                "notnone": lambda value: value is not None}
_COMPARISON_HOLDS = {"eq": lambda value, literal: value == literal, "ne": lambda value, literal: value != literal,
                     "in": lambda value, literals: value in literals,
                     "notin": lambda value, literals: value not in literals}


def _guard_holds(wanted, value) -> bool:
    """Does a literal ``value`` of the parameter take the branch a guard (``pguards``) stands for?"""
    if type(wanted) is str:
        return _GUARD_HOLDS[wanted](value)
    return _COMPARISON_HOLDS[wanted[0]](value, wanted[1])


def _handed_on(record: dict, args: Optional[dict]) -> Dict[int, Dict[str, object]]:
    """Per call (by its index in ``record["calls"]``): the literal values, from ``args``, of the
    function's own parameters that the call is handed as they are (the index's ``argp``), by the
    position or keyword they take there."""
    found: Dict[int, Dict[str, object]] = {}
    if not args:
        return found
    for parameter, index, place in record.get("argp", ()):
        if parameter in args:
            found.setdefault(index, {})[place] = args[parameter]
    return found


def _closed_branches(record: dict, args: Optional[dict]) -> List[Tuple[int, int]]:
    """The line spans of the branches on a parameter (``pguards``) that ``args`` close."""
    if not args:
        return []
    return [(first, last) for first, last, name, wanted in record.get("pguards", ())
            if name in args and not _guard_holds(wanted, args[name])]


def _steps_env(record: dict) -> bool:
    """Does the function call ``env.step(...)`` (or ``self.env.step``, ``envs.step``)?"""
    for ref, *_ in record["calls"]:
        if ref[0] == "dotted" and ref[1].endswith(".step") and "env" in ref[1].rsplit(".", 2)[-2].lower():
            return True
        if ref[0] == "selfattr" and ref[2] == "step" and "env" in ref[1].lower():
            return True
    return False


def step_bodies_for(filename: str, source: str, tree: ast.Module, table=None, steps=None) -> StepBodies:
    """The step bodies of a linted file: its project's when it is a ``.py`` file in an existing
    folder, else those the file shows by itself. The index never stops a file's lint: should the
    project's facts fail (a bug of ours), the file's own are used, and failing those, none."""
    try:
        project = project_for(filename)
        if project is not None:
            return StepBodies(project, project.module_from_tree(filename, source, tree, table, steps))
    except Exception:  # noqa: BLE001 - the index must never cost a file its findings
        pass
    try:
        return StepBodies(None, Module("", filename or "<string>", summarize(tree, table, steps, source), content_digest(source),
                                       (-1, -1)))
    except Exception:  # noqa: BLE001
        return StepBodies(None, Module("", filename or "<string>", _EMPTY, "", (-1, -1)))


_EMPTY = {"v": "", "imports": [], "classes": {}, "functions": {}, "roots": [], "settings": False}


def dependency_stamps(bodies: Optional[StepBodies]) -> FrozenSet[Tuple[str, int, int, str]]:
    """(path, size, mtime_ns, digest) of the other modules the facts read."""
    if bodies is None:
        return frozenset()
    return frozenset((m.path, m.stamp[0], m.stamp[1], m.digest) for m in bodies.dependencies())
