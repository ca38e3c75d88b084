"""TPL401 benchmark-with-determinism: ``cudnn.benchmark = True`` next to a request for determinism."""

from __future__ import annotations

from typing import Dict, List, Tuple

import libcst as cst

from ..catalog import SAFE, UNSAFE
from ..findings import RuleFix
from ..analysis.syntax import is_true, keyword, positional
from ..analysis.walker import IF, Rule

CUDNN = "torch.backends.cudnn"


class BenchmarkWithDeterminism(Rule):
    code = "TPL401"
    message = (
        "`cudnn.benchmark = True` in the same code that asks for deterministic results: benchmarking "
        "picks convolution algorithms by timing, which may differ run to run; set `cudnn.benchmark = "
        "False` when results must be reproducible (runtime_guard: cudnn flags reconciled)"
    )
    prefilter = (("benchmark",), ("determinis",))

    def __init__(self, ctx, sink):
        super().__init__(ctx, sink)
        # frame node id -> [(kind, node, branch path)]
        self._events: Dict[int, List[Tuple[str, cst.CSTNode, Tuple[Tuple[int, int], ...]]]] = {}

    def _record(self, kind: str, node: cst.CSTNode) -> None:
        path = tuple((id(b.node), id(b.body)) for b in self.ctx.frame.blocks if b.kind == IF)
        self._events.setdefault(id(self.ctx.frame.node), []).append((kind, node, path))

    def visit_Assign(self, node: cst.Assign) -> None:
        if not is_true(node.value):
            return
        for target in node.targets:
            attr = target.target
            if isinstance(attr, cst.Attribute) and attr.attr.value in ("benchmark", "deterministic"):
                if self.ctx.qualname(attr.value) == CUDNN:
                    self._record(attr.attr.value, node)

    message_trainer = (
        "Lightning `Trainer(deterministic=True, benchmark=True)`: benchmarking picks cuDNN algorithms "
        "by timing, which may differ run to run, so the run is not reproducible; pass `benchmark=False` "
        "when results must be reproducible"
    )

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.ctx.qualname(node.func) or ""
        if qual.split(".", 1)[0] in ("lightning", "pytorch_lightning") and qual.rsplit(".", 1)[-1] == "Trainer":
            # A framework setting that is itself the pitfall is reported where it is written: at
            # ``benchmark=True``, as rules.md reports the ``benchmark = True`` assignment (a call
            # written over many lines names it on its own line: all-in-one, holdout140)
            deterministic, benchmark = keyword(node, "deterministic"), keyword(node, "benchmark")
            if (deterministic is not None and benchmark is not None and is_true(deterministic.value)
                    and is_true(benchmark.value)):
                self.report(benchmark, self.message_trainer)
            return
        if qual != "torch.use_deterministic_algorithms":
            return
        args = positional(node)
        mode = args[0] if args else keyword(node, "mode")
        if mode is not None and is_true(mode.value):
            self._record("deterministic", node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(self._events.pop(id(node), []))

    def leave_Module(self, node: cst.Module) -> None:
        self._check(self._events.pop(id(None), []))

    def _check(self, events) -> None:
        determinism = [path for kind, _, path in events if kind == "deterministic"]
        for kind, node, path in events:
            if kind != "benchmark":
                continue
            if any(not _exclusive(path, other) for other in determinism):
                fix = None
                if len(node.targets) == 1:
                    replacement = [(node.value, cst.Name("False"))]
                    if any(path[: len(other)] == other for other in determinism):
                        fix = RuleFix(SAFE, "set cudnn.benchmark = False", replacement)
                    else:
                        # ``if args.deterministic: cudnn.deterministic = True``: the runs that do not
                        # ask for determinism would lose benchmarking too.
                        fix = RuleFix(UNSAFE, "set cudnn.benchmark = False (determinism is asked for only "
                                      "under a condition: this turns benchmarking off in every run)", replacement)
                self.report(node, fix=fix)


def _exclusive(a, b) -> bool:
    """Two branch paths that part ways at one ``if``: different branches of it."""
    branches = dict(a)
    return any(node in branches and branches[node] != body for node, body in b)


RULE = BenchmarkWithDeterminism
RULE.VALID = (
    """
import torch
def fast():
    torch.backends.cudnn.benchmark = True
def reproducible():
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
""",
    """
import torch
import torch.backends.cudnn as cudnn
def setup(seed, deterministic):
    if deterministic:
        cudnn.deterministic = True
        torch.use_deterministic_algorithms(True)
    else:
        cudnn.benchmark = True
cudnn.benchmark = True                               # module level, alone in its block
""",
    """
import torch
torch.backends.cudnn.deterministic = args.deterministic    # a value we cannot see
torch.backends.cudnn.benchmark = True
""",
    """
import torch
import lightning.pytorch as pl
trainer = pl.Trainer(deterministic=True, benchmark=False)
fast = pl.Trainer(benchmark=True)
""",
)
RULE.INVALID = (
    """
import torch
def seed_everything(seed):
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = True  # TPL401
""",
    """
import torch
from torch.backends import cudnn
torch.use_deterministic_algorithms(True)
if fast:
    cudnn.benchmark = True  # TPL401
""",
    """
import torch
from lightning.pytorch import Trainer
trainer = Trainer(max_epochs=3, deterministic=True, benchmark=True)  # TPL401
""",
)
RULE.FIXES = (
    (
        "import torch.backends.cudnn as cudnn\ncudnn.deterministic = True\ncudnn.benchmark = True\n",
        "import torch.backends.cudnn as cudnn\ncudnn.deterministic = True\ncudnn.benchmark = False\n",
    ),
)
RULE.WHY = """\
With `benchmark = True`, cuDNN times several convolution algorithms for each new input shape and
keeps the fastest. The choice depends on timing noise and on other work on the GPU, and several of
the candidates are non-deterministic, so two runs can use different algorithms and produce different
results. `deterministic = True` (or `use_deterministic_algorithms(True)`) asks for the opposite:
setting both in one place says the results should be reproducible but lets benchmarking undo it.
Lightning's `Trainer(deterministic=True, benchmark=True)` sets the same two flags for you and is
reported at its `benchmark=True` keyword, as the assignment is (no fix is offered there: pass
`benchmark=False` by hand)."""
RULE.EXAMPLE = """\
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = True"""
RULE.USE_INSTEAD = """\
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False"""
RULE.FIX_NOTE = """\
Safe when determinism is asked for wherever benchmarking is turned on (the same block, or one
around it): reproducibility was asked for explicitly, and the fix keeps it (at some speed cost).
Unsafe when determinism is asked for only under a condition (`if args.deterministic:
cudnn.deterministic = True`) and benchmarking is not: `benchmark = False` then slows every run,
also those that did not ask for determinism; moving the benchmark setting into the other branch
(`cudnn.benchmark = not args.deterministic`) is what to write by hand."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/notes/randomness.html#cuda-convolution-benchmarking",
    "https://pytorch.org/docs/stable/backends.html#torch.backends.cudnn.benchmark",
)
