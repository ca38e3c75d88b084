"""TPL103 empty-cache-in-loop: ``torch.cuda.empty_cache()`` called in every iteration."""

from __future__ import annotations

import libcst as cst

from ..analysis.memory_measurement import measures_peak_memory
from ..analysis.step_loops import is_retry_loop
from ..analysis.syntax import OPTIMIZER_WORD, last_identifier, tests_interval, tests_once
from ..analysis.tree import descendants
from ..analysis.walker import Rule


class EmptyCacheInLoop(Rule):
    code = "TPL103"
    message = (
        "`torch.cuda.empty_cache()` in a loop frees the allocator's cache only for it to be "
        "re-allocated with synchronous cudaMalloc calls; remove it (the caching allocator reuses memory)"
    )
    prefilter = (("empty_cache",), ("for", "while"), r"\b(?:for|while)\b")
    needs_step_loop = True  # reports only in a step loop (current_step_loop)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.qualname(node.func) != "torch.cuda.empty_cache":
            return
        loop = ctx.current_step_loop()
        # Recovering from out-of-memory in an ``except`` is its documented use, and so is freeing
        # memory before another attempt in a retry loop; a branch that leaves the loop runs it once.
        if loop is None or ctx.in_except_handler(loop) or ctx.leaves_loop(loop) or is_retry_loop(loop.node):
            return
        function = next((n for n in reversed(ctx.stack) if isinstance(n, cst.FunctionDef)), None)
        if function is not None and measures_peak_memory(function, ctx.qualname):
            return  # a clean start for a peak-memory measurement (R43)
        if ctx.under_interval_check(loop) and (not _in_optimizer_block(ctx, loop)
                                               or _interval_inside_optimizer_block(ctx, loop)):
            # rules.md "A step body": inside a step body "the rules of a step loop body apply
            # unchanged: the interval ``if`` is the remedy"; so it is in a step loop's body too
            # (the lead's reading R9: ``if step % 100 == 0: empty_cache()`` frees the cache once per
            # 100 steps, which costs nothing per step). An ``if`` that runs the optimizer step or
            # clears its gradients (the gradient-accumulation boundary, ConvNeXt-V2's
            # ``if (i + 1) % update_freq == 0: optimizer.zero_grad()``) runs at every update.
            return
        outer_counters = None
        for block in ctx.blocks_inside(loop):
            if block.kind == "if" and block.body is block.node.body:
                if outer_counters is None:
                    outer_counters = ctx.outer_loop_targets(loop)  # ``if fold == 0:`` holds a whole fold
                if _accumulation_boundary(block.node):
                    continue  # every optimizer update, whatever its last-step disjunct says (R52)
                if tests_once(block.node.test, outer_counters) or _flag_set_in_handler(loop.node, block.node.test):
                    return  # once (``if step == 0:``), or recovery decided by an except handler
        self.report(node)


def _accumulation_boundary(node: cst.If) -> bool:
    """``if (step + 1) % accumulation_steps == 0 or (len(loader) <= accumulation_steps and step + 1 ==
    len(loader)):`` around ``optimizer.step()``: the gradient-accumulation boundary of Hugging Face's
    example scripts (run_glue and its copies), taken at every optimizer update. Its last-step
    disjunct only adds the last batch of a short epoch; it does not make the block run once (R52).
    An ``or`` with a ``%`` operand whose body calls an optimizer method."""
    test = node.test
    if not (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or)):
        return False
    return any(isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Modulo)
               for n in descendants(test)) and _calls_optimizer(node.body)


def _in_optimizer_block(ctx, loop) -> bool:
    """Is the current node in an ``if`` of ``loop`` whose body calls a method of an optimizer
    (``optimizer.zero_grad()``, ``opt.step()``): the block that runs at every optimizer update?"""
    return any(_calls_optimizer(block.node.body) for block in _if_bodies(ctx, loop))


def _interval_inside_optimizer_block(ctx, loop) -> bool:
    """Is the current node, inside the block that runs at every optimizer update, also under an
    interval ``if`` of its own that calls no optimizer method (CodeT5: ``if (step + 1) % accum ==
    0: optimizer.step(); ...; if global_step % save_steps == 0: ...; empty_cache()``)? That inner
    ``if`` runs once per ``save_steps`` updates: the remedy, as in a loop body (R9); only the
    accumulation ``if`` itself is no interval."""
    blocks = _if_bodies(ctx, loop)
    last = max((i for i, block in enumerate(blocks) if _calls_optimizer(block.node.body)), default=None)
    if last is None:
        return False
    counters = ctx.outer_loop_targets(loop)
    return any(tests_interval(block.node.test, counters) and not _calls_optimizer(block.node.body)
               for block in blocks[last + 1:])


def _if_bodies(ctx, loop) -> list:
    """The ``if`` blocks between ``loop`` and the current node whose body (not ``else``) holds it."""
    return [block for block in ctx.blocks_inside(loop) if block.kind == "if" and block.body is block.node.body]


# Methods that read or restore an optimizer's state run no update: a checkpoint saved in an
# interval block (``torch.save({..., "optimizer": optimizer.state_dict()})``, Uformer) does not
# make that block the accumulation boundary.
_STATE_METHODS = frozenset({"state_dict", "load_state_dict"})


def _calls_optimizer(body) -> bool:
    for node in descendants(body):
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and node.func.attr.value not in _STATE_METHODS
                and OPTIMIZER_WORD.search(last_identifier(node.func.value) or "") is not None
                and "sched" not in (last_identifier(node.func.value) or "").lower()):
            return True
    return False


def _flag_set_in_handler(loop: cst.CSTNode, test: cst.BaseExpression) -> bool:
    """``if has_oom:`` where an ``except`` handler of the loop sets ``has_oom``: OOM recovery."""
    names = {n.value for n in descendants(test) if isinstance(n, cst.Name)}
    if not names:
        return False
    for node in descendants(loop.body):
        if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
            for inner in descendants(node.body):
                if isinstance(inner, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value in names for t in inner.targets
                ):
                    return True
    return False


RULE = EmptyCacheInLoop
RULE.VALID = (
    """
import torch
def evaluate(model, loader):
    for batch in loader:
        try:
            model(batch)
        except torch.cuda.OutOfMemoryError:
            torch.cuda.empty_cache()          # recovery: its documented use
    torch.cuda.empty_cache()                  # once, after the loop
""",
    """
import torch
for trial in trials:
    if trial.failed:
        torch.cuda.empty_cache()
        break
    run(trial)
""",
    """
class cuda:
    @staticmethod
    def empty_cache():
        pass
for i in range(3):
    cuda.empty_cache()                        # no torch in this file at all
""",
    """
import torch
def find_batch_size(run, batch_size):
    while batch_size:                         # a retry loop: freeing memory before the next attempt
        torch.cuda.empty_cache()
        try:
            return run(batch_size)
        except RuntimeError:
            batch_size //= 2
""",
    """
import torch
def train(model, loader, opt, num_updates):
    for x in loader:
        has_oom = False
        try:
            model(x).sum().backward()
            opt.step()
        except RuntimeError:
            has_oom = True
        if has_oom:
            torch.cuda.empty_cache()          # recovery, decided in the handler
        if num_updates == 0:
            torch.cuda.empty_cache()          # once, after the first step
        num_updates += 1
""",
    """
import torch
for path in checkpoint_paths:                 # not a step loop: converting files
    state = torch.load(path, map_location="cpu")
    save(convert(state))
    torch.cuda.empty_cache()
""",
    """
import torch
for step, (x, y) in enumerate(loader):
    loss = model(x).sum()
    loss.backward()
    if step < 3:                   # the first few steps only, while memory use settles
        torch.cuda.empty_cache()
""",
    """
import torch
for step, (x, y) in enumerate(loader):
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    if step % 100 == 0:            # an interval: once per 100 steps (R9)
        torch.cuda.empty_cache()
""",
)
RULE.INVALID = (
    """
import torch
for epoch in range(epochs):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        torch.cuda.empty_cache()  # TPL103
""",
    """
from torch import cuda
step = 0
while step < total:
    loss = model(next(batches)).sum()
    loss.backward()
    step += 1
    cuda.empty_cache()  # TPL103
""",
    """
import torch
for epoch in range(epochs):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        if epoch == 0:                # every step of the first epoch, not once
            torch.cuda.empty_cache()  # TPL103
""",
    """
import torch
for step, x in enumerate(loader):
    model(x).sum().backward()
    if step % accumulation == 0:      # runs the optimizer step: every update, no interval
        optimizer.step()
        torch.cuda.empty_cache()  # TPL103
""",
    """
import torch
for step, x in enumerate(loader):
    loss_scaler(model(x).sum(), optimizer, update_grad=(step + 1) % accumulation == 0)
    if (step + 1) % accumulation == 0:  # the update's boundary: it clears the gradients
        optimizer.zero_grad()
        torch.cuda.empty_cache()  # TPL103
""",
)
RULE.WHY = """\
PyTorch keeps freed blocks in a caching allocator so the next step reuses them without calling
`cudaMalloc`/`cudaFree`, which synchronise the device. `empty_cache()` hands the cache back to the
driver; the next iteration allocates the same blocks again, synchronously. It does not make more
memory available to your own tensors, only to other processes.

Only step loops are checked (see TPL102). Freeing the cache to recover from out-of-memory is its
documented use: in an `except` handler, under a flag such a handler sets, in a retry loop that tries
again with a smaller batch (a `try` that only catches lookup errors, `except AttributeError:`, picks
a fallback, one that only catches `StopIteration` starts a loader again (reading R61), and one
around the freeing call alone frees nothing for another attempt: none of them makes a retry loop), or once (`if step == 0:`, or the first few steps, `if step < 5:`, on
that loop's own counter: `if epoch == 0:` on an outer loop's counter holds for a whole epoch) it is
not flagged; nor under an interval (`if step % 100 == 0:`, or after an early `return`/`continue`
under one), which frees the cache once per period: an `if` that itself runs the optimizer step
(gradient accumulation) is no interval, nor once when its test adds the last batch of a short
epoch (`(step + 1) % n == 0 or step + 1 == len(loader)`); one that only saves
`optimizer.state_dict()` in a checkpoint still is. Nor is a process's share of the items (`if idx %
world_size != rank: continue`, BasicSR's distributed validation): every item of the share frees the
cache (reading R70)."""
RULE.EXAMPLE = "for x, y in loader:\n    train_step(x, y)\n    torch.cuda.empty_cache()"
RULE.USE_INSTEAD = "for x, y in loader:\n    train_step(x, y)"
RULE.FIX_NOTE = "No autofix: removing a call is left to the author."
RULE.REFERENCES = ("https://pytorch.org/docs/stable/notes/cuda.html#memory-management",)
