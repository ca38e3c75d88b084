"""TPL202 ddp-without-syncbn: DDP of a model with BatchNorm that is never converted to SyncBatchNorm."""

from __future__ import annotations

import libcst as cst

from ..catalog import UNSAFE
from ..findings import RuleFix
from ..analysis.syntax import keyword, positional, string_value
from ..analysis.tree import descendants
from ..analysis.walker import Rule

DDP = "torch.nn.parallel.DistributedDataParallel"


class DdpWithoutSyncBatchNorm(Rule):
    code = "TPL202"
    message = (
        "this module builds BatchNorm layers and wraps the model in DistributedDataParallel without "
        "SyncBatchNorm: each GPU normalises with its own small batch's statistics; call "
        "`model = nn.SyncBatchNorm.convert_sync_batchnorm(model)` before wrapping "
        "(runtime_guard: SyncBN conversion)"
    )
    prefilter = (("DistributedDataParallel", "DDP"),)
    file_prefilter = (("BatchNorm",),)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.qualname(node.func) != DDP:
            return
        if not ctx.facts.builds_batchnorm or ctx.facts.converts_syncbn:
            return
        if isinstance(ctx.frame.node, cst.FunctionDef) and ctx.facts.step_bodies.callers_convert_syncbn(
                ctx.function_qualname()):
            return  # a DDP helper whose callers, in other files, convert the model first (a project fact)
        self.report(node, fix=self._fix(node))

    def _fix(self, node: cst.Call):
        args = positional(node)
        torch_name = next((n for n, q in self.ctx.table.bindings.items() if q == "torch"), None)
        if not args or torch_name is None or args[0] is not node.args[0]:
            return None
        if self._gloo_only():
            return None  # SyncBatchNorm raises on CPU tensors: a gloo (CPU) run would stop
        convert = cst.parse_expression(f"{torch_name}.nn.SyncBatchNorm.convert_sync_batchnorm(x)")
        wrapped = convert.with_changes(args=[cst.Arg(args[0].value)])
        new_args = [node.args[0].with_changes(value=wrapped), *node.args[1:]]
        return RuleFix(UNSAFE, "convert BatchNorm layers to SyncBatchNorm before wrapping",
                       [(node, node.with_changes(args=new_args))])

    def _gloo_only(self) -> bool:
        """The process group around the DDP call is started with the gloo (CPU) backend only: the
        nearest block around the call that starts one decides (``if args.cpu:
        init_process_group("gloo"); model = DDP(model)``), else the whole unit."""
        for ancestor in reversed(self.ctx.stack):
            if not isinstance(ancestor, (cst.IndentedBlock, cst.Module)):
                continue
            backends = [self._backend(node) for node in descendants(ancestor)
                        if isinstance(node, cst.Call)
                        and self.ctx.qualname(node.func) == "torch.distributed.init_process_group"]
            if backends:
                return all(b is not None and "gloo" in b and "nccl" not in b for b in backends)
        return False

    @staticmethod
    def _backend(init: cst.Call):
        arg = keyword(init, "backend") or next(iter(positional(init)), None)
        return string_value(arg.value) if arg is not None else None


RULE = DdpWithoutSyncBatchNorm
RULE.VALID = (
    """
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
model = DDP(model, device_ids=[rank])
""",
    """
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
model = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8))     # no BatchNorm
model = DDP(model, device_ids=[rank])
""",
)
RULE.INVALID = (
    """
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.bn = nn.BatchNorm2d(16)
model = torch.nn.parallel.DistributedDataParallel(Net().cuda(), device_ids=[rank])  # TPL202
""",
)
RULE.FIXES = (
    (
        "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "m = torch.nn.BatchNorm1d(4)\nm = DDP(m, device_ids=[0])\n",
        "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "m = torch.nn.BatchNorm1d(4)\nm = DDP(torch.nn.SyncBatchNorm.convert_sync_batchnorm(m), device_ids=[0])\n",
    ),
)
RULE.WHY = """\
Under DistributedDataParallel every process sees only its shard of the batch, and plain BatchNorm
computes mean and variance over that shard alone. With small per-GPU batches the statistics are
noisy, the running estimates used at evaluation drift, and accuracy drops compared with one large
batch. SyncBatchNorm all-reduces the statistics across processes so every GPU normalises with the
whole global batch."""
RULE.EXAMPLE = "model = DistributedDataParallel(model, device_ids=[rank])"
RULE.USE_INSTEAD = "model = nn.SyncBatchNorm.convert_sync_batchnorm(model)\nmodel = DistributedDataParallel(model, device_ids=[rank])"
RULE.FIX_NOTE = """\
Unsafe: SyncBatchNorm changes the numerics (and adds a collective per BatchNorm layer); with large
per-GPU batches plain BatchNorm can be the deliberate choice. SyncBatchNorm works only on device
tensors: in a CPU training run (the gloo backend) its forward raises `ValueError: SyncBatchNorm
expected input tensor to be on GPU or XPU ...`, so a script that also runs on CPU must convert
only when CUDA is used (`if torch.cuda.is_available(): model =
nn.SyncBatchNorm.convert_sync_batchnorm(model)`). The fix is not offered where the code around the DDP call starts the process group with gloo only."""
RULE.REFERENCES = ("https://pytorch.org/docs/stable/generated/torch.nn.SyncBatchNorm.html",)
