"""TPL203 sampler-shuffle-conflict: ``DataLoader(sampler=..., shuffle=True)`` raises ValueError."""

from __future__ import annotations

import libcst as cst

from ..catalog import SAFE
from ..edits import drop_keyword
from ..findings import RuleFix
from ..syntax import is_none, is_true, keyword
from ..walker import Rule

DATALOADER = "torch.utils.data.DataLoader"


class SamplerShuffleConflict(Rule):
    code = "TPL203"
    message = (
        "`DataLoader` raises ValueError when given both `{sampler}=` and `shuffle=True`; drop "
        "`shuffle` (a `DistributedSampler` shuffles by itself; call its `set_epoch`)"
    )
    prefilter = (r"DataLoader", r"sampler", r"shuffle")

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) != DATALOADER:
            return
        shuffle = keyword(node, "shuffle")
        if shuffle is None or not is_true(shuffle.value):
            return
        for name in ("sampler", "batch_sampler"):
            arg = keyword(node, name)
            if arg is not None and not is_none(arg.value):
                fix = RuleFix(SAFE, "remove shuffle=True", [(node, drop_keyword(node, "shuffle"))])
                self.report(node, self.message.format(sampler=name), fix)
                return


RULE = SamplerShuffleConflict
RULE.VALID = (
    """
from torch.utils.data import DataLoader, DistributedSampler
sampler = DistributedSampler(ds)
a = DataLoader(ds, batch_size=32, sampler=sampler)
b = DataLoader(ds, batch_size=32, shuffle=True)
c = DataLoader(ds, batch_size=32, sampler=None, shuffle=True)
d = DataLoader(ds, batch_size=32, sampler=sampler, shuffle=(sampler is None))   # a value we cannot see
""",
)
RULE.INVALID = (
    """
import torch
from torch.utils.data.distributed import DistributedSampler
sampler = DistributedSampler(train_set)
loader = torch.utils.data.DataLoader(  # TPL203
    train_set, batch_size=32, sampler=sampler, shuffle=True, num_workers=4
)
""",
)
RULE.FIXES = (
    (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, sampler=s, shuffle=True)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, sampler=s)\n",
    ),
    (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, shuffle=True, sampler=s, num_workers=2)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, sampler=s, num_workers=2)\n",
    ),
)
RULE.WHY = """\
A sampler decides the order of the indices, and `shuffle=True` asks the DataLoader to make its own
random sampler: the two are mutually exclusive and the constructor raises `ValueError: sampler
option is mutually exclusive with shuffle`, typically only once the script reaches the
multi-GPU branch on the cluster."""
RULE.EXAMPLE = "loader = DataLoader(ds, sampler=DistributedSampler(ds), shuffle=True)"
RULE.USE_INSTEAD = "loader = DataLoader(ds, sampler=DistributedSampler(ds, shuffle=True))"
RULE.FIX_NOTE = "Safe: the call raises as written, and without `shuffle` the sampler's own order is used."
RULE.REFERENCES = ("https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader",)
