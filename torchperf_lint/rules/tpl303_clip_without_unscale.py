"""TPL303 clip-without-unscale: gradients clipped while still multiplied by the loss scale."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from ..catalog import SAFE
from ..findings import RuleFix
from ..analysis.syntax import code_of, find_calls, is_scaler_expr, method_call, positional, scaled_backward_scaler
from ..analysis.tree import descendants
from ..analysis.walker import Rule

_CLIPS = frozenset(("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_"))


class ClipWithoutUnscale(Rule):
    code = "TPL303"
    message = (
        "gradients are clipped while still scaled by `{scaler}` (between `{scaler}.scale(loss).backward()` "
        "and `{scaler}.step(...)`): the threshold applies to scaled values; call "
        "`{scaler}.unscale_(optimizer)` before clipping (runtime_guard: AMP step)"
    )
    prefilter = (("clip_grad_norm_", "clip_grad_value_"), (".scale(",))

    def __init__(self, ctx, sink):
        super().__init__(ctx, sink)
        # (step call, optimizer) -> the fix that unscales for it, shared by every clip before it
        self._fixes = {}

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.qualname(node.func) not in _CLIPS:
            return
        scope = ctx.frame.node if ctx.frame.node is not None else ctx.stack[0]

        def relevant(call: cst.Call) -> bool:
            found = method_call(call)
            return call is node or (found is not None and found[1] in ("backward", "step", "unscale_"))

        calls = find_calls(scope, relevant)
        if node not in calls:
            return
        here = calls.index(node)
        scaler = None
        for call in calls[:here]:
            scaler = scaler or scaled_backward_scaler(call, ctx)
        if scaler is None:
            return
        text = code_of(scaler)
        if any(_on_scaler(c, "unscale_", ctx) for c in calls):
            # An unscale_ after the clip is still a misuse, but before or after, a fix would unscale twice.
            if any(_on_scaler(c, "unscale_", ctx) for c in calls[:here]):
                return
            fix_ok = False
        else:
            fix_ok = True
        steps = [c for c in calls[here + 1 :] if _on_scaler(c, "step", ctx)]
        if not steps:
            return
        backward = next(c for c in reversed(calls[:here]) if scaled_backward_scaler(c, ctx) is not None)
        fix = self._fix(node, scaler, steps[0], backward) if fix_ok else None
        self.report(node, self.message.format(scaler=text), fix)

    def _fix(self, clip: cst.Call, scaler: cst.BaseExpression, step: cst.Call,
             backward: cst.Call) -> Optional[RuleFix]:
        args = positional(step)
        if not args or args[0] is not step.args[0]:
            return None
        # One unscale_ per optimizer and step: a second clip before the same step gets the first
        # one's fix (the same edit, applied once), a second unscale_ would raise.
        key = (id(step), code_of(args[0].value))
        if key in self._fixes:
            return self._fixes[key]
        self._fixes[key] = fix = self._build_fix(clip, scaler, args[0].value, step, backward)
        return fix

    def _build_fix(self, clip, scaler, optimizer, step, backward) -> Optional[RuleFix]:
        # The statement holding the clip: ``clip(...)`` or ``norm = clip(...)``, alone on its line.
        ctx = self.ctx
        parent, line = ctx.parent(1), ctx.parent(2)
        if not (isinstance(parent, cst.Expr) or (isinstance(parent, cst.Assign) and parent.value is clip)):
            return None
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        if not isinstance(ctx.parent(3), (cst.IndentedBlock, cst.Module)):
            return None
        # unscale_ goes before the clip, or before the outermost loop around it that runs between
        # the backward and the step (``for group in optimizer.param_groups: clip(...)``): inside
        # such a loop it would run once per pass, and the second call raises.
        anchor = line
        depth = 3
        frame_node = ctx.frame.node
        while True:
            block_owner = ctx.parent(depth + 1)
            if block_owner is None or block_owner is frame_node or isinstance(block_owner, cst.Module):
                break
            if isinstance(block_owner, (cst.For, cst.While)):
                if _contains(block_owner, step):
                    break  # a step per pass: an unscale_ per pass is right
                if _contains(block_owner, backward):
                    return None  # backward per pass, one step after the loop: no place for one unscale_
                anchor = block_owner
            depth += 1
        if not isinstance(ctx.stack[ctx.stack.index(anchor) - 1], (cst.IndentedBlock, cst.Module)):
            return None  # ``else:`` of a loop and the like: leave it to the user
        call = cst.parse_statement(f"{code_of(scaler)}.unscale_({code_of(optimizer)})\n")
        call = call.with_changes(leading_lines=anchor.leading_lines)
        replacement = cst.FlattenSentinel([call, anchor.with_changes(leading_lines=())])
        return RuleFix(SAFE, f"call {code_of(scaler)}.unscale_(...) before clipping", [(anchor, replacement)])


def _contains(tree: cst.CSTNode, target: cst.CSTNode) -> bool:
    return any(node is target for node in descendants(tree))


def _on_scaler(call: cst.Call, name: str, ctx) -> bool:
    found = method_call(call)
    return found is not None and found[1] == name and is_scaler_expr(found[0], ctx)


RULE = ClipWithoutUnscale
RULE.VALID = (
    """
import torch
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = model(x).sum()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
""",
    """
import torch
from torch.nn.utils import clip_grad_norm_
def step(loss, optimizer, model):
    loss.backward()                                     # not scaled
    clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
def amp_step(scaler, loss, optimizer, model):
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    clip_grad_norm_(model.parameters(), 1.0)            # after the step: other gradients
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
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # TPL303
    scaler.step(optimizer)
    scaler.update()
""",
    """
import torch.nn as nn
def train_step(self, loss):
    self.scaler.scale(loss).backward()
    if self.clip:
        norm = nn.utils.clip_grad_value_(self.model.parameters(), 0.5)  # TPL303
    self.scaler.step(self.optimizer)
    self.scaler.update()
""",
)
RULE.FIXES = (
    (
        "import torch\ndef step(scaler, loss, opt, model):\n    scaler.scale(loss).backward()\n"
        "    # clip\n    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(opt)\n    scaler.update()\n",
        "import torch\ndef step(scaler, loss, opt, model):\n    scaler.scale(loss).backward()\n"
        "    # clip\n    scaler.unscale_(opt)\n    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(opt)\n    scaler.update()\n",
    ),
    (
        "import torch.nn as nn\ndef train_step(self, loss):\n    self.scaler.scale(loss).backward()\n"
        "    if self.clip:\n        norm = nn.utils.clip_grad_value_(self.model.parameters(), 0.5)\n"
        "    self.scaler.step(self.optimizer)\n    self.scaler.update()\n",
        "import torch.nn as nn\ndef train_step(self, loss):\n    self.scaler.scale(loss).backward()\n"
        "    if self.clip:\n        self.scaler.unscale_(self.optimizer)\n"
        "        norm = nn.utils.clip_grad_value_(self.model.parameters(), 0.5)\n"
        "    self.scaler.step(self.optimizer)\n    self.scaler.update()\n",
    ),
)
RULE.WHY = """\
After `scaler.scale(loss).backward()` every gradient is multiplied by the current loss scale
(65536 at the start, changing as training runs). `clip_grad_norm_(params, 1.0)` then compares the
scaled norm with 1.0: it clips almost every step, by a factor that follows the scale rather than the
gradients, so the effective learning rate drifts. `scaler.unscale_(optimizer)` divides the
gradients in place first; `scaler.step` then knows they are unscaled and does not divide again."""
RULE.EXAMPLE = """\
scaler.scale(loss).backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
scaler.step(optimizer)"""
RULE.USE_INSTEAD = """\
scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
scaler.step(optimizer)"""
RULE.FIX_NOTE = """\
Safe: inserts `scaler.unscale_(optimizer)` (the optimizer that `scaler.step` receives) once per
optimizer and step, just before the first clip, or before the outermost loop around it that runs
between the backward and the step (`for group in optimizer.param_groups: clip_grad_norm_(...)`):
a second `unscale_` before the step raises. Not offered when the function already calls `unscale_`
elsewhere, nor when the backward runs in a loop whose step comes after it (there is no one place
for a single `unscale_` inside it)."""
RULE.REFERENCES = ("https://pytorch.org/docs/stable/notes/amp_examples.html#gradient-clipping",)
