"""TPL501 dataloader-no-workers: a DataLoader that loads every batch in the main process."""

from __future__ import annotations

import libcst as cst

from ..syntax import has_splat, int_value, is_in_memory_data, keyword, positional
from ..walker import Rule

DATALOADER = "torch.utils.data.DataLoader"
# DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn, pin_memory, drop_last, ...)
NUM_WORKERS_POSITION = 5


class DataLoaderNoWorkers(Rule):
    code = "TPL501"
    message = (
        "this DataLoader loads and collates every batch in the main process ({why}), so the GPU waits "
        "for it; pass `num_workers=` > 0 (a start: the CPU cores per GPU) (runtime_guard: loader defaults)"
    )
    prefilter = (r"DataLoader",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) != DATALOADER or has_splat(node):
            return
        if len(positional(node)) > NUM_WORKERS_POSITION:
            return
        data = positional(node) or [keyword(node, "dataset")]
        if data[0] is not None and is_in_memory_data(data[0].value, self.ctx):
            return  # range(n) or a list: workers would only add start-up cost
        workers = keyword(node, "num_workers")
        if workers is None:
            self.report(node, self.message.format(why="no `num_workers`"))
        elif int_value(workers.value) == 0:
            self.report(node, self.message.format(why="`num_workers=0`"))


RULE = DataLoaderNoWorkers
RULE.VALID = (
    """
from torch.utils.data import DataLoader
a = DataLoader(ds, batch_size=32, num_workers=4)
b = DataLoader(ds, batch_size=32, num_workers=args.workers)     # a value we cannot see
c = DataLoader(ds, **loader_kwargs)                             # may hold num_workers
d = DataLoader(ds, 32, True, None, None, 8)                     # positional num_workers
e = DataLoader(range(100), batch_size=8)                        # in-memory data: workers cost more
""",
    """
class DataLoader:                                               # the project's own class
    pass
import torch
loader = DataLoader(ds)
""",
)
RULE.INVALID = (
    """
import torch
from torch.utils.data import DataLoader
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # TPL501
val_loader = torch.utils.data.DataLoader(val_set, batch_size=64, num_workers=0)  # TPL501
""",
)
RULE.WHY = """\
With `num_workers=0` (the default) the DataLoader reads, decodes, augments and collates each batch in
the training process, between steps: the GPU idles while Python prepares the next batch. Worker
processes prepare batches in parallel and ahead of time (`prefetch_factor` batches each), so data
loading overlaps with compute."""
RULE.EXAMPLE = "loader = DataLoader(dataset, batch_size=64, shuffle=True)"
RULE.USE_INSTEAD = "loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=8, persistent_workers=True)"
RULE.FIX_NOTE = """\
No autofix: workers need a dataset that pickles (spawn start method), and for small in-memory
datasets workers can be slower than none."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading",
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#enable-async-data-loading-and-augmentation",
)
