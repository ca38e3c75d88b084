"""TPL204 missing-set-epoch: a DistributedSampler whose epoch is never set."""

from __future__ import annotations

import re
from typing import Iterator, Optional, Set

import libcst as cst

from ..analysis.syntax import dotted_name, has_double_splat, is_true, keyword, last_identifier, loader_dataset
from ..analysis.walker import Rule

SAMPLER = "torch.utils.data.DistributedSampler"
# Calls that hand a sampler or loader on without taking it out of the module's hands.
_KEEPS = frozenset((
    "torch.utils.data.DataLoader", "torch.utils.data.BatchSampler", "torch.utils.data.DistributedSampler",
))
_LOOKS_AT = frozenset(("enumerate", "len", "iter", "next", "zip", "tqdm", "trange", "print", "isinstance", "list",
                       "range", "sorted", "tuple", "type", "id", "repr", "str"))
# Evaluation data: the order of visits does not matter there.
_EVALUATION = re.compile(
    r"(?:^|_)(?:val|valid|validation|eval|evaluation|test|testing|dev)(?:$|_|\d|set|ds|data|loader|sampler)",
)


def _is_evaluation(name: Optional[str]) -> bool:
    return bool(name) and _EVALUATION.search(name.lower()) is not None


class MissingSetEpoch(Rule):
    code = "TPL204"
    message = (
        "nothing in this module calls `.set_epoch()`, so this `DistributedSampler` shuffles every "
        "epoch in the same order; call `sampler.set_epoch(epoch)` at the start of each epoch "
        "(runtime_guard: automatic set_epoch)"
    )
    prefilter = (("DistributedSampler",),)
    reports_at_calls_to = frozenset((SAMPLER,))

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) != SAMPLER:
            return
        shuffle = keyword(node, "shuffle")
        if (shuffle is not None and not is_true(shuffle.value)) or has_double_splat(node):
            return  # no shuffling (the epoch changes nothing), or a value we cannot see
        holders = self._holders(node)
        if holders is None:
            return  # handed to code this module cannot see, which owns the epoch loop
        dataset = loader_dataset(node)
        if _is_evaluation(last_identifier(dataset) if dataset is not None else None) or any(
            _is_evaluation(name) for name in holders
        ):
            return  # an evaluation pass: any fixed order is as good as another
        if self.ctx.facts.calls_set_epoch and self._may_get_set_epoch(holders):
            return
        self.report(node)

    # ---- where the sampler goes ------------------------------------------------------------------
    def _holders(self, sampler: cst.Call) -> Optional[Set[str]]:
        """The names that hold the sampler or a loader built on it, in its function (or module
        block); None when one of them leaves for code the module cannot see: returned, yielded,
        passed to a function the file does not define, stored on an object."""
        holders: Set[str] = set()
        if not self._follow_up(sampler, len(self.ctx.stack) - 1, holders):
            return None
        scope = self._scope()
        if scope is None or not holders:
            return holders
        # Names built from the holders (``loader = DataLoader(ds, sampler=sampler)``), to a fixed point.
        for _ in range(3):
            before = len(holders)
            for name_node, ancestors in self._uses(scope, holders):
                if not self._use_stays(name_node, ancestors, holders):
                    return None
            if len(holders) == before:
                break
        return holders

    def _follow_up(self, node: cst.CSTNode, index: int, holders: Set[str], ancestors=None) -> bool:
        """Climb from a sampler (or loader) expression through the calls that keep it (DataLoader,
        BatchSampler); False when it leaves the module's hands, else the names it is bound to are
        added to ``holders``."""
        stack = ancestors if ancestors is not None else self.ctx.stack
        child = node
        for parent in reversed(stack[:index]):
            if isinstance(parent, (cst.Arg, cst.Element, cst.DictElement, cst.Tuple, cst.List, cst.Dict)):
                child = parent
                continue
            if isinstance(parent, (cst.IfExp, cst.BooleanOperation)) and getattr(parent, "test", None) is not child:
                child = parent  # ``DistributedSampler(ds) if distributed else None``
                continue
            if isinstance(parent, cst.Call):
                if parent.func is child:
                    return True  # ``sampler.set_epoch(...)``-like: a use, not a hand-over
                if not self._keeps(parent):
                    return False
                child = parent
                continue
            if isinstance(parent, (cst.Return, cst.Yield)):
                return False
            if isinstance(parent, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
                for target in targets:
                    if isinstance(target, (cst.Attribute, cst.Subscript)):
                        return False  # ``self.sampler = sampler``: other methods and callers see it
                    for element in (target.elements if isinstance(target, (cst.Tuple, cst.List)) else [target]):
                        name = last_identifier(element.value if isinstance(element, cst.Element) else element)
                        if name:
                            holders.add(name)
                return True
            return True  # ``for batch in DataLoader(..., sampler=...)``, a comparison, ...
        return True

    def _keeps(self, call: cst.Call) -> bool:
        qual = self.ctx.qualname(call.func)
        if qual in _KEEPS:
            return True
        callee = last_identifier(call.func)
        if callee in _LOOKS_AT and (qual is None or qual.startswith("tqdm.") or qual == callee):
            return True  # enumerate(loader), tqdm(loader): iterated right here
        if qual is not None:
            return False  # a library's function
        if callee in self.ctx.facts.defined_names:
            head = (dotted_name(call.func) or "").split(".")[0]
            return isinstance(call.func, cst.Name) or head in ("self", "cls")
        return False

    def _scope(self) -> Optional[cst.CSTNode]:
        frame = self.ctx.frame
        return frame.node if frame.node is not None else (self.ctx.stack[0] if self.ctx.stack else None)

    def _uses(self, scope: cst.CSTNode, names: Set[str]) -> Iterator:
        """(Name node, its ancestors inside ``scope``) for each load of one of ``names``."""
        pending = [(scope, [])]
        while pending:
            node, ancestors = pending.pop()
            if isinstance(node, cst.Name) and node.value in names:
                parent = ancestors[-1] if ancestors else None
                if not (isinstance(parent, cst.Attribute) and parent.attr is node) and not (
                    isinstance(parent, cst.Arg) and parent.keyword is node
                ):
                    yield node, ancestors
                continue
            if node is not scope and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            pending.extend((child, ancestors + [node]) for child in node.children)

    def _use_stays(self, name_node: cst.Name, ancestors, holders: Set[str]) -> bool:
        parent = ancestors[-1] if ancestors else None
        if isinstance(parent, (cst.AssignTarget, cst.For, cst.CompFor)) and not isinstance(parent, cst.For):
            return True  # being assigned, not used
        if isinstance(parent, cst.For) and parent.target is name_node:
            return True
        if isinstance(parent, cst.Attribute) and parent.value is name_node:
            return True  # ``loader.sampler``, ``sampler.set_epoch``: used here
        return self._follow_up(name_node, len(ancestors), holders, ancestors)

    def _may_get_set_epoch(self, holders: Set[str]) -> bool:
        """Some ``.set_epoch()`` in the module may be this sampler's: called on one of its names, or
        on something that is no sampler's name here (``loader.sampler``, a function's argument)."""
        receivers = self.ctx.facts.set_epoch_receivers
        if not holders or holders & receivers:
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
    """
import torch
from torch.utils.data import DataLoader, DistributedSampler
import pytorch_lightning as pl
def build_loader(ds):
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, sampler=sampler, batch_size=32)
    return loader                                           # the caller's loop owns the epochs
def fit(model, ds):
    sampler = DistributedSampler(ds)
    trainer = pl.Trainer()
    trainer.fit(model, DataLoader(ds, sampler=sampler))     # a library runs the epochs
class Data:
    def setup(self, ds):
        self.train_sampler = DistributedSampler(ds)         # stored on an object others use
def evaluate(model, val_ds):
    val_sampler = DistributedSampler(val_ds)                # evaluation: the order does not matter
    for batch in DataLoader(val_ds, sampler=val_sampler):
        model(batch)
    test_loader = DataLoader(ds, sampler=DistributedSampler(test_set))
def create_loader(ds, distributed):
    sampler = DistributedSampler(ds) if distributed else None   # its loader is returned
    loader = DataLoader(ds, sampler=sampler)
    return loader
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
    """
import torch
from torch.utils.data import DataLoader, DistributedSampler
def train_epoch(model, loader):
    for batch in loader:
        model(batch).sum().backward()
def main(model, train_ds, epochs):
    sampler = DistributedSampler(train_ds)  # TPL204
    loader = DataLoader(train_ds, sampler=sampler, batch_size=32)
    for epoch in range(epochs):
        train_epoch(model, loader)          # a function of this module: no set_epoch there either
""",
)
RULE.WHY = """\
`DistributedSampler` seeds its permutation with `seed + epoch`, and the epoch only changes when
`set_epoch` is called. Without it every epoch visits the data in the same order on every rank,
which is no shuffling at all after the first epoch and measurably hurts convergence."""
RULE.EXAMPLE = "sampler = DistributedSampler(ds)\nfor epoch in range(epochs):\n    for batch in DataLoader(ds, sampler=sampler): ..."
RULE.USE_INSTEAD = "for epoch in range(epochs):\n    sampler.set_epoch(epoch)\n    for batch in loader: ..."
RULE.FIX_NOTE = """\
No autofix: where the epoch loop starts is the author's.

Not reported: `shuffle=False` (set_epoch only reseeds the shuffle); a sampler, or a loader built on
it, that leaves the module's view: returned or yielded, passed to a function the file does not
define (a trainer library, another module's `train_one_epoch`), or stored on an object
(`self.sampler = ...`), because the code that runs the epochs is elsewhere; samplers for evaluation
(the sampler's, its loader's or its dataset's name says `val`, `valid`, `eval` or `test`), where
the order of visits does not matter."""
RULE.REFERENCES = ("https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler",)
