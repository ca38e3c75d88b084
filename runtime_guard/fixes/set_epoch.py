"""TPL204: ``DistributedSampler.set_epoch`` never called.

Without it a DistributedSampler shuffles with the same seed every epoch: every epoch sees the same
order. The guard counts how many times each loader's DistributedSampler has been iterated and, from
the second pass on, calls ``set_epoch(passes so far)`` before the loader builds its iterator —
unless the script called ``set_epoch`` on that sampler itself, which the guard sees through a patch
of ``DistributedSampler.set_epoch``.

Calling it changes the order the script's own sampler yields, so for a sampler the script made this
is only *suggested* unless opted in (``RUNTIME_GUARD_UNSAFE=set_epoch``). A sampler the guard made
itself (the DataParallel -> DDP conversion shards loaders) always gets it: a new order each epoch is
what the hand-written DDP version computes.
"""

from __future__ import annotations

import threading
import weakref

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from torchperf_lint.catalog import RUNTIME_SET_EPOCH

from ..config import UNSAFE_SET_EPOCH

from .base import Fix

CODE = "TPL204"
GUARD_MADE = "_runtime_guard_made"  # attribute set on the DistributedSamplers the guard creates


def distributed_sampler_of(loader):
    sampler = getattr(loader, "sampler", None)
    if isinstance(sampler, DistributedSampler):
        return sampler
    inner = getattr(getattr(loader, "batch_sampler", None), "sampler", None)
    if isinstance(inner, DistributedSampler):
        return inner
    return None


class _State:
    __slots__ = ("passes", "user_calls")

    def __init__(self):
        self.passes = 0
        self.user_calls = False


class SetEpochFix(Fix):
    name = RUNTIME_SET_EPOCH
    codes = (CODE,)

    def _install(self):
        self.states = weakref.WeakKeyDictionary()
        self._ours = threading.local()
        fix = self
        original_set_epoch = DistributedSampler.set_epoch
        original_iter = DataLoader.__iter__

        def set_epoch(sampler, epoch):
            if fix.active and not getattr(fix._ours, "on", False):
                try:
                    fix._state(sampler).user_calls = True
                except Exception as exc:
                    fix.fail(exc, "set_epoch")
            return original_set_epoch(sampler, epoch)

        def __iter__(loader):
            if fix.active:
                try:
                    fix.before_iter(loader, original_set_epoch)
                except Exception as exc:
                    fix.fail(exc, "DataLoader.__iter__")
            return original_iter(loader)

        self.patch(DistributedSampler, "set_epoch", set_epoch)
        self.patch(DataLoader, "__iter__", __iter__)

    def _state(self, sampler):
        state = self.states.get(sampler)
        if state is None:
            state = self.states[sampler] = _State()
        return state

    def before_iter(self, loader, original_set_epoch):
        sampler = distributed_sampler_of(loader)
        if sampler is None:
            return
        state = self._state(sampler)
        passes = state.passes
        state.passes += 1
        if state.user_calls or passes == 0 or not getattr(sampler, "shuffle", True):
            # First pass: epoch 0 is the sampler's own default. Without shuffle the order does
            # not depend on the epoch.
            return
        ours = getattr(sampler, GUARD_MADE, False)
        if self.fixing and (ours or self.config.allows(UNSAFE_SET_EPOCH)):
            self._ours.on = True
            try:
                original_set_epoch(sampler, passes)
            finally:
                self._ours.on = False
            if ours:
                self.fixed(CODE, "the guard's DistributedSampler gets set_epoch(epoch) at each "
                                 "new pass, so each epoch gets a new order (as hand-written DDP "
                                 "code does)")
            else:
                self.fixed(CODE, "DistributedSampler.set_epoch(epoch) was never called: the "
                                 "guard calls it at each new pass (opted in: set_epoch)")
        else:
            self.suggested(CODE, "DistributedSampler.set_epoch(epoch) is never called: every "
                                 "epoch repeats the same order; call it at the start of each "
                                 "epoch", UNSAFE_SET_EPOCH)
