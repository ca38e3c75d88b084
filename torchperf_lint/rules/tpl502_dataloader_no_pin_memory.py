"""TPL502 dataloader-no-pin-memory: batches copied to CUDA from pageable memory."""

from __future__ import annotations

import libcst as cst

from ..catalog import SAFE
from ..edits import add_keyword, set_keyword
from ..findings import RuleFix
from ..syntax import has_splat, is_false, is_in_memory_data, keyword, positional
from ..walker import Rule

DATALOADER = "torch.utils.data.DataLoader"
PIN_MEMORY_POSITION = 7


class DataLoaderNoPinMemory(Rule):
    code = "TPL502"
    message = (
        "this module copies batches to the GPU but the DataLoader does not pin memory: each copy goes "
        "through a staging buffer and blocks; pass `pin_memory=True` (and copy with "
        "`non_blocking=True`) (runtime_guard: loader defaults)"
    )
    prefilter = (r"DataLoader",)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.qualname(node.func) != DATALOADER or has_splat(node):
            return
        if len(positional(node)) > PIN_MEMORY_POSITION:
            return
        pin = keyword(node, "pin_memory")
        if pin is not None and not is_false(pin.value):
            return  # True, or a value we cannot see
        data = positional(node) or [keyword(node, "dataset")]
        if data[0] is not None and is_in_memory_data(data[0].value, ctx):
            return  # range(n) or a list: Python numbers, nothing worth pinning
        if not ctx.facts.moves_data_to_cuda:
            return
        if pin is None:
            fixed = add_keyword(node, "pin_memory", cst.Name("True"))
        else:
            fixed = set_keyword(node, "pin_memory", cst.Name("True"))
        self.report(node, fix=RuleFix(SAFE, "pass pin_memory=True", [(node, fixed)]))


RULE = DataLoaderNoPinMemory
RULE.VALID = (
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True)
other = DataLoader(ds, batch_size=32, pin_memory=use_cuda)     # a value we cannot see
third = DataLoader(ds, **kwargs)
fifth = DataLoader(range(10), batch_size=2)                    # Python ints: nothing to pin
for x, y in loader:
    x = x.cuda(non_blocking=True)
""",
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=32, num_workers=4)          # this module never moves data to CUDA
for x, y in loader:
    loss = model(x).sum()
""",
)
RULE.INVALID = (
    """
import torch
from torch.utils.data import DataLoader
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(ds, batch_size=32, num_workers=4)  # TPL502
unpinned = DataLoader(TensorDataset(x, y), num_workers=2, pin_memory=False)  # TPL502
for x, y in loader:
    x, y = x.to(device), y.to(device)
""",
)
RULE.FIXES = (
    (
        "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32)\n"
        "for x in loader:\n    x = x.cuda()\n",
        "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, pin_memory=True)\n"
        "for x in loader:\n    x = x.cuda()\n",
    ),
)
RULE.WHY = """\
The GPU's DMA engine can only read page-locked (pinned) host memory. A copy from ordinary pageable
memory is staged: the driver copies the batch into a pinned buffer first, and the call blocks the
Python thread until the transfer ends. With `pin_memory=True` the loader's pin thread puts each batch
in pinned memory ahead of time, and `.to(device, non_blocking=True)` overlaps the copy with compute."""
RULE.EXAMPLE = """\
loader = DataLoader(dataset, batch_size=64, num_workers=8)
for x, y in loader:
    x, y = x.to("cuda"), y.to("cuda")"""
RULE.USE_INSTEAD = """\
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for x, y in loader:
    x, y = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)"""
RULE.FIX_NOTE = """\
Safe: pinning changes where batches live on the host, not their values; without an accelerator
torch warns and does nothing."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/data.html#memory-pinning",
    "https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html",
)
