"""TPL204 missing-set-epoch: a DistributedSampler whose epoch is never set."""

from __future__ import annotations

import libcst as cst

from ..syntax import has_double_splat, is_true, keyword, last_identifier
from ..walker import Rule

SAMPLER = "torch.utils.data.DistributedSampler"


class MissingSetEpoch(Rule):
    code = "TPL204"
    message = (
        "nothing in this module calls `.set_epoch()`, so this `DistributedSampler` shuffles every "
        "epoch in the same order; call `sampler.set_epoch(epoch)` at the start of each epoch "
        "(runtime_guard: automatic set_epoch)"
    )
    prefilter = (r"DistributedSampler",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) != SAMPLER:
            return
        shuffle = keyword(node, "shuffle")
        if (shuffle is not None and not is_true(shuffle.value)) or has_double_splat(node):
            return  # no shuffling (the epoch changes nothing), or a value we cannot see
        if isinstance(self.ctx.parent(), cst.Return):
            return  # handed to the caller, whose loop owns the epochs (a library's factory)
        if self.ctx.facts.calls_set_epoch and self._may_get_set_epoch():
            return
        self.report(node)

    def _may_get_set_epoch(self) -> bool:
        """Some ``.set_epoch()`` in the module may be this sampler's: called on its name, or on
        something that is no sampler's name here (``loader.sampler``, a function's argument)."""
        assign = self.ctx.parent()
        name = None
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            name = last_identifier(assign.targets[0].target)
        receivers = self.ctx.facts.set_epoch_receivers
        if name is None or name in receivers:
            return True
        return bool(receivers - self.ctx.facts.sampler_names)


RULE = MissingSetEpoch
RULE.VALID = (
    """
from torch.utils.data import DataLoader, DistributedSampler
sampler = DistributedSampler(ds)
loader = DataLoader(ds, sampler=sampler)
for epoch in range(10):
    sampler.set_epoch(epoch)
    train(loader)
""",
    """
from torch.utils.data.distributed import DistributedSampler
val_sampler = DistributedSampler(val_ds, shuffle=False)     # nothing to reshuffle
other = DistributedSampler(ds, shuffle=cfg.shuffle)         # a value we cannot see
def make_sampler(ds, **kwargs):
    return DistributedSampler(ds, **kwargs)                 # the caller owns the epoch loop
""",
)
RULE.INVALID = (
    """
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
sampler = DistributedSampler(ds, shuffle=True)  # TPL204
loader = DataLoader(ds, sampler=sampler, batch_size=32)
for epoch in range(10):
    for batch in loader:
        step(batch)
""",
)
RULE.WHY = """\
`DistributedSampler` seeds its permutation with `seed + epoch`, and the epoch only changes when
`set_epoch` is called. Without it every epoch visits the data in the same order on every rank,
which is no shuffling at all after the first epoch and measurably hurts convergence."""
RULE.EXAMPLE = "sampler = DistributedSampler(ds)\nfor epoch in range(epochs):\n    for batch in DataLoader(ds, sampler=sampler): ..."
RULE.USE_INSTEAD = "for epoch in range(epochs):\n    sampler.set_epoch(epoch)\n    for batch in loader: ..."
RULE.FIX_NOTE = "No autofix: where the epoch loop starts is the author's."
RULE.REFERENCES = ("https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler",)
