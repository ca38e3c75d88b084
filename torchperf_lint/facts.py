"""Module-level facts some rules need ("does this module build BatchNorm?").

They are about the whole file, while libcst parses only the units that can match; so they are read
from the ``ast`` tree flake8 already has, in one pass, and only the first time a rule asks.
"""

from __future__ import annotations

import ast
from typing import Optional

from .names import AUTOCASTS, SCALERS, ImportTable, canonical, dotted_name_ast, is_torch_name, turns_grad_off

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



class _Collector(ast.NodeVisitor):
    def __init__(self, facts: "ModuleFacts"):
        self.facts = facts
        self._no_grad = 0  # depth of no_grad/inference_mode contexts around the current node
        self._callees: dict = {}  # function name -> all its call sites run without autograd

    def _is_no_grad(self, expr: ast.AST) -> bool:
        """``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(...)`` (or the bare decorator)."""
        target = expr.func if isinstance(expr, ast.Call) else expr
        return turns_grad_off(self._qualname(target), dotted_name_ast(target))

    def _qualname(self, node: ast.AST) -> Optional[str]:
        return canonical(self.facts.table.resolve(dotted_name_ast(node)))

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if isinstance(value, ast.Call) and self._qualname(value.func) == "torch.utils.data.DistributedSampler":
            for target in node.targets:
                name = dotted_name_ast(target)
                if name:
                    self.facts.sampler_names.add(name.rsplit(".", 1)[-1])
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        facts = self.facts
        func = node.func
        qual = self._qualname(func)
        callee = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if callee is not None:
            self._callees[callee] = self._callees.get(callee, True) and self._no_grad > 0
        if isinstance(func, ast.Name) and func.id in ("isinstance", "issubclass"):
            return  # a type test is not a use
        attr = func.attr if isinstance(func, ast.Attribute) else None
        if attr == "convert_sync_batchnorm":
            facts.converts_syncbn = True
        elif attr == "set_epoch":
            facts.calls_set_epoch = True
            facts.set_epoch_receivers.add((dotted_name_ast(func.value) or "?").rsplit(".", 1)[-1])
        elif attr == "update" and isinstance(func.value, (ast.Name, ast.Attribute)):
            if "scaler" in (dotted_name_ast(func.value) or "").lower():
                facts.calls_scaler_update = True
        elif attr == "cuda":
            facts.moves_to_cuda = True
        elif attr == "to":
            for arg in list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "device"]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    if arg.value.startswith(_ACCELERATORS):
                        facts.moves_to_cuda = True
                elif arg is not None:
                    facts.moves_to_variable_device = True
        if qual in _LOADERS or (qual is None and isinstance(func, ast.Name) and func.id == "DataLoader"):
            for kw in node.keywords:
                if kw.arg == "pin_memory" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                    facts.pins_loader = True
        if qual in SCALERS:
            facts.has_grad_scaler = True
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
            self.visit(node.value)

    def visit_arg(self, node: ast.arg) -> None:
        return None

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for child in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if child is not None:
                self.visit(child)
        quiet = any(self._is_no_grad(d) for d in node.decorator_list)
        self._no_grad += quiet
        for child in node.body:
            self.visit(child)
        self._no_grad -= quiet

    visit_AsyncFunctionDef = visit_FunctionDef


class ModuleFacts:
    """Computed on first access of any fact."""

    _FIELDS = (
        "builds_batchnorm", "converts_syncbn", "calls_set_epoch", "pins_loader", "moves_to_cuda",
        "moves_to_variable_device", "mentions_accelerator", "has_grad_scaler", "has_autocast",
        "calls_scaler_update", "mentions_scaler", "mentions_mixed_precision",
    )

    _EXTRA = ("deprecated_amp_name_uses", "grad_free_callees", "set_epoch_receivers", "sampler_names")

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
            collector = _Collector(self)
            collector.visit(self._tree)
            # Functions whose every call site in the module runs under no_grad/inference_mode.
            self.grad_free_callees = frozenset(name for name, quiet in collector._callees.items() if quiet)
            self._done = True
            return getattr(self, name)
        raise AttributeError(name)

    @property
    def steps(self):
        """Models, loaders and the functions that run every step (step_loops.ModuleSteps), built on
        first use."""
        steps = self.__dict__.get("_steps")
        if steps is None:
            from .step_loops import ModuleSteps

            steps = self._steps = ModuleSteps(self._tree, self.table)
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
