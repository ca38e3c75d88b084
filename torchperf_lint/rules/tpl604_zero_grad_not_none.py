"""TPL604 zero-grad-not-none: ``zero_grad(set_to_none=False)`` in a step loop writes zeros into every gradient."""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from ..catalog import UNSAFE
from ..fixing.edits import drop_keyword
from ..findings import RuleFix
from ..analysis.syntax import code_of, has_splat, is_false, keyword, method_call, positional
from ..analysis.walker import Rule


class ZeroGradNotNone(Rule):
    code = "TPL604"
    message = (
        "`{call}` fills every gradient with zeros each step (a memset per parameter, and the next "
        "backward adds into them); drop `set_to_none=False`: the default sets gradients to None and "
        "the next backward writes them directly"
    )
    prefilter = (("zero_grad",), ("set_to_none", "zero_grad("), r"set_to_none|zero_grad\(\s*False")
    needs_step_loop = True  # reports only in a step loop (current_step_loop)

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] != "zero_grad" or has_splat(node):
            return
        flag = _set_to_none_arg(node)
        if flag is None or not is_false(flag.value):
            return
        ctx = self.ctx
        if ctx.current_step_loop() is None:
            return  # (under an interval ``if`` it still runs once per optimizer step: flagged)
        if ctx.facts.derived("TPL604.grad_used_as_tensor", grad_used_as_tensor):
            return  # code that reads .grad as a tensor expects zeros, not None
        if ctx.facts.derived("TPL604.uses_cuda_graphs", uses_cuda_graphs):
            return  # a captured graph needs its gradient buffers kept and zeroed in place
        fix = RuleFix(UNSAFE, "drop set_to_none=False (gradients become None after zero_grad)",
                      [(node, _drop(node, flag))])
        self.report(node, self.message.format(call=code_of(node)), fix)


def _set_to_none_arg(call: cst.Call) -> Optional[cst.Arg]:
    """``set_to_none=`` or the first positional argument (both ``Optimizer.zero_grad`` and
    ``Module.zero_grad`` take ``set_to_none`` first)."""
    arg = keyword(call, "set_to_none")
    if arg is not None:
        return arg
    args = positional(call)
    return args[0] if args else None


def _drop(call: cst.Call, flag: cst.Arg) -> cst.Call:
    if flag.keyword is not None:
        return drop_keyword(call, "set_to_none")
    args = [a for a in call.args if a is not flag]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def grad_used_as_tensor(tree: ast.Module, table) -> bool:
    """Does the module use some ``x.grad`` as a tensor (``p.grad.add_(...)``, ``p.grad.zero_()``,
    ``p.grad[i]``, ``p.grad * s``, ``p.grad += g``, ``f(p.grad)``)? Such code may rely on zero tensors
    where set_to_none would leave None. Tests (``p.grad is None``) and assignments are not uses."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_grad(node.value):
            return True  # p.grad.add_ / p.grad.data / p.grad.zero_
        if isinstance(node, ast.Subscript) and _is_grad(node.value):
            return True
        if isinstance(node, ast.BinOp) and (_is_grad(node.left) or _is_grad(node.right)):
            return True
        if isinstance(node, ast.AugAssign) and _is_grad(node.target):
            return True
        if isinstance(node, ast.Call) and any(
            _is_grad(a.value if isinstance(a, ast.Starred) else a) for a in node.args
        ):
            return True
        if isinstance(node, ast.Call) and any(_is_grad(k.value) for k in node.keywords):
            return True
    return False


_GRAPH_NAMES = ("CUDAGraph", "make_graphed_callables", "cudagraph", "cuda_graph", "graph_pool_handle")


def uses_cuda_graphs(tree: ast.Module, table) -> bool:
    """CUDA graph capture (``torch.cuda.graph(...)``, ``CUDAGraph``, ``make_graphed_callables``):
    replaying a graph needs gradients in the same static buffers, so ``set_to_none=False`` is the
    documented way there."""
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name is None:
            continue
        if name == "graph" and isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Attribute, ast.Name)):
            owner = node.value.attr if isinstance(node.value, ast.Attribute) else node.value.id
            if owner == "cuda":
                return True
        if any(word.lower() in name.lower() for word in _GRAPH_NAMES):
            return True
    return False


def _is_grad(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "grad"


RULE = ZeroGradNotNone
RULE.VALID = (
    """
import torch
for x, y in loader:
    optimizer.zero_grad()                       # the default: gradients become None
    loss_fn(model(x), y).backward()
    optimizer.step()
optimizer.zero_grad(set_to_none=False)          # once, outside the loop
for x, y in loader:
    model.zero_grad(set_to_none=True)
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
    """
import torch
for x, y in loader:
    optimizer.zero_grad(set_to_none=False)
    loss_fn(model(x), y).backward()
    for p in model.parameters():
        p.grad.add_(torch.randn_like(p) * 1e-3)  # reads .grad as a tensor: needs zeros, not None
    optimizer.step()
""",
    """
import torch
g = torch.cuda.CUDAGraph()
for _ in range(3):                                       # warm-up before capturing a CUDA graph
    optimizer.zero_grad(set_to_none=False)               # static gradient buffers, zeroed in place
    loss_fn(model(static_x), static_y).backward()
    optimizer.step()
""",
    """
import torch
for x, y in loader:
    optimizer.zero_grad(set_to_none=cfg.set_to_none)   # a value the linter cannot see
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
)
RULE.INVALID = (
    """
import torch
for x, y in loader:
    optimizer.zero_grad(set_to_none=False)  # TPL604
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
    """
import torch
def train(model, loader, opt):
    for epoch in range(10):
        for x, y in loader:
            model.zero_grad(False)  # TPL604
            loss = model(x).sum()
            loss.backward()
            opt.step()
""",
)
RULE.FIXES = (
    (
        """
import torch
for x, y in loader:
    optimizer.zero_grad(set_to_none=False)
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
        """
import torch
for x, y in loader:
    optimizer.zero_grad()
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
    ),
    (
        """
import torch
for x, y in loader:
    model.zero_grad(False)
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
        """
import torch
for x, y in loader:
    model.zero_grad()
    loss_fn(model(x), y).backward()
    optimizer.step()
""",
    ),
)
RULE.WHY = """\
`zero_grad(set_to_none=False)` launches a fill kernel on every parameter's gradient each step, and
the next backward then accumulates into those zeros (a read-modify-write) instead of writing the
gradient. With the default, `set_to_none=True` (since torch 2.0), gradients become `None`: no
memset, the first accumulation is a plain write, and the gradient memory is free between
`zero_grad()` and the backward pass. The PyTorch Performance Tuning Guide lists it, and the
profiler's pattern matcher reports it as "Gradient Set To Zero Instead of None"."""
RULE.EXAMPLE = """\
for x, y in loader:
    optimizer.zero_grad(set_to_none=False)
    loss_fn(model(x), y).backward()
    optimizer.step()"""
RULE.USE_INSTEAD = """\
for x, y in loader:
    optimizer.zero_grad()
    loss_fn(model(x), y).backward()
    optimizer.step()"""
RULE.FIX_NOTE = """\
Unsafe (applied with `--unsafe-fixes`): after the change, a parameter that gets no gradient in a
step has `.grad is None` instead of a zero tensor, so code that reads `.grad` as a tensor breaks and
optimizers skip such parameters (with momentum or weight decay, a zero gradient still moves them).
The rule stays silent when the module reads `.grad` as a tensor (`p.grad.add_`, `p.grad.zero_`,
`p.grad * s` …), and in modules that capture CUDA graphs (replays need the gradients in the same
static buffers, zeroed in place)."""
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#use-parameter-grad-none-instead-of-model-zero-grad-or-optimizer-zero-grad",
    "https://pytorch.org/docs/stable/generated/torch.optim.Optimizer.zero_grad.html",
)
