"""TPL207: gradient all-reduces of a DistributedDataParallel model per optimizer step (observed).

DDP decides at forward time whether the following backward pass all-reduces the gradients: when
autograd is on and ``require_backward_grad_sync`` is set (``model.no_sync()`` clears it), the
forward prepares the reducer and the backward exchanges every gradient bucket. With gradient
accumulation, ``accum`` backward passes per optimizer step mean ``accum`` all-reduces where one is
needed.

The guard counts the all-reduces that really happen: ``DistributedDataParallel.forward`` is
wrapped to note whether that forward armed a sync, and a post-accumulate-grad hook on one
parameter of the wrapped model (registered at the model's first forward, removed at uninstall)
counts an all-reduce when the backward of an armed forward reaches it. A hook after each optimizer
step (the guard's step hooks, subscribed at the first DDP forward) splits the count per optimizer
step. It changes nothing: the report says how many
all-reduces each step made and what ``no_sync()`` would save. Steps with one all-reduce (no
accumulation, or accumulation under ``no_sync()``) are not reported.
"""

from __future__ import annotations

import threading
import weakref

import torch
from torch.nn.parallel import DistributedDataParallel

from torchperf_lint.catalog import RUNTIME_DDP_ACCUMULATION

from ..events import OBSERVED, user_location
from .base import Fix

CODE = "TPL207"


class _Tracked:
    """What the guard knows about one DDP model."""

    __slots__ = ("armed", "location", "handle")

    def __init__(self, location: str):
        self.armed = False  # the last forward prepared a gradient all-reduce
        self.location = location  # where the script first ran a forward that armed an all-reduce
        self.handle = None


class DDPAccumulationFix(Fix):
    name = RUNTIME_DDP_ACCUMULATION
    codes = (CODE,)

    def _install(self):
        self.models = weakref.WeakKeyDictionary()  # DDP module -> _Tracked
        self.per_step = []  # all-reduces counted between consecutive optimizer steps
        self.pending = {}  # location -> all-reduces since the last optimizer step
        self._lock = threading.Lock()
        fix = self
        original_forward = DistributedDataParallel.forward

        def forward(ddp, *inputs, **kwargs):
            if fix.active:
                try:
                    fix.before_forward(ddp)
                except Exception as exc:
                    fix.fail(exc, "DistributedDataParallel.forward")
            return original_forward(ddp, *inputs, **kwargs)

        forward.__wrapped__ = original_forward
        self.patch(DistributedDataParallel, "forward", forward)
        # The step hook that splits the count per optimizer step: subscribed at the first DDP
        # forward (a script without DDP pays nothing at its steps).
        self._splitting = False
        self.on_undo(self._remove_parameter_hooks)

    def before_forward(self, ddp) -> None:
        tracked = self.models.get(ddp)
        if tracked is None:
            tracked = _Tracked(None)
            param = next((p for p in ddp.module.parameters() if p.requires_grad), None)
            if param is None:
                return
            tracked.handle = param.register_post_accumulate_grad_hook(self._hook_for(ddp))
            self.models[ddp] = tracked
            with self._lock:
                if not self._splitting:
                    self._splitting = True
                    self.step_hook("after", self._after_optimizer_step)
        tracked.armed = bool(torch.is_grad_enabled() and ddp.require_backward_grad_sync)
        if tracked.armed and tracked.location is None:
            tracked.location = user_location(2)  # the first training forward, not an evaluation one

    def _hook_for(self, ddp):
        ref = weakref.ref(ddp)
        fix = self

        def after_accumulate(param):
            if not fix.active:
                return
            try:
                model = ref()
                tracked = fix.models.get(model) if model is not None else None
                if tracked is not None and tracked.armed:
                    tracked.armed = False
                    with fix._lock:
                        fix.pending[tracked.location] = fix.pending.get(tracked.location, 0) + 1
            except Exception as exc:
                fix.fail(exc, "gradient hook")

        return after_accumulate

    def _after_optimizer_step(self, optimizer, args, kwargs) -> None:
        if not self.active or not self.pending:
            return  # the common case when no DDP model runs: nothing to take
        with self._lock:
            for location, count in self.pending.items():
                self.per_step.append((location, count))
            self.pending = {}

    def _remove_parameter_hooks(self) -> None:
        for tracked in list(self.models.values()):
            if tracked.handle is not None:
                tracked.handle.remove()
        self.models = weakref.WeakKeyDictionary()

    def all_reduces_per_step(self):
        """{location of the model's forward: [all-reduces in each optimizer step]} so far."""
        with self._lock:
            result = {}
            for location, count in self.per_step:
                result.setdefault(location, []).append(count)
            return result

    def finalize(self) -> None:
        for location, counts in self.all_reduces_per_step().items():
            steps = len(counts)
            total = sum(counts)
            if max(counts) <= 1:
                continue
            surplus = total - steps
            mean = total / steps
            detail = (f"gradient accumulation on DistributedDataParallel: {total} gradient all-reduces "
                      f"over {steps} optimizer steps ({mean:.3g} per step, at most {max(counts)}); "
                      f"only the last before each step is needed: run the other forward and backward "
                      f"passes under `with model.no_sync():` to skip {surplus} full gradient exchanges")
            self.guard.log.put(CODE, OBSERVED, detail, self.name, location, surplus)
