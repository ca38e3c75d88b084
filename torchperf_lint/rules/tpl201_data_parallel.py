"""TPL201 data-parallel: ``torch.nn.DataParallel`` instead of DistributedDataParallel."""

from __future__ import annotations

import libcst as cst

from ..analysis.walker import Rule


class DataParallelUsed(Rule):
    code = "TPL201"
    message = (
        "`nn.DataParallel` runs one Python thread for all GPUs and copies the model to each every "
        "step; use `DistributedDataParallel`, one process per GPU, launched with `torchrun` "
        "(runtime_guard: DDP wrapping)"
    )
    prefilter = (("DataParallel",),)
    reports_at_calls_to = frozenset(("torch.nn.DataParallel",))

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) == "torch.nn.DataParallel":
            self.report(node)


RULE = DataParallelUsed
RULE.VALID = (
    """
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model, device_ids=[local_rank])
if isinstance(model, nn.DataParallel):         # a type test is not a use
    model = model.module
def unwrap(m: nn.DataParallel) -> nn.Module:   # nor an annotation
    return m.module
""",
    """
import torch
class DataParallel:                            # the project's own class
    def __init__(self, module):
        self.module = module
wrapped = DataParallel(torch.nn.Linear(2, 2))
""",
)
RULE.INVALID = (
    """
import torch
model = torch.nn.DataParallel(model)  # TPL201
""",
    """
from torch.nn import DataParallel as DP
import torch.nn.parallel
a = DP(net, device_ids=[0, 1])  # TPL201
b = torch.nn.parallel.DataParallel(net)  # TPL201
""",
)
RULE.WHY = """\
DataParallel is single-process: every step it scatters the batch from GPU 0, replicates the model
to every GPU, runs the replicas in Python threads that contend for the GIL, and gathers the outputs
and gradients back on GPU 0, which gets more memory and more work than the others. PyTorch's own
documentation recommends DistributedDataParallel even on a single machine: one process per GPU,
gradients all-reduced in buckets that overlap with the backward pass."""
RULE.EXAMPLE = "model = nn.DataParallel(model).cuda()"
RULE.USE_INSTEAD = """\
# launched with: torchrun --nproc_per_node=NUM_GPUS train.py
dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = DistributedDataParallel(model.to(local_rank), device_ids=[local_rank])"""
RULE.FIX_NOTE = "No autofix: DDP needs a launcher, a process group and a sharded sampler."
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html",
    "https://pytorch.org/docs/stable/notes/cuda.html#use-nn-parallel-distributeddataparallel-instead-of-multiprocessing-or-nn-dataparallel",
)
