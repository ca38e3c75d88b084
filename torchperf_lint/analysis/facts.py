"""Module-level facts some rules need ("does this module build BatchNorm?").

They are about the whole file, while libcst parses only the units that can match; so they are read
from the ``ast`` tree flake8 already has, in one pass, and only the first time a rule asks.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from . import edit_reuse
from .edit_reuse import statement_part
from .in_memory import in_memory_class_assignments, value_kind
from .names import (AUTOCASTS, SCALERS, SUBCLASSED_LOADERS, ImportTable, canonical, dotted_name_ast, is_torch_name,
                    turns_grad_off)

_BATCHNORM = frozenset(
    "torch.nn." + n for n in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d",
                              "LazyBatchNorm2d", "LazyBatchNorm3d", "SyncBatchNorm")
)
_LOADERS = frozenset(("torch.utils.data.DataLoader",))
_ACCELERATORS = ("cuda", "xpu", "mps", "hpu", "npu")
_DEPRECATED_AMP = ("torch.cuda.amp.", "torch.cpu.amp.")
# Words that show a module deals with reduced precision in some way (TPL305 stays silent then).
_PRECISION_WORDS = frozenset(("autocast", "GradScaler", "half", "bfloat16", "float16", "amp", "bf16",
                              "fp16", "mixed_precision", "precision"))



# Calls that choose the device when the script runs (so a CPU-only run is possible). HF
# Accelerate's `Accelerator()` picks CUDA when there is one: `.to(accelerator.device)` is then the
# same run-time choice as `torch.accelerator.current_accelerator()`.
_RUNTIME_DEVICE_CHOICE = frozenset((
    "torch.cuda.is_available", "torch.accelerator.is_available", "torch.accelerator.current_accelerator",
    "accelerate.Accelerator",
))
_DEVICE_WORD = re.compile(r"cuda|gpu|device|cpu|accelerator", re.I)
_BATCH_NAME = re.compile(r"batch|^(?:x|y|xb|yb|inputs?|data|images?|imgs?|targets?|labels?|samples?|src|tgt|"
                         r"features|feats|tokens|input_ids|sequences?)$", re.I)


def _root_name(node: ast.AST) -> Optional[str]:
    """``batch["x"].float`` -> ``batch``; ``self.data[0]`` -> ``data``."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return node.attr
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class _Collector(ast.NodeVisitor):
    def __init__(self, facts: "ModuleFacts"):
        self.facts = facts
        self._no_grad = 0  # depth of no_grad/inference_mode contexts around the current node
        self._conditional = 0  # depth of if statements and conditional expressions
        self._functions: list = []  # names of the functions around the current node
        self._if_tests: list = []  # tests of the if statements / expressions around the current node
        self._callees: dict = {}  # function name -> all its call sites run without autograd

    def _is_no_grad(self, expr: ast.AST) -> bool:
        """``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(...)`` (or the bare decorator)."""
        target = expr.func if isinstance(expr, ast.Call) else expr
        return turns_grad_off(self._qualname(target), dotted_name_ast(target))

    def _qualname(self, node: ast.AST) -> Optional[str]:
        return canonical(self.facts.table.resolve(dotted_name_ast(node)))

    def _assigned(self, target: ast.AST, value: Optional[ast.AST]) -> None:
        """Record what a name is bound to (None: something unknown), for the dataset judgement."""
        if isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(
                target.elts) else [None] * len(target.elts)
            for element, element_value in zip(target.elts, values):
                self._assigned(element, element_value)
            return
        if isinstance(target, ast.Starred):
            target, value = target.value, None
        name = dotted_name_ast(target)
        if name:
            self.facts.assignments.append((name, value))  # None: a value the module does not show

    def _is_dtype(self, expr: Optional[ast.AST]) -> bool:
        """A dtype, as syntax.device_kind reads a ``.to()`` argument on the libcst side:
        ``torch.float16`` (a ``torch.<name>``), or a name that says it holds one (``weight_dtype``)."""
        qual = self._qualname(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        if is_torch_name(qual) and qual.count(".") == 1:
            return True
        name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""
        return "dtype" in name.lower()

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        for target in node.targets:
            self._assigned(target, value)
            if _takes_next_item(value) or (
                isinstance(value, (ast.Subscript, ast.Attribute)) and _root_name(value) in self.facts.loop_targets
            ) or (
                isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Name)
                and value.id in self.facts.loop_targets
            ):
                # ``real = next(loader)``, ``pixel_values = batch["pixel_values"]``, ``inp, lab =
                # data``: a batch (or a part of one), as a ``for`` target would be
                self._loop_target(target)
        if isinstance(value, ast.Call) and self._qualname(value.func) == "torch.utils.data.DistributedSampler":
            for target in node.targets:
                name = dotted_name_ast(target)
                if name:
                    self.facts.sampler_names.add(name.rsplit(".", 1)[-1])
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        facts = self.facts
        func = node.func
        if isinstance(func, ast.Name) and func.id == "map" and node.args and isinstance(node.args[0], ast.Lambda):
            # ``map(lambda t: t.cuda(), (x, y))``: the lambda's parameter takes each item in turn
            for arg in node.args[0].args.args:
                facts.loop_targets.add(arg.arg)
        qual = self._qualname(func)
        callee = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if callee is not None:
            self._callees[callee] = self._callees.get(callee, True) and self._no_grad > 0
        if isinstance(func, ast.Name) and func.id in ("isinstance", "issubclass"):
            return  # a type test is not a use
        if isinstance(func, ast.Name) and qual is not None and qual.startswith(_DEPRECATED_AMP):
            facts.deprecated_amp_sites.setdefault(func.id, []).append(node)
            if self._in_version_branch():
                facts.deprecated_amp_in_fallback.add(func.id)
        attr = func.attr if isinstance(func, ast.Attribute) else None
        if attr == "convert_sync_batchnorm":
            facts.converts_syncbn = True
        elif attr == "set_epoch":
            facts.calls_set_epoch = True
            facts.set_epoch_receivers.add((dotted_name_ast(func.value) or "?").rsplit(".", 1)[-1])
        elif attr == "update" and isinstance(func.value, (ast.Name, ast.Attribute)):
            receiver = dotted_name_ast(func.value) or ""
            if "scaler" in receiver.lower():
                facts.calls_scaler_update = True
            if len(node.args) + len(node.keywords) <= 1:
                # ``grad_scalar.update()`` (RECCE, holdout222): a scaler not named "scaler" is
                # known by what the rule saw it step (TPL302 asks for its last name here)
                facts.update_receivers.add(receiver.rsplit(".", 1)[-1])
        elif attr == "cuda":
            facts.moves_to_cuda = True
            facts.moves_to_cuda_conditionally |= self._conditional > 0
            facts.move_receivers.add(_root_name(func.value))
        elif attr == "to":
            for arg in list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "device"]:
                if self._is_dtype(arg):
                    continue  # ``x.to(weight_dtype)``, ``x.to(torch.float16)``: a cast, not a move
                if arg is not None:
                    facts.move_receivers.add(_root_name(func.value))
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    if arg.value.startswith(_ACCELERATORS):
                        facts.moves_to_cuda = True
                        facts.moves_to_cuda_conditionally |= self._conditional > 0
                elif arg is not None:
                    facts.moves_to_variable_device = True
        if qual in _LOADERS or qual in SUBCLASSED_LOADERS or (
                qual is None and isinstance(func, ast.Name) and func.id == "DataLoader"):
            for kw in node.keywords:
                if kw.arg == "pin_memory" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                    facts.pins_loader = True
                elif kw.arg is None:
                    facts.pins_loader = True  # ``**kwargs``: settings that may pin (step_loops._pins says which)
        if qual in SCALERS:
            facts.has_grad_scaler = True
        if qual in _RUNTIME_DEVICE_CHOICE:
            facts.checks_cuda_available = True
            facts.mentions_accelerator = True
        if qual == "torch.device" or qual == "torch.cuda.is_available":
            if qual == "torch.cuda.is_available" or any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith(_ACCELERATORS)
                for a in node.args
            ):
                facts.mentions_accelerator = True
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in _PRECISION_WORDS or "scaler" in node.id.lower():
            self._precision_word(node.id)
        qual = self._qualname(node)
        if qual is not None and qual.startswith(_DEPRECATED_AMP):
            uses = self.facts.deprecated_amp_name_uses
            uses[node.id] = uses.get(node.id, 0) + 1
        self._reference(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in _PRECISION_WORDS or "scaler" in node.attr.lower():
            self._precision_word(node.attr)
        if not self._reference(node):
            self.generic_visit(node)

    def _precision_word(self, word: str) -> None:
        self.facts.mentions_mixed_precision = True
        if "scaler" in word.lower():
            self.facts.mentions_scaler = True

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item)
        quiet = any(self._is_no_grad(item.context_expr) for item in node.items)
        self._no_grad += quiet
        for stmt in node.body:
            self.visit(stmt)
        self._no_grad -= quiet

    visit_AsyncWith = visit_With

    def _reference(self, node: ast.AST) -> bool:
        qual = self._qualname(node)
        if qual is None:
            return False
        facts = self.facts
        if qual in _BATCHNORM:
            facts.builds_batchnorm = True
        elif qual in SCALERS:
            facts.has_grad_scaler = True
        elif qual in AUTOCASTS:
            facts.has_autocast = True
        return is_torch_name(qual)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and node.value.startswith(_ACCELERATORS):
            self.facts.mentions_accelerator = True

    # Annotations are never uses.
    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node.target, node.value)
            self.visit(node.value)

    def visit_For(self, node: ast.For) -> None:
        self._assigned(node.target, None)
        self._loop_target(node.target)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._loop_target(node.target)
        self.generic_visit(node)

    def _loop_target(self, target: ast.AST) -> None:
        for child in ast.walk(target):
            if isinstance(child, ast.Name):
                self.facts.loop_targets.add(child.id)

    def visit_Return(self, node: ast.Return) -> None:
        # ``def make(): return TensorDataset(...)``: what a call of a module function gives back,
        # recorded as the pseudo-name ``make()`` for the dataset judgement (in_memory.classify).
        if self._functions:
            self.facts.assignments.append((self._functions[-1] + "()", node.value))
        self.generic_visit(node)

    def visit_Yield(self, node: ast.AST) -> None:
        # a generator: a call gives a generator, whatever it returns at the end
        if self._functions:
            self.facts.assignments.append((self._functions[-1] + "()", None))
        self.generic_visit(node)

    visit_YieldFrom = visit_Yield

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.facts.defined_names.add(node.name)
        self.facts.assignments.extend(in_memory_class_assignments(node))
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._assigned(node.target, None)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        # A move to CUDA under an ``if`` (``if args.cuda: x = x.cuda()``) may not run at all.
        self.visit(node.test)
        self._branch_on_device(node.test)
        self._conditional += 1
        self._if_tests.append(node.test)
        for stmt in node.body + node.orelse:
            self.visit(stmt)
        self._if_tests.pop()
        self._conditional -= 1

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.visit(node.test)
        self._branch_on_device(node.test)
        self._conditional += 1
        self._if_tests.append(node.test)
        self.visit(node.body)
        self.visit(node.orelse)
        self._if_tests.pop()
        self._conditional -= 1

    def _branch_on_device(self, test: ast.AST) -> None:
        # ``if args.cuda:``, ``if use_gpu:``, ``x.cuda() if cuda else x``: the script may run without a GPU.
        for node in ast.walk(test):
            word = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if word is not None and _DEVICE_WORD.search(word):
                self.facts.branches_on_device = True
                return

    def _in_version_branch(self) -> bool:
        """Under an ``if`` on the torch version (``if TORCH_2_4:``, ``if hasattr(torch, "amp")``)."""
        from .syntax import _VERSION_TEST

        return any(_VERSION_TEST.search(ast.unparse(test)) for test in self._if_tests)

    def visit_arg(self, node: ast.arg) -> None:
        return None

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.facts.defined_names.add(node.name)
        args = node.args
        for arg in (*getattr(args, "posonlyargs", ()), *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                self.facts.assignments.append((arg.arg, None))
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Name) and (self._qualname(decorator) or "").startswith(_DEPRECATED_AMP):
                self.facts.deprecated_amp_sites.setdefault(decorator.id, []).append(decorator)
        for child in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if child is not None:
                self.visit(child)
        quiet = any(self._is_no_grad(d) for d in node.decorator_list)
        self._no_grad += quiet
        self._functions.append(node.name)
        for child in node.body:
            self.visit(child)
        self._functions.pop()
        self._no_grad -= quiet

    visit_AsyncFunctionDef = visit_FunctionDef


_PARAMETER_ITERATORS = frozenset(("parameters", "named_parameters", "buffers", "named_buffers", "children", "modules"))


def _takes_next_item(value: Optional[ast.AST]) -> bool:
    """``next(it)``, but not ``next(iter(model.parameters()))`` (a parameter, not a batch)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "next"
            and value.args):
        return False
    inner = value.args[0]
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "iter" and inner.args:
        inner = inner.args[0]
    return not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                and inner.func.attr in _PARAMETER_ITERATORS)


class _AskedKinds:
    """The kinds known so far (``assigned_kinds``' names), recording what a judgement asks."""

    __slots__ = ("names", "asked")

    def __init__(self, names: dict):
        self.names = names
        self.asked: dict = {}

    def get(self, key, default=None):
        found = self.names.get(key)
        if key not in self.asked:
            self.asked[key] = None if found is None else frozenset(found)
        return default if found is None else found


def _remembered_kinds(memo, table):
    """``in_memory.value_kind`` for the language server: each value's kind kept with the kinds it
    asked about (as many as the rounds of ``assigned_kinds`` need), and reused while the value is
    the same node (a statement an edit did not touch), the import table is equal and the kinds it
    asked about are the same."""

    def kind_of(value, resolve, names):
        seen = memo.statement_part("facts.value_kinds", value, table, lambda _: [])
        for asked, kind in seen:
            if all(names.get(key) == found for key, found in asked):
                return kind
        recording = _AskedKinds(names)
        kind = value_kind(value, resolve, recording)
        seen.append((tuple(recording.asked.items()), kind))
        del seen[:-4]  # (the rounds of one lint; older answers are rarely asked again)
        return kind

    return kind_of


class _LoopTargets(set):
    """The loop targets one statement binds (the set's items), over those of the statements above
    it (``prior``): a question about those is recorded with its answer (``asked``), so that a
    statement's part can be kept while the statements above answer alike."""

    def __init__(self, prior):
        super().__init__()
        self.prior = prior
        self.asked: dict = {}

    def __contains__(self, name) -> bool:
        if set.__contains__(self, name):
            return True
        answer = name in self.prior
        self.asked[name] = answer
        return answer


class _StatementFacts:
    """What the collector finds in one top-level statement (the fields of ModuleFacts it fills)."""

    def __init__(self, table: ImportTable, prior: set):
        self.table = table
        for field in ModuleFacts._FIELDS:
            setattr(self, field, False)
        self.set_epoch_receivers, self.sampler_names, self.deprecated_amp_in_fallback = set(), set(), set()
        self.defined_names, self.move_receivers, self.update_receivers = set(), set(), set()
        self.deprecated_amp_name_uses: dict = {}
        self.deprecated_amp_sites: dict = {}
        self.assignments: list = []
        self.loop_targets = _LoopTargets(prior)
        self.callees: dict = {}

    def same_answers(self, prior: set) -> bool:
        """Would the statements above (``prior``: their loop targets) answer this statement's
        questions as they did when it was collected?"""
        return all((name in prior) == answer for name, answer in self.loop_targets.asked.items())


def _collected(stmt: ast.AST, table: ImportTable, prior: set) -> _StatementFacts:
    part = _StatementFacts(table, prior)
    collector = _Collector(part)
    collector.visit(stmt)
    part.callees = collector._callees
    part.loop_targets.prior = None  # (``prior`` grows with the statements below)
    return part


class ModuleFacts:
    """Computed on first access of any fact."""

    _FIELDS = (
        "builds_batchnorm", "converts_syncbn", "calls_set_epoch", "pins_loader", "moves_to_cuda",
        "moves_to_variable_device", "mentions_accelerator", "has_grad_scaler", "has_autocast",
        "calls_scaler_update", "mentions_scaler", "mentions_mixed_precision",
        "moves_to_cuda_conditionally", "checks_cuda_available", "branches_on_device",
    )

    _EXTRA = ("deprecated_amp_name_uses", "grad_free_callees", "set_epoch_receivers", "sampler_names",
              "assignments", "defined_names", "deprecated_amp_sites", "move_receivers", "loop_targets",
              "deprecated_amp_in_fallback", "update_receivers")

    # The oldest torch the project must run on, (major, minor) or None for no limit: set by the
    # engine from the front end's setting (rules ask through Rule.torch_has).
    target_torch = None

    def __init__(self, tree: ast.Module, table: ImportTable):
        self._tree = tree
        self.table = table
        self._done = False

    def __getattr__(self, name: str):
        # Only reached for facts not computed yet.
        if name in ModuleFacts._FIELDS + ModuleFacts._EXTRA and not self.__dict__.get("_done"):
            for field in ModuleFacts._FIELDS:
                setattr(self, field, False)
            self.set_epoch_receivers = set()  # last names of what .set_epoch() is called on
            self.sampler_names = set()  # last names that DistributedSamplers are assigned to
            # Names imported from torch.cuda.amp / torch.cpu.amp -> how often the module uses them.
            self.deprecated_amp_name_uses = {}
            # ... and the calls / bare decorators among those uses (TPL304 rewrites them all or none).
            self.deprecated_amp_sites = {}
            self.deprecated_amp_in_fallback = set()  # ... of which some sit in a version-check branch
            self.assignments = []  # (dotted target, value or None for unknown) in file order
            self.defined_names = set()  # names of the functions, methods and classes the file defines
            self.move_receivers = set()  # root names of what ``.cuda()`` / ``.to(x)`` is called on
            self.update_receivers = set()  # last names of what ``.update()`` (one argument at most) is called on
            self.loop_targets = set()  # names bound by ``for`` loops and comprehensions
            callees: dict = {}  # function name -> all its call sites run without autograd
            # One collector per top-level statement, in file order (its state is back to nothing
            # between them), each part merged as the module-wide collector would have left it;
            # the language server keeps the parts of the statements an edit did not touch.
            table = self.table
            prior = self.loop_targets  # the loop targets of the statements above the next one
            for stmt in self._tree.body:
                part = statement_part("facts.collector", stmt, table,
                                      lambda s: _collected(s, table, prior),
                                      lambda kept: kept.same_answers(prior))
                self._merge(part, callees)
            # Functions whose every call site in the module runs under no_grad/inference_mode.
            self.grad_free_callees = frozenset(name for name, quiet in callees.items() if quiet)
            self._done = True
            return getattr(self, name)
        raise AttributeError(name)

    def _merge(self, part: "_StatementFacts", callees: dict) -> None:
        """Add one statement's facts to the module's (``part`` stays as it is: it may be kept)."""
        for field in ModuleFacts._FIELDS:
            if getattr(part, field):
                setattr(self, field, True)
        for field in ("set_epoch_receivers", "sampler_names", "deprecated_amp_in_fallback", "defined_names",
                      "move_receivers", "update_receivers"):
            getattr(self, field).update(getattr(part, field))
        self.loop_targets.update(part.loop_targets)
        uses = self.deprecated_amp_name_uses
        for used, count in part.deprecated_amp_name_uses.items():
            uses[used] = uses.get(used, 0) + count
        sites = self.deprecated_amp_sites
        for used, nodes in part.deprecated_amp_sites.items():
            sites.setdefault(used, []).extend(nodes)
        self.assignments.extend(part.assignments)
        for callee, quiet in part.callees.items():
            callees[callee] = callees.get(callee, True) and quiet

    def dataset_kinds(self):
        """Dotted name -> kinds of the values assigned to it (in_memory.assigned_kinds), once."""
        kinds = self.__dict__.get("_dataset_kinds")
        if kinds is None:
            from .in_memory import assigned_kinds

            resolve = lambda dotted: canonical(self.table.resolve(dotted))  # noqa: E731
            memo = edit_reuse.current()
            if memo is None:
                kinds = assigned_kinds(self.assignments, resolve)
            else:
                kinds = assigned_kinds(self.assignments, resolve, _remembered_kinds(memo, self.table))
            self._dataset_kinds = kinds
        return kinds

    @property
    def moves_batches(self) -> bool:
        """Something that looks like a batch is moved (``.cuda()``/``.to(...)``): a name bound by a
        ``for`` loop or comprehension (``for x, y in loader``, ``{k: v.to(d) for k, v in b.items()}``),
        or one named like a batch (a step function's ``batch`` parameter). A module that only moves
        a model or an RL state leaves the moving of batches to someone else (Lightning)."""
        receivers = self.move_receivers - {None}
        return bool(receivers & self.loop_targets) or any(_BATCH_NAME.search(r) for r in receivers)

    @property
    def steps(self):
        """Models, loaders and the functions that run every step (step_loops.ModuleSteps), built on
        first use."""
        steps = self.__dict__.get("_steps")
        if steps is None:
            from .step_loops import ModuleSteps

            steps = self._steps = ModuleSteps(self._tree, self.table, self)
        return steps

    @property
    def moves_data_to_cuda(self) -> bool:
        """Batches reach a CUDA device: ``.cuda()``, ``.to("cuda")``, or ``.to(device)`` in a
        module that names an accelerator (``torch.device("cuda")``, ``torch.cuda.is_available()``)."""
        return self.moves_to_cuda or (self.moves_to_variable_device and self.mentions_accelerator)

    def derived(self, key: str, compute):
        """A fact one rule reads from the ast itself: ``compute(tree, table)``, run once per file and
        only when the rule first asks (most files never get that far)."""
        cache = self.__dict__.setdefault("_derived", {})
        if key not in cache:
            cache[key] = compute(self._tree, self.table)
        return cache[key]
