"""TPL203 sampler-shuffle-conflict: ``DataLoader(sampler=..., shuffle=True)`` raises ValueError."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from ..catalog import SAFE, UNSAFE
from ..fixing.edits import drop_keyword, set_keyword
from ..findings import RuleFix
from ..analysis.syntax import (assigned_names, code_of, dotted_name, is_none, is_true, keyword, last_identifier,
                      parameter_names)
from ..analysis.tree import descendants
from ..analysis.walker import Rule

DATALOADER = "torch.utils.data.DataLoader"


class SamplerShuffleConflict(Rule):
    code = "TPL203"
    message = (
        "`DataLoader` raises ValueError when given both `{sampler}=` and `shuffle=True`; drop "
        "`shuffle` (a `DistributedSampler` shuffles by itself; call its `set_epoch`)"
    )
    prefilter = (("DataLoader",), ("sampler",), ("shuffle",))
    reports_at_calls_to = frozenset((DATALOADER,))

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) != DATALOADER:
            return
        shuffle = keyword(node, "shuffle")
        if shuffle is None or not is_true(shuffle.value):
            return
        for name in ("sampler", "batch_sampler"):
            arg = keyword(node, name)
            if arg is not None and not is_none(arg.value):
                self.report(node, self.message.format(sampler=name), self._fix(node, arg.value))
                return

    def _fix(self, node: cst.Call, sampler: cst.BaseExpression) -> RuleFix:
        if self._never_none(sampler):
            return RuleFix(SAFE, "remove shuffle=True", [(node, drop_keyword(node, "shuffle"))])
        if isinstance(sampler, (cst.Name, cst.Attribute)) and dotted_name(sampler) is not None:
            # ``sampler = DistributedSampler(ds) if distributed else None``: with no sampler,
            # ``shuffle=True`` is what shuffles; the same data order in both cases, and no ValueError.
            test = cst.Comparison(sampler.deep_clone(), [cst.ComparisonTarget(cst.Is(), cst.Name("None"))])
            return RuleFix(SAFE, f"shuffle only without a sampler: shuffle={code_of(test)}",
                           [(node, set_keyword(node, "shuffle", test))])
        return RuleFix(UNSAFE, "remove shuffle=True (if the sampler can be None, batches then come in order)",
                       [(node, drop_keyword(node, "shuffle"))])

    def _never_none(self, sampler: cst.BaseExpression) -> bool:
        """A sampler built right there, or a name bound once in this scope to one built."""
        if isinstance(sampler, cst.Call):
            return self._is_sampler_class(sampler.func)
        if not isinstance(sampler, cst.Name):
            return False
        scope = self.ctx.frame.node if self.ctx.frame.node is not None else self.ctx.stack[0]
        values = list(_bindings(scope, sampler.value))
        return len(values) == 1 and isinstance(values[0], cst.Call) and self._is_sampler_class(values[0].func)

    def _is_sampler_class(self, func: cst.BaseExpression) -> bool:
        qualname = self.ctx.qualname(func)
        if qualname is not None:
            return qualname.startswith("torch.utils.data") and qualname.endswith("Sampler")
        name = last_identifier(func)
        return name is not None and name.endswith("Sampler") and name[:1].isupper()


def _bindings(scope: cst.CSTNode, name: str) -> Iterator[Optional[cst.BaseExpression]]:
    """What ``name`` is bound to in ``scope`` (not in nested functions or classes): the value of a
    plain ``name = value``, None for any other binding (augmented, ``for``, ``with``, tuple, import...)."""
    body = scope.body if isinstance(scope, cst.FunctionDef) else scope
    if isinstance(scope, cst.FunctionDef) and name in parameter_names(scope.params):
        yield None
    for node in descendants(body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda))):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name and len(node.targets) == 1:
                    yield node.value
                elif name in assigned_names(target.target):
                    yield None
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            if isinstance(node.target, cst.Name) and node.target.value == name:
                yield getattr(node, "value", None) if isinstance(node, cst.AnnAssign) else None
        elif isinstance(node, (cst.For, cst.CompFor)):
            if name in assigned_names(node.target):
                yield None
        elif isinstance(node, cst.AsName):
            if name in assigned_names(node.name):
                yield None
        elif isinstance(node, cst.NamedExpr):
            if isinstance(node.target, cst.Name) and node.target.value == name:
                yield None
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            if any(n.name.value == name for n in node.names):
                yield None


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
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "loader = DataLoader(ds, sampler=DistributedSampler(ds), shuffle=True)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "loader = DataLoader(ds, sampler=DistributedSampler(ds))\n",
    ),
    (
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def make(ds):\n    s = DistributedSampler(ds)\n"
        "    return DataLoader(\n        ds,\n        shuffle=True,  # see the sampler\n        sampler=s,\n"
        "        num_workers=2,\n    )\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def make(ds):\n    s = DistributedSampler(ds)\n"
        "    return DataLoader(\n        ds,\n        # see the sampler\n        sampler=s,\n"
        "        num_workers=2,\n    )\n",
    ),
    (
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "sampler = DistributedSampler(ds) if distributed else None\n"
        "loader = DataLoader(ds, sampler=sampler, shuffle=True)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "sampler = DistributedSampler(ds) if distributed else None\n"
        "loader = DataLoader(ds, sampler=sampler, shuffle=sampler is None)\n",
    ),
)
RULE.WHY = """\
A sampler decides the order of the indices, and `shuffle=True` asks the DataLoader to make its own
random sampler: the two are mutually exclusive and the constructor raises `ValueError: sampler
option is mutually exclusive with shuffle`, typically only once the script reaches the
multi-GPU branch on the cluster."""
RULE.EXAMPLE = "loader = DataLoader(ds, sampler=DistributedSampler(ds), shuffle=True)"
RULE.USE_INSTEAD = "loader = DataLoader(ds, sampler=DistributedSampler(ds, shuffle=True))"
RULE.FIX_NOTE = """\
Safe. When the sampler is built right there (`sampler=DistributedSampler(ds)`, or a name bound once
in the function to such a call), the call raises as written: the fix drops `shuffle`, and the
sampler's own order is used (a comment on the removed line is kept). When the sampler is a name or
attribute that may be `None` (`sampler = DistributedSampler(ds) if distributed else None`), dropping
`shuffle` would quietly turn the single-process run's random order into a sequential one: the fix
writes `shuffle=sampler is None` instead, which shuffles exactly when no sampler is given. For any
other expression the fix drops `shuffle` and is unsafe, for that reason."""
RULE.REFERENCES = ("https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader",)
