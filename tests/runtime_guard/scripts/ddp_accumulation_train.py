"""Gradient accumulation on a DDP model, run under torchrun (2 processes, gloo) by the tests.

ACCUM micro-batches per optimizer step, STEPS optimizer steps. With NO_SYNC=1 the micro-batches
that do not step run under ``model.no_sync()``, as they should. With FP16=1 each micro-batch's
forward runs under float16 autocast without a GradScaler and its loss is ~1e-8 (every float16
gradient underflows unless the guard scales the loss): the accumulated gradient each step uses must
still be the true one, local micro-batches under ``no_sync`` included. Writes what the guard
reported and the final parameters to $OUT_DIR/rank{RANK}.pt.
"""
import contextlib
import os

import runtime_guard
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

ACCUM = int(os.environ.get("ACCUM", "4"))
STEPS = int(os.environ.get("STEPS", "3"))
NO_SYNC = os.environ.get("NO_SYNC") == "1"
FP16 = os.environ.get("FP16") == "1"
TINY = 1e-8


def counting_hook(counts):
    """Ground truth from DDP itself: a communication hook (the default all-reduce) that counts the
    backward passes whose last gradient bucket it reduced; ``counts[-1]`` is the current step."""

    def hook(state, bucket):
        if bucket.is_last():
            counts[-1] += 1
        return default_hooks.allreduce_hook(state, bucket)

    return hook


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)))
    reduced = [0]
    model.register_comm_hook(None, counting_hook(reduced))
    opt = torch.optim.SGD(model.parameters(), lr=1e6 if FP16 else 0.1)
    g = torch.Generator().manual_seed(rank)
    data = [(torch.randn(4, 8, generator=g), torch.randn(4, 1, generator=g)) for _ in range(ACCUM * STEPS)]
    with torch.no_grad():
        model(data[0][0])  # an evaluation forward: no backward, no all-reduce
    for i, (x, y) in enumerate(data):
        stepping = (i + 1) % ACCUM == 0
        context = model.no_sync() if NO_SYNC and not stepping else contextlib.nullcontext()
        with context:
            if FP16:
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = nn.functional.mse_loss(model(x).float(), y) * TINY / ACCUM
            else:
                loss = nn.functional.mse_loss(model(x), y) / ACCUM
            loss.backward()
        if stepping:
            opt.step()
            opt.zero_grad()
            reduced.append(0)
    fix = runtime_guard.GUARD.fix("ddp_accumulation")
    out = {
        "per_step": fix.all_reduces_per_step(),
        "comm_hook_per_step": reduced[:-1],
        "events": [(e.code, e.action, e.location, e.count, e.detail) for e in runtime_guard.report()],
        "params": [p.detach().clone() for p in model.parameters()],
    }
    torch.save(out, os.path.join(os.environ["OUT_DIR"], f"rank{rank}.pt"))
    from _clean_exit import destroy_group_and_settle  # here: the line numbers above are asserted
    destroy_group_and_settle()


if __name__ == "__main__":
    main()
