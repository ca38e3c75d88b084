"""TPL306 fp32-matmul-precision (opt-in): a CUDA training loop in full float32 with no autocast and
no matmul-precision setting (TF32 left off)."""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.walker import Rule
from .tpl305_no_mixed_precision import is_fp32_cuda_training_backward

# Names that show the module decides the float32 matmul precision itself, whatever the value:
# ``torch.backends.cuda.matmul.allow_tf32 = ...``, ``torch.set_float32_matmul_precision(...)``,
# the newer ``torch.backends.cuda.matmul.fp32_precision = "tf32"``, or a ``--tf32`` option.
_PRECISION_SETTINGS = ("allow_tf32", "set_float32_matmul_precision", "fp32_precision", "tf32")


class Fp32MatmulPrecision(Rule):
    code = "TPL306"
    message = (
        "this CUDA training loop runs every float32 matrix multiply at full float32 precision: nothing "
        "in the module uses autocast or sets the matmul precision; call "
        "`torch.set_float32_matmul_precision(\"high\")` once at start-up to use TF32 tensor cores "
        "(Ampere and newer) (runtime_guard: RUNTIME_GUARD_TF32=1)"
    )
    prefilter = ((".backward(",), (".step(",), ("for", "while"), r"\b(?:for|while)\b")

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if not is_fp32_cuda_training_backward(node, ctx):
            return
        if ctx.facts.derived("TPL306.sets_matmul_precision", sets_matmul_precision):
            return
        if self.torch_has("torch.set_float32_matmul_precision"):
            self.report(node)


def sets_matmul_precision(tree: ast.Module, table) -> bool:
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name is not None and any(word in name.lower() for word in _PRECISION_SETTINGS):
            return True
    return False


RULE = Fp32MatmulPrecision
RULE.VALID = (
    """
import torch
torch.set_float32_matmul_precision("high")
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
""",
    """
import torch
torch.backends.cuda.matmul.allow_tf32 = args.tf32       # the module decides; whatever the value
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
""",
    """
import torch
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
""",
    """
import torch
for x, y in loader:                                      # a CPU training loop
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
""",
)
RULE.INVALID = (
    """
import torch
device = torch.device("cuda")
for x, y in loader:
    x, y = x.to(device), y.to(device)
    loss = loss_fn(model(x), y)
    loss.backward()  # TPL306
    optimizer.step()
    optimizer.zero_grad()
""",
)
RULE.WHY = """\
By default PyTorch computes float32 matrix multiplies in full float32 ("highest" precision). On
Ampere and newer GPUs the tensor cores can compute them in TF32 (float32 range, 10-bit mantissa)
several times faster; `torch.set_float32_matmul_precision("high")` allows it (and "medium" allows
bfloat16 internally). For training, TF32 is generally accurate enough — it is what cuDNN
convolutions already use by default. The profiler's pattern matcher reports the same thing as
"FP32 MatMul Pattern". The rule is opt-in because the precision is a numerical decision, and it stays
silent in modules that use autocast (reduced precision already) or set the matmul precision."""
RULE.EXAMPLE = """\
for x, y in loader:
    loss = loss_fn(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()"""
RULE.USE_INSTEAD = """\
torch.set_float32_matmul_precision("high")   # TF32 tensor cores on Ampere and newer
for x, y in loader:
    loss = loss_fn(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()"""
RULE.FIX_NOTE = (
    "No autofix: TF32 changes the numerics of every float32 matmul (a 10-bit mantissa instead of 23)."
)
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html",
    "https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices",
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html",
)
