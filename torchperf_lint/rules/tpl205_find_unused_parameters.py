"""TPL205 find-unused-parameters: ``DistributedDataParallel(..., find_unused_parameters=True)``."""

from __future__ import annotations

import libcst as cst

from ..analysis.syntax import is_true, keyword
from ..analysis.walker import Rule

DDP = "torch.nn.parallel.DistributedDataParallel"


class FindUnusedParameters(Rule):
    code = "TPL205"
    message = (
        "`find_unused_parameters=True` makes DDP traverse the autograd graph after every forward and "
        "delays gradient reduction; remove it unless some parameters really get no gradient"
    )
    prefilter = (("find_unused_parameters",),)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) != DDP:
            return
        flag = keyword(node, "find_unused_parameters")
        if flag is not None and is_true(flag.value):
            self.report(node)


RULE = FindUnusedParameters
RULE.VALID = (
    """
from torch.nn.parallel import DistributedDataParallel as DDP
a = DDP(model, device_ids=[rank])
b = DDP(model, device_ids=[rank], find_unused_parameters=False)
c = DDP(model, device_ids=[rank], find_unused_parameters=cfg.find_unused)   # a value we cannot see
""",
)
RULE.INVALID = (
    """
import torch
model = torch.nn.parallel.DistributedDataParallel(  # TPL205
    model, device_ids=[rank], find_unused_parameters=True
)
""",
)
RULE.WHY = """\
With `find_unused_parameters=True`, DDP walks the autograd graph from the outputs after every
forward pass to mark parameters that will get no gradient, and cannot start all-reducing a bucket
until it knows. The traversal costs CPU time each step and the reduction overlaps less with the
backward pass. Only models with branches that skip parameters need it."""
RULE.EXAMPLE = "DistributedDataParallel(model, device_ids=[rank], find_unused_parameters=True)"
RULE.USE_INSTEAD = "DistributedDataParallel(model, device_ids=[rank])"
RULE.FIX_NOTE = "No autofix: only the author knows whether every parameter gets a gradient."
RULE.REFERENCES = ("https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html",)
