"""TPL305 no-mixed-precision (opt-in): a CUDA training loop with no autocast anywhere in the module."""

from __future__ import annotations

import libcst as cst

from ..analysis.syntax import find_calls, is_optimizer_step, is_plain_backward
from ..analysis.walker import Rule


class NoMixedPrecision(Rule):
    code = "TPL305"
    message = (
        "this CUDA training loop runs in float32: nothing in the module uses autocast; wrap the forward "
        "pass in `torch.autocast(\"cuda\", dtype=torch.bfloat16)` (or float16 with a GradScaler) to use "
        "the tensor cores (runtime_guard: AMP step)"
    )
    prefilter = ((".backward(",), (".step(",), ("for", "while"), r"\b(?:for|while)\b")
    needs_loop = True  # reports only in a loop (innermost_loop / current_step_loop)

    def visit_Call(self, node: cst.Call) -> None:
        if is_fp32_cuda_training_backward(node, self.ctx):
            self.report(node)


def is_fp32_cuda_training_backward(node: cst.Call, ctx) -> bool:
    """``loss.backward()`` of a CUDA training loop (a loop that also steps an optimizer, in a module
    that moves data to CUDA) in a module with no autocast or other sign of reduced precision.
    TPL306 asks the same question before it looks at the matmul precision."""
    if not is_plain_backward(node):
        return False
    loop = ctx.innermost_loop()
    if loop is None:
        return False
    facts = ctx.facts
    if facts.has_autocast or facts.mentions_mixed_precision or not facts.moves_data_to_cuda:
        return False
    return any(is_optimizer_step(c, ctx) is not None for c in find_calls(loop.node.body, lambda c: True))


RULE = NoMixedPrecision
RULE.VALID = (
    """
import torch
device = torch.device("cuda")
for x, y in loader:
    x, y = x.to(device), y.to(device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).sum()
    loss.backward()
    optimizer.step()
""",
    """
import torch
for x, y in loader:                     # never moved to CUDA
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
""",
    """
import torch
for x, y in loader:
    x = x.cuda()
    loss = model(x).sum()
    accelerator.backward(loss)          # the accelerator owns precision
    optimizer.step()
""",
)
RULE.INVALID = (
    """
import torch
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()  # TPL305
    optimizer.step()
    optimizer.zero_grad()
""",
)
RULE.WHY = """\
Without autocast every matrix multiply and convolution runs in float32. On GPUs with tensor cores
(Volta and later) float16/bfloat16 kernels run several times faster and move half the bytes;
autocast picks the reduced precision per operation and keeps numerically sensitive ones (softmax,
reductions, losses) in float32. Typical speed-ups are 1.5-3x with the same accuracy."""
RULE.EXAMPLE = """\
for x, y in loader:
    loss = loss_fn(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()"""
RULE.USE_INSTEAD = """\
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = loss_fn(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()"""
RULE.FIX_NOTE = "No autofix: the precision is a modelling decision (bfloat16 needs Ampere or later; float16 needs a GradScaler)."
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/amp.html",
    "https://pytorch.org/tutorials/recipes/recipes/amp_recipe.html",
)
