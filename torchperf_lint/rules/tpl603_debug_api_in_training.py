"""TPL603 debug-api-in-training: autograd anomaly detection, or a profiler around a whole training
loop, left on unconditionally in a module that trains."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.syntax import code_of, dotted_name, has_splat, is_true, keyword, positional, runs_step
from ..analysis.tree import descendants
from ..analysis.walker import IF, Rule

_SET_ANOMALY = frozenset((
    "torch.autograd.set_detect_anomaly", "torch.autograd.anomaly_mode.set_detect_anomaly",
    "torch.set_anomaly_enabled", "torch.autograd.set_anomaly_enabled",
))
_DETECT_ANOMALY = frozenset(("torch.autograd.detect_anomaly", "torch.autograd.anomaly_mode.detect_anomaly"))
_PROFILERS = frozenset((
    "torch.profiler.profile", "torch.profiler.profiler.profile",
    "torch.autograd.profiler.profile", "torch.autograd.profiler.emit_nvtx",
    "torch.autograd.profile", "torch.autograd.emit_nvtx",
))
# The legacy profilers take ``enabled`` as their first positional argument
# (``torch.autograd.profiler.profile(args.profile)``, ``emit_nvtx(args.nvtx)``).
_ENABLED_FIRST = frozenset((
    "torch.autograd.profiler.profile", "torch.autograd.profiler.emit_nvtx",
    "torch.autograd.profile", "torch.autograd.emit_nvtx",
))


class DebugApiInTraining(Rule):
    code = "TPL603"
    message = (
        "`{api}` is left on in a training module: {cost}; remove it, or turn it on only behind a "
        "debug flag (runtime_guard: anomaly mode observed during training steps)"
    )
    _ANOMALY_COST = (
        "anomaly detection records a Python stack trace for every autograd node and checks every "
        "backward result for NaN, which slows each step several-fold"
    )
    _PROFILER_COST = (
        "a profiler without `schedule=` records every op of every step (CPU time and memory that "
        "grow with the run)"
    )
    prefilter = (("detect_anomaly", "set_anomaly_enabled", "emit_nvtx", "profile"),
                 r"detect_anomaly|set_anomaly_enabled|emit_nvtx|\bprofile\b")
    file_prefilter = ((".backward(",),)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        qual = ctx.qualname(node.func)
        if qual is None or has_splat(node):
            return
        if qual in _SET_ANOMALY:
            mode = keyword(node, "mode") or (positional(node)[0] if positional(node) else None)
            if mode is None or not is_true(mode.value):
                return
            cost = self._ANOMALY_COST
        elif qual in _DETECT_ANOMALY:
            if not self._is_with_item(node) and not isinstance(ctx.parent(), cst.Decorator):
                return  # a bare call does nothing
            cost = self._ANOMALY_COST
        elif qual in _PROFILERS:
            if keyword(node, "schedule") is not None:
                return  # records only the scheduled steps
            enabled = keyword(node, "enabled")
            if enabled is None and qual in _ENABLED_FIRST and positional(node):
                enabled = positional(node)[0]
            if enabled is not None and not is_true(enabled.value):
                return
            if not self._is_with_item(node) or not self._wraps_step_loop(ctx.parent(2)):
                return
            cost = self._PROFILER_COST
        else:
            return
        if self._conditional():
            return
        self.report(node, self.message.format(api=_short(node), cost=cost))

    def _is_with_item(self, node: cst.Call) -> bool:
        parent = self.ctx.parent()
        return isinstance(parent, cst.WithItem) and parent.item is node

    @staticmethod
    def _wraps_step_loop(with_node: Optional[cst.CSTNode]) -> bool:
        """The ``with`` body holds a loop that runs training steps, and runs it to the end (a loop
        that breaks out after a few steps is a deliberate, bounded profile)."""
        if not isinstance(with_node, cst.With):
            return False
        for node in descendants(with_node.body, prune=_is_definition):
            if isinstance(node, (cst.For, cst.While)) and runs_step(node.body):
                return not _breaks_out(node)
        return False

    def _conditional(self) -> bool:
        """Under an ``if`` (a debug flag, an argument, an environment value: not ``__main__``), or
        chosen by a conditional expression: then someone turns it on deliberately."""
        ctx = self.ctx
        frame = ctx.frame
        while frame is not None:
            for block in frame.blocks:
                if block.kind == IF and not _is_main_guard(block.node.test):
                    return True
            frame = frame.parent
        return any(isinstance(n, cst.IfExp) for n in ctx.stack)


def _is_definition(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _breaks_out(loop: cst.CSTNode) -> bool:
    def prune(node: cst.CSTNode) -> bool:
        return node is not loop and (isinstance(node, (cst.For, cst.While)) or _is_definition(node))

    return any(isinstance(n, (cst.Break, cst.Return)) for n in descendants(loop.body, prune=prune))


def _is_main_guard(test: cst.BaseExpression) -> bool:
    return "__name__" in code_of(test)


def _short(call: cst.Call) -> str:
    """The call as written when it is short (``torch.autograd.set_detect_anomaly(True)``), else its
    name with the arguments elided (``profile(…)``)."""
    text = code_of(call)
    if len(text) <= 60 and "\n" not in text:
        return text
    return f"{dotted_name(call.func) or code_of(call.func)}(…)"


RULE = DebugApiInTraining
RULE.VALID = (
    """
import torch
torch.autograd.set_detect_anomaly(args.detect_anomaly)      # a flag
if args.debug:
    torch.autograd.set_detect_anomaly(True)
torch.autograd.set_detect_anomaly(False)
for x, y in loader:
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
    """
import torch
from torch.profiler import profile, schedule
with profile(schedule=schedule(wait=1, warmup=1, active=3), on_trace_ready=handler) as prof:
    for x, y in loader:
        loss_fn(model(x), y).backward()
        optimizer.step()
        prof.step()
""",
    """
import torch
with torch.profiler.profile() as prof:                      # a bounded profile: 10 steps, then out
    for i, (x, y) in enumerate(loader):
        loss_fn(model(x), y).backward()
        optimizer.step()
        if i == 10:
            break
with torch.autograd.profiler.profile(enabled=args.profile):
    for x, y in loader:
        loss_fn(model(x), y).backward()
        optimizer.step()
""",
    """
import contextlib
import torch
from torch.profiler import record_function
PROFILE = False
def train(model, loader, optimizer, args):
    with torch.autograd.profiler.profile(args.profile) as prof:        # enabled, positionally: a flag
        with torch.autograd.profiler.emit_nvtx(PROFILE):
            for x, y in loader:
                scope = record_function("step") if args.profile else contextlib.nullcontext()
                with scope:                                          # off unless the flag is on
                    loss_fn(model(x), y).backward()
                with record_function("optimizer"):                   # a label: costs nothing unprofiled
                    optimizer.step()
""",
)
RULE.INVALID = (
    """
import torch
torch.autograd.set_detect_anomaly(True)  # TPL603
for x, y in loader:
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
    """
import torch
def train(model, loader, optimizer):
    with torch.autograd.detect_anomaly():  # TPL603
        for x, y in loader:
            loss_fn(model(x), y).backward()
            optimizer.step()
""",
    """
import torch
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]) as prof:  # TPL603
    for epoch in range(epochs):
        for x, y in loader:
            loss_fn(model(x), y).backward()
            optimizer.step()
""",
    """
import torch
def train(model, loader, optimizer):
    with torch.autograd.profiler.profile(True, use_cuda=True) as prof:  # TPL603
        for x, y in loader:
            loss_fn(model(x), y).backward()
            optimizer.step()
""",
)
RULE.WHY = """\
`torch.autograd.set_detect_anomaly(True)` (or `with torch.autograd.detect_anomaly():`) makes
autograd record the Python stack trace of every operation in the forward pass and check every
gradient for NaN in the backward pass; the Performance Tuning Guide lists it among the debug APIs
to turn off for real runs, and it easily doubles or triples the step time. A profiler
(`torch.profiler.profile`, `torch.autograd.profiler.profile`, `emit_nvtx`) wrapped around a whole
training loop without a `schedule=` records every op of every step: the slowdown lasts the whole
run and the trace grows without bound. Both are meant for a short, deliberate debugging run."""
RULE.EXAMPLE = """\
torch.autograd.set_detect_anomaly(True)
for x, y in loader:
    loss_fn(model(x), y).backward()
    optimizer.step()"""
RULE.USE_INSTEAD = """\
torch.autograd.set_detect_anomaly(args.detect_anomaly)   # off unless asked for
with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)) as prof:
    for x, y in loader:
        loss_fn(model(x), y).backward()
        optimizer.step()
        prof.step()"""
RULE.FIX_NOTE = "No autofix: whether the run is a debugging run is the author's call."
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#disable-debugging-apis",
    "https://pytorch.org/docs/stable/autograd.html#anomaly-detection",
    "https://pytorch.org/docs/stable/profiler.html#torch.profiler.schedule",
)
