"""TPL302 scaler-misuse: a scaled backward followed by a direct optimizer step, or no scaler.update()."""

from __future__ import annotations

import libcst as cst

from ..analysis.syntax import code_of, find_calls, is_optimizer_step, is_scaler_expr, method_call, scaled_backward_scaler
from ..analysis.walker import Rule


class ScalerMisuse(Rule):
    code = "TPL302"
    message = (
        "the loss was scaled by `{scaler}.scale(loss).backward()` but `{optimizer}.step()` is called "
        "directly: it applies gradients that are still multiplied by the scale (and steps on inf/NaN); "
        "call `{scaler}.step({optimizer})` and then `{scaler}.update()` (runtime_guard: AMP step)"
    )
    message_update = (
        "`{scaler}.update()` is never called in this module: the loss scale never adapts (and a "
        "second `{scaler}.step()` raises); call `{scaler}.update()` after each `{scaler}.step(optimizer)` "
        "(runtime_guard: AMP step)"
    )
    prefilter = ((".step(",), ("scale", "Scale"))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check_direct_step(node)

    def visit_Module(self, node: cst.Module) -> None:
        self._check_direct_step(node)

    def _check_direct_step(self, scope: cst.CSTNode) -> None:
        ctx = self.ctx
        calls = find_calls(scope, lambda c: method_call(c) is not None and method_call(c)[1] in ("backward", "step"))
        scalers = [(i, scaled_backward_scaler(c, ctx)) for i, c in enumerate(calls)]
        scalers = [(i, s) for i, s in scalers if s is not None]
        if not scalers:
            return
        first, scaler = scalers[0]
        # Optimizers the scaler steps somewhere here are not judged (a direct step of the same
        # optimizer may sit in a non-AMP branch); any other optimizer stepped directly is.
        stepped_by_scaler = {
            code_of(c.args[0].value)
            for c in calls
            if method_call(c)[1] == "step" and c.args and is_scaler_expr(method_call(c)[0], ctx)
        }
        for call in calls[first + 1 :]:
            optimizer = is_optimizer_step(call, ctx)
            if optimizer is not None and not call.args and code_of(optimizer) not in stepped_by_scaler:
                self.report(call, self.message.format(scaler=code_of(scaler), optimizer=code_of(optimizer)))

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] != "step" or not node.args:
            return
        ctx = self.ctx
        if not is_scaler_expr(found[0], ctx):
            return
        facts = ctx.facts
        # Only a scaler this module makes: one made elsewhere may be updated elsewhere.
        if facts.calls_scaler_update or not facts.has_grad_scaler:
            return
        if (code_of(found[0]).rsplit(".", 1)[-1]) in facts.update_receivers:
            return  # ``grad_scalar.update()``: updated, whatever the scaler is called
        self.report(node, self.message_update.format(scaler=code_of(found[0])))


RULE = ScalerMisuse
RULE.VALID = (
    """
import torch
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = model(x).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
""",
    """
import torch
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
def step(loss, optimizer):
    if use_amp:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
""",
    """
import torch
def step(self, loss):
    self.scaler.scale(loss).backward()
    self.scaler.step(self.optimizer)        # the scaler comes from elsewhere: so may its update
""",
)
RULE.INVALID = (
    """
import torch
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = model(x).sum()
    scaler.scale(loss).backward()
    optimizer.step()  # TPL302
    optimizer.zero_grad()
""",
    """
import torch
from torch.amp import GradScaler
scaler = GradScaler("cuda")
def train_step(model, x, opt):
    with torch.autocast("cuda"):
        loss = model(x).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)  # TPL302
    opt.zero_grad()
""",
)
RULE.WHY = """\
`scaler.scale(loss).backward()` produces gradients multiplied by the current scale (65536 at the
start). `optimizer.step()` applies them as they are, so every update is thousands of times too large,
and steps whose gradients overflowed to inf/NaN are applied instead of skipped. `scaler.step(optimizer)`
unscales first and skips such steps; `scaler.update()` then lowers the scale after an overflow and
raises it after a run of good steps. Without `update()` the scale never adapts (and `step()` a second
time before `update()` raises a RuntimeError)."""
RULE.EXAMPLE = """\
scaler.scale(loss).backward()
optimizer.step()"""
RULE.USE_INSTEAD = """\
scaler.scale(loss).backward()
scaler.step(optimizer)
scaler.update()"""
RULE.FIX_NOTE = "No autofix: where `update()` belongs depends on gradient accumulation."
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler",
    "https://pytorch.org/docs/stable/notes/amp_examples.html#typical-mixed-precision-training",
)
