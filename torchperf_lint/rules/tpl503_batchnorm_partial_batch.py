"""TPL503 batchnorm-partial-batch (opt-in): a training loader that can yield a last batch of one."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from ..catalog import UNSAFE
from ..fixing.edits import add_keyword, set_keyword
from ..findings import RuleFix
from ..analysis.syntax import code_of, has_splat, is_false, is_true, keyword, last_identifier, positional
from ..analysis.walker import Rule

DATALOADER = "torch.utils.data.DataLoader"
_EVAL_WORD = re.compile(r"val|test|eval|predict|infer|calib|dev(_|$)|holdout", re.I)
_SEQUENTIAL = re.compile(r"sequential|inference|eval|val|test", re.I)


class BatchNormPartialBatch(Rule):
    code = "TPL503"
    message = (
        "training DataLoader without `drop_last=True` for a model with BatchNorm: when the dataset size "
        "is not a multiple of the batch size the last batch is small (a batch of one raises in training "
        "mode, a few samples give noisy statistics); pass `drop_last=True` "
        "(runtime_guard: clear error for a batch of one)"
    )
    prefilter = (("DataLoader",), ("shuffle", "sampler"))

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.qualname(node.func) != DATALOADER or has_splat(node) or len(positional(node)) > 2:
            return
        drop_last = keyword(node, "drop_last")
        if (drop_last is not None and not is_false(drop_last.value)) or keyword(node, "batch_sampler") is not None:
            return  # True or a value we cannot see, or not allowed with a batch sampler
        if not self._is_training(node) or not ctx.facts.builds_batchnorm:
            return
        if drop_last is None:
            fixed = add_keyword(node, "drop_last", cst.Name("True"))
        else:
            fixed = set_keyword(node, "drop_last", cst.Name("True"))
        self.report(node, fix=RuleFix(UNSAFE, "pass drop_last=True (drops up to batch_size - 1 samples each epoch)",
                                      [(node, fixed)]))

    def _is_training(self, node: cst.Call) -> bool:
        shuffle = keyword(node, "shuffle")
        sampler = keyword(node, "sampler")
        if shuffle is not None:
            if not is_true(shuffle.value):
                return False
        elif sampler is None or _SEQUENTIAL.search(code_of(sampler.value)):
            return False
        names = [self._target_name()]
        args = positional(node)
        dataset = args[0].value if args else (keyword(node, "dataset").value if keyword(node, "dataset") else None)
        if dataset is not None:
            names.append(last_identifier(dataset) or code_of(dataset))
        if sampler is not None:
            names.append(code_of(sampler.value))
        return not any(name and _EVAL_WORD.search(name) for name in names)

    def _target_name(self) -> Optional[str]:
        parent = self.ctx.parent()
        if isinstance(parent, cst.Assign):
            return " ".join(code_of(t.target) for t in parent.targets)
        if isinstance(parent, cst.Return):
            frame = self.ctx.frame.node
            return frame.name.value if isinstance(frame, cst.FunctionDef) else None
        return None


RULE = BatchNormPartialBatch
RULE.VALID = (
    """
import torch.nn as nn
from torch.utils.data import DataLoader
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
train_loader = DataLoader(train_set, batch_size=32, shuffle=True, drop_last=True)
val_loader = DataLoader(val_set, batch_size=32, shuffle=True)           # evaluation
loader = DataLoader(train_set, batch_size=32)                          # no shuffling: not training
other = DataLoader(train_set, batch_size=32, shuffle=True, drop_last=args.drop_last)
def val_dataloader(self):
    return DataLoader(self.ds, batch_size=32, shuffle=True)
""",
    """
import torch.nn as nn
from torch.utils.data import DataLoader
model = nn.Sequential(nn.Linear(3, 8), nn.LayerNorm(8))               # no BatchNorm
train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
""",
)
RULE.INVALID = (
    """
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
train_loader = DataLoader(train_set, batch_size=32, shuffle=True)  # TPL503
loader = DataLoader(train_set, batch_size=32, sampler=DistributedSampler(train_set))  # TPL503
""",
)
RULE.FIXES = (
    (
        "import torch.nn as nn\nfrom torch.utils.data import DataLoader\nbn = nn.BatchNorm1d(4)\n"
        "loader = DataLoader(ds, batch_size=8, shuffle=True)\n",
        "import torch.nn as nn\nfrom torch.utils.data import DataLoader\nbn = nn.BatchNorm1d(4)\n"
        "loader = DataLoader(ds, batch_size=8, shuffle=True, drop_last=True)\n",
    ),
)
RULE.WHY = """\
In training mode BatchNorm normalises with the statistics of the current batch. When the dataset
size is not a multiple of the batch size the last batch of every epoch is smaller: with one sample
(per GPU, under DDP) BatchNorm raises `Expected more than 1 value per channel when training`, and
with a few samples its mean and variance are noisy and the running statistics absorb that noise.
`drop_last=True` skips the partial batch (a different sample each epoch when shuffling)."""
RULE.EXAMPLE = "train_loader = DataLoader(train_set, batch_size=64, shuffle=True)"
RULE.USE_INSTEAD = "train_loader = DataLoader(train_set, batch_size=64, shuffle=True, drop_last=True)"
RULE.FIX_NOTE = """\
Unsafe (applied with `--unsafe-fixes`): `drop_last=True` drops the last partial batch, up to
`batch_size - 1` samples each epoch. With shuffling a different subset is left out each epoch, but
with a fixed order the same samples are never trained on, and a dataset smaller than one batch
yields no batch at all. Check the dataset size against the batch size before applying it."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader",
    "https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm2d.html",
)
