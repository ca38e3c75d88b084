"""Whole diagnostics for tests that assert more than (line, code): the finding's position, message
and fix, so a rule that drops its message or offers a fix it should not still fails; and the
message texts that many test files assert, written out once here.

The messages are literal copies of what the linter says, on purpose: a test that built its
expected message from the linter's catalog could not fail when the message changes."""

from __future__ import annotations

import textwrap

from torchperf_lint.catalog import CATALOG
from torchperf_lint.engine import lint_source

ALL_CODES = list(CATALOG)

# TPL102, a host sync in a loop; ``{what}`` is what syncs (`.item()`, formatting a tensor, ...).
SYNC_TEMPLATE = ("{what} waits for the device in every iteration; keep values on the device (`total += "
                 "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")
ITEM_SYNC = SYNC_TEMPLATE.format(what="`.item()`")
CPU_SYNC = SYNC_TEMPLATE.format(what="`.cpu()`")
# TPL103
EMPTY_CACHE = ("`torch.cuda.empty_cache()` in a loop frees the allocator's cache only for it to be re-allocated "
               "with synchronous cudaMalloc calls; remove it (the caching allocator reuses memory)")
# TPL104
PINNED_COPY = ("the batch is copied to the device synchronously although its DataLoader pins memory; add "
               "`non_blocking=True` so the copy overlaps with compute")
# TPL502
UNPINNED_LOADER = ("this module copies batches to the GPU but the DataLoader does not pin memory: each copy goes "
                   "through a staging buffer and blocks; pass `pin_memory=True` (and copy with `non_blocking=True`) "
                   "(runtime_guard: loader defaults)")
# TPL301
SCALER = ("float16 autocast around a backward pass without a GradScaler: small gradients underflow to zero in "
          "float16; create `scaler = torch.amp.GradScaler(\"cuda\")` and use `scaler.scale(loss).backward()`, "
          "`scaler.step(optimizer)`, `scaler.update()` (or autocast to bfloat16) (runtime_guard: AMP step)")
# TPL201
DATA_PARALLEL_MESSAGE = ("`nn.DataParallel` runs one Python thread for all GPUs and copies the model to each every "
                         "step; use `DistributedDataParallel`, one process per GPU, launched with `torchrun` "
                         "(runtime_guard: DDP wrapping)")
# TPL101, a tensor made on the CPU then moved; ``{factory}``: the torch function that made it.
CPU_CREATION_TEMPLATE = ("tensor is created on the CPU and then copied to the device; pass `device=` to "
                         "`torch.{factory}(...)` to create it there (runtime_guard: device-native creation)")


def rule_diagnostics(source: str, code: str):
    """(line, col, message, fix applicability, fix description) of each finding of ``code``."""
    found = lint_source(textwrap.dedent(source), codes=[code])
    return [(f.line, f.col, f.message, f.fix and f.fix.applicability, f.fix and f.fix.description)
            for f in found if f.code == code]


def found(source: str, codes=("TPL102",), path: str = "train.py"):
    """(code, line, col, message) of each finding of ``codes`` in ``source`` (not dedented), linted as ``path``."""
    return [(f.code, f.line, f.col, f.message) for f in lint_source(source, path, codes=codes)]


def all_diagnostics(source: str, *codes: str):
    """(code, line, col, message, fix) per finding of every rule, or only of ``codes``;
    fix = None or (applicability, description, edits)."""
    rows = []
    for f in lint_source(textwrap.dedent(source), codes=ALL_CODES):
        if codes and f.code not in codes:
            continue
        fix = None if f.fix is None else (f.fix.applicability, f.fix.description, tuple(f.fix.edits or ()))
        rows.append((f.code, f.line, f.col, f.message, fix))
    return rows
