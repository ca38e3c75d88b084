"""TPL207 ddp-accumulation-without-no-sync: gradient accumulation on a DistributedDataParallel model
that all-reduces the gradients on every backward pass, not once per optimizer step."""

from __future__ import annotations

import ast
from typing import FrozenSet, Iterator, Optional, Tuple

import libcst as cst

from ..analysis.names import bind_import, canonical, dotted_name_ast
from ..analysis.tree import children
from ..analysis.syntax import is_optimizer_step, is_plain_backward, is_scaler_expr, method_call, tests_interval
from ..analysis.walker import IF, LOOP, Rule

DDP = "torch.nn.parallel.DistributedDataParallel"
# Any of these in the module means it controls DDP's gradient sync itself: ``model.no_sync()``, or
# ``model.require_backward_grad_sync = ...`` (nanoGPT), or FSDP2's ``set_requires_gradient_sync``.
_SYNC_CONTROL = frozenset(("no_sync", "require_backward_grad_sync", "set_requires_gradient_sync"))


class DdpAccumulationWithoutNoSync(Rule):
    code = "TPL207"
    message = (
        "gradient accumulation on a DistributedDataParallel model: this backward runs every time round "
        "but the optimizer steps only every few rounds, and DDP all-reduces all gradients on each "
        "backward; run the forward and backward of the micro-batches that do not step under "
        "`with model.no_sync():` (DDP decides at the forward; one all-reduce per optimizer step) "
        "(runtime_guard: all-reduces per optimizer step observed)"
    )
    prefilter = ((".backward(",), ("%",), (".step(",))
    file_prefilter = (("DistributedDataParallel",),)
    needs_step_loop = True  # reports only in a step loop (current_step_loop)

    def visit_Call(self, node: cst.Call) -> None:
        if not is_plain_backward(node):
            return
        ctx = self.ctx
        loop = ctx.current_step_loop()
        if loop is None:
            return
        # the branch of each ``if`` around the backward that holds it: a step in the other branch
        # runs on another path (SimMIM's ``if ACCUMULATION_STEPS > 1: ... else:``, holdout134)
        taken = {id(b.node): b.body for b in ctx.blocks_inside(loop) if b.kind == IF}
        # names that hold an interval test (``update_grad = (i % accum) == accum - 1`` ... ``if
        # update_grad: optimizer.step()``: Halton-MaskGIT, holdout192; R164)
        names = ctx.interval_names_of(loop)
        steps = list(_optimizer_steps(loop.node.body, ctx, False, taken, names))
        if not steps and loop.kind == LOOP and loop in ctx.frame.blocks:
            # a backward in a loop of its own inside the accumulation loop (dynamic-tinybert's
            # sandwich of sub-networks, ``for i in range(num_sandwich + 1): ... loss.backward()``,
            # holdout49): the loop around it that steps the optimizer decides
            for block in reversed(ctx.frame.blocks[:ctx.frame.blocks.index(loop)]):
                if block.kind == LOOP:
                    names = ctx.interval_names_of(block)
                    steps = list(_optimizer_steps(block.node.body, ctx, False, taken, names))
                    if steps:
                        loop = block
                        break
        if any(b.kind == IF and tests_interval(b.node.test, interval_names=names) for b in ctx.blocks_inside(loop)):
            return  # the backward itself runs only every few rounds
        if not steps:
            return  # no step here: nothing is accumulated
        if not all(interval for _, interval in steps):
            # some step runs every time round: the step this backward feeds decides, the first
            # after it in the body (or, after the last, the first of the next time round). A GAN
            # whose discriminator steps every batch while its generator accumulates
            # (VISinger2's ``loss_gen_all.backward()`` before ``if (global_step+1) % accum == 0:
            # optim_g.step()``, holdout225; R199)
            ordered = list(_optimizer_steps(loop.node.body, ctx, False, taken, names, mark=node))
            at = next((i for i, (call, _) in enumerate(ordered) if call is node), None)
            after = [interval for _, interval in ordered[at + 1:] if interval is not None] if at is not None else []
            fed = after[0] if after else next((interval for _, interval in ordered if interval is not None), False)
            if not fed:
                return  # the step it feeds runs every time round: nothing is accumulated
        facts = ctx.facts
        wraps, controls_sync = facts.derived("TPL207.ddp", ddp_facts)
        if wraps and not controls_sync:
            self.report(node)


def _optimizer_steps(node: cst.CSTNode, ctx, interval: bool, taken=None,
                     names: FrozenSet[str] = frozenset(), mark=None) -> Iterator[Tuple[cst.Call, Optional[bool]]]:
    """The optimizer (or scaler) steps in a loop body, in source order, each with whether an interval
    ``if`` (``if (i + 1) % accum == 0:``, or a test of a name that holds one: ``names``) guards it.
    Nested loops, functions and classes are not looked into. ``taken``: for the ``if``s around the
    backward (by id), the branch that holds it; only that branch of them is read. ``mark``: a call
    yielded with None where the walk passes it (the backward, to tell the steps after it)."""
    taken = taken or {}
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While)):
        return
    if isinstance(node, cst.IndentedBlock):
        for statement in node.body:
            yield from _optimizer_steps(statement, ctx, interval, taken, names, mark)
            # ``if (i + 1) % accum != 0: continue``: what follows runs only at the interval (SLIP)
            interval = interval or _skips_rest_under_interval(statement, names)
        return
    if isinstance(node, cst.If):
        branch = taken.get(id(node))
        guarded = interval or tests_interval(node.test, interval_names=names)
        if branch is None or branch is node.body:
            yield from _optimizer_steps(node.body, ctx, guarded, taken, names, mark)
        if node.orelse is not None and (branch is None or branch is node.orelse):
            yield from _optimizer_steps(node.orelse, ctx, interval, taken, names, mark)
        return
    if node is mark:
        yield node, None
    elif isinstance(node, cst.Call) and _is_step(node, ctx):
        yield node, interval
    for _, child in children(node):
        yield from _optimizer_steps(child, ctx, interval, taken, names, mark)


def _skips_rest_under_interval(statement: cst.CSTNode, names: FrozenSet[str] = frozenset()) -> bool:
    """``if <interval test>: continue`` (no ``else``): the rest of the loop body is the interval."""
    if not (isinstance(statement, cst.If) and statement.orelse is None
            and tests_interval(statement.test, interval_names=names)):
        return False
    body = statement.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    parts = last.body if isinstance(last, cst.SimpleStatementLine) else (
        body.body if isinstance(body, cst.SimpleStatementSuite) else ())
    return any(isinstance(part, cst.Continue) for part in parts)


def _is_step(call: cst.Call, ctx) -> bool:
    if is_optimizer_step(call, ctx) is not None:
        return True
    found = method_call(call)
    return found is not None and found[1] == "step" and is_scaler_expr(found[0], ctx)


def ddp_facts(tree: ast.Module, table) -> Tuple[bool, bool]:
    """(the module wraps a model in torch's DistributedDataParallel, the module controls DDP's
    gradient sync itself). Imports inside functions count (``from torch.nn.parallel import
    DistributedDataParallel as DDP`` in ``main()``)."""
    bindings = dict(table.bindings)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bind_import(bindings, node)
    wraps = controls = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _SYNC_CONTROL:
            controls = True
        elif isinstance(node, ast.Name) and node.id in _SYNC_CONTROL:
            controls = True
        elif isinstance(node, ast.Call) and not wraps:
            dotted = dotted_name_ast(node.func)
            if dotted:
                head, _, rest = dotted.partition(".")
                base = bindings.get(head)
                if base is not None and canonical(f"{base}.{rest}" if rest else base) == DDP:
                    wraps = True
    return wraps, controls


RULE = DdpAccumulationWithoutNoSync
RULE.VALID = (
    """
import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model)
for i, (x, y) in enumerate(loader):
    sync = (i + 1) % accum == 0
    with model.no_sync() if not sync else contextlib.nullcontext():
        loss = loss_fn(model(x), y) / accum
        loss.backward()
    if sync:
        optimizer.step()
        optimizer.zero_grad()
""",
    """
import torch
model = torch.nn.parallel.DistributedDataParallel(model)
for i, (x, y) in enumerate(loader):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()                       # steps every time round: nothing accumulated
    optimizer.zero_grad()
    if i % 100 == 0:
        print(loss.item())
""",
    """
import torch
for i, (x, y) in enumerate(loader):       # no DistributedDataParallel in this module
    loss = loss_fn(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
    """
import torch
from torch.nn.parallel import DistributedDataParallel
model = DistributedDataParallel(model)
for micro_step in range(accum):
    model.require_backward_grad_sync = micro_step == accum - 1   # nanoGPT's way
    loss = model(x, y) / accum
    loss.backward()
    if (micro_step + 1) % accum == 0:
        optimizer.step()
""",
    """
import torch
model = torch.nn.parallel.DistributedDataParallel(model)
for i, (x, y) in enumerate(loader):
    loss = loss_fn(model(x), y)
    if accum > 1:
        pass
    else:
        loss.backward()                    # this branch steps every time round
        optimizer.step()
""",
)
RULE.INVALID = (
    """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model, device_ids=[rank])
for i, (x, y) in enumerate(loader):
    loss = loss_fn(model(x), y) / accum
    loss.backward()  # TPL207
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
    """
import torch
def train(model, loader, optimizer, scaler, accum, rank):
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])
    for epoch in range(10):
        for step, batch in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(batch).mean() / accum
            scaler.scale(loss).backward()  # TPL207
            if step % accum == accum - 1:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
""",
    """
import torch
from torch.nn.parallel import DistributedDataParallel
model = DistributedDataParallel(model)
for data_iter, inputs in enumerate(loader):
    loss = model(*inputs).mean() / update_freq
    scaler.scale(loss).backward()  # TPL207
    if (data_iter + 1) % update_freq != 0:
        continue                   # SLIP: what follows runs every update_freq rounds
    scaler.step(optimizer)
    scaler.update()
""",
    """
import torch
model = torch.nn.parallel.DistributedDataParallel(model)
for i, (x, y) in enumerate(loader):
    loss = loss_fn(model(x), y)
    if accum > 1:                  # SimMIM: the else steps every round, this branch accumulates
        (loss / accum).backward()  # TPL207
        if (i + 1) % accum == 0:
            optimizer.step()
    else:
        loss.backward()
        optimizer.step()
""",
    """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model)
for i_bar, data in enumerate(loader):
    update_grad = (i_bar % grad_cum) == grad_cum - 1   # a name holding the interval test (R164)
    loss = model(data).mean() / grad_cum
    loss.backward()  # TPL207
    if update_grad:
        optimizer.step()
""",
)
RULE.WHY = """\
DistributedDataParallel all-reduces every gradient bucket at the end of every backward pass. With
gradient accumulation (`backward()` on each micro-batch, `optimizer.step()` every `accum`
micro-batches) only the last all-reduce before a step is needed: the others exchange the whole
gradient over the network for nothing, `accum - 1` times per step. `model.no_sync()` turns the
reduction off for the backward passes under it; the gradients accumulate locally and the first
backward outside it all-reduces the accumulated sum. The forward pass must run under `no_sync()`
too: DDP prepares the all-reduce when the forward runs."""
RULE.EXAMPLE = """\
for i, (x, y) in enumerate(loader):
    loss = loss_fn(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()"""
RULE.USE_INSTEAD = """\
for i, (x, y) in enumerate(loader):
    stepping = (i + 1) % accum == 0
    with contextlib.nullcontext() if stepping else model.no_sync():
        loss = loss_fn(model(x), y) / accum
        loss.backward()
    if stepping:
        optimizer.step()
        optimizer.zero_grad()"""
RULE.FIX_NOTE = (
    "No autofix: the forward pass must move under `no_sync()` too (DDP decides at forward time), "
    "which restructures the loop."
)
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html#torch.nn.parallel.DistributedDataParallel.no_sync",
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html",
)
