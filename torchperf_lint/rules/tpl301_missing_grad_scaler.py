"""TPL301 missing-grad-scaler: float16 autocast around a backward pass, with no GradScaler."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.syntax import (
    AUTOCASTS, find_calls, has_splat, is_false, is_grad_off, is_plain_backward, keyword, positional,
    string_value,
)
from ..analysis.walker import Rule

_FP16 = frozenset(("torch.float16", "torch.half"))



class MissingGradScaler(Rule):
    code = "TPL301"
    message = (
        "float16 autocast around a backward pass without a GradScaler: small gradients underflow to "
        "zero in float16; create `scaler = torch.amp.GradScaler(\"cuda\")` and use "
        "`scaler.scale(loss).backward()`, `scaler.step(optimizer)`, `scaler.update()` "
        "(or autocast to bfloat16) (runtime_guard: AMP step)"
    )
    # Under a target torch older than 2.3 (no torch.amp.GradScaler): the spelling that torch has.
    message_before_2_3 = message.replace(
        "`scaler = torch.amp.GradScaler(\"cuda\")`",
        "`scaler = torch.cuda.amp.GradScaler()` (the project's target torch predates torch.amp.GradScaler)")
    prefilter = (("autocast",), (".backward(",))

    def visit_With(self, node: cst.With) -> None:
        ctx = self.ctx
        for item in node.items:
            call = item.item
            if not isinstance(call, cst.Call):
                continue
            qual = ctx.qualname(call.func)
            if qual not in AUTOCASTS or not self._is_float16(call, qual):
                continue
            if ctx.facts.has_grad_scaler or ctx.facts.mentions_scaler:
                return
            if not self._runs_backward(node):
                return
            # (a backward runs there: a grad mode the code sets by a name is on when it does)
            if ctx.under_grad_off(mode_given=False) or any(is_grad_off(i.item, ctx) for i in node.items):
                return  # inference: nothing to scale
            self.report(item, None if self.torch_has("torch.amp.GradScaler") else self.message_before_2_3)
            return

    def _is_float16(self, call: cst.Call, qual: str) -> bool:
        if has_splat(call):
            return False
        args = positional(call)
        enabled = keyword(call, "enabled")
        if enabled is not None and is_false(enabled.value):
            return False
        dtype = keyword(call, "dtype")
        if qual == "torch.cuda.amp.autocast":
            if args and is_false(args[0].value):
                return False
            if dtype is None and len(args) > 1:
                dtype = args[1]
            return dtype is None or self.ctx.qualname(dtype.value) in _FP16
        device = keyword(call, "device_type")
        if device is None and qual == "torch.amp.autocast" and args:
            device = args[0]
        if dtype is None and qual == "torch.amp.autocast" and len(args) > 1:
            dtype = args[1]
        if dtype is not None:
            return self.ctx.qualname(dtype.value) in _FP16
        # The default dtype: float16 for CUDA, bfloat16 for the CPU; unknown for a variable device.
        if qual != "torch.amp.autocast" or device is None:
            return False
        text = string_value(device.value) or ""
        return text == "cuda" or text.startswith("cuda:")

    def _runs_backward(self, node: cst.With) -> bool:
        if find_calls(node.body, is_plain_backward):
            return True
        loop = self.ctx.innermost_loop()
        scope: Optional[cst.CSTNode] = loop.node.body if loop is not None else self.ctx.frame.node
        if scope is None:
            scope = self.ctx.stack[0]  # module level: the unit
        return bool(find_calls(scope, is_plain_backward))


RULE = MissingGradScaler
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
""",
    """
import torch
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):      # bfloat16 needs no scaling
        loss = model(x).sum()
    loss.backward()
    with torch.autocast(device_type="cpu"):                 # CPU autocast defaults to bfloat16
        loss = model(x).sum()
    loss.backward()
    with torch.autocast("cuda", dtype=amp_dtype):           # a dtype we cannot see
        loss = model(x).sum()
    loss.backward()
    with torch.cuda.amp.autocast(enabled=False):
        loss = model(x).sum()
    loss.backward()
""",
    """
import torch
@torch.no_grad()
def evaluate(model, loader):
    for x, y in loader:
        with torch.autocast("cuda"):
            out = model(x)
def predict(model, x):
    with torch.inference_mode(), torch.autocast("cuda"):
        return model(x)
def forward_only(model, x):
    with torch.autocast("cuda"):
        return model(x)                                     # no backward here
""",
    """
import torch
def train_step(self, batch):
    with torch.autocast("cuda"):
        loss = self.model(batch)
    self.accelerator.backward(loss)                         # the accelerator scales the loss
""",
)
RULE.INVALID = (
    """
import torch
for x, y in loader:
    with torch.autocast("cuda"):  # TPL301
        loss = model(x).sum()
    loss.backward()
    optimizer.step()
""",
    """
import torch
from torch.cuda.amp import autocast
def train(model, loader, opt):
    for x, y in loader:
        with autocast():  # TPL301
            loss = model(x).sum()
            loss.backward()
        opt.step()
    with torch.amp.autocast(device_type="cuda", dtype=torch.float16):  # TPL301
        loss = model(x).sum()
    loss.backward()
""",
    """
import torch
def fit(model, loader, optimizer, train=True):
    with torch.set_grad_enabled(mode=train):     # on whenever the backward below runs
        for x, y in loader:
            with torch.cuda.amp.autocast():  # TPL301
                loss = model(x, y)
            loss.backward()
            optimizer.step()
""",

)
RULE.WHY = """\
float16 has a narrow range: gradients smaller than about 6e-8 become zero, and small loss values
produce such gradients. Under CUDA autocast (float16 by default) the backward pass computes many
gradients in float16, so without loss scaling part of the model silently stops learning. A
`GradScaler` multiplies the loss before `backward()`, divides the gradients before the optimizer
step, skips steps whose gradients overflowed, and adapts the scale factor."""
RULE.EXAMPLE = """\
for x, y in loader:
    with torch.autocast("cuda"):
        loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()"""
RULE.USE_INSTEAD = """\
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()"""
RULE.FIX_NOTE = "No autofix: the scaler changes the backward, the step and the update. bfloat16 autocast needs no scaler."
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/amp.html#gradient-scaling",
    "https://pytorch.org/docs/stable/notes/amp_examples.html",
)
