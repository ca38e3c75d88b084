"""``prepare(model, optimizer=None, *loaders)``: the guard's fixes applied to given objects.

For scripts that prefer no import-time patching (``RUNTIME_GUARD=off`` and an explicit
``prepare(..., mode="fix")``) or that build their model and loaders before importing the guard.
It changes only the objects passed in and patches nothing global.
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from torchperf_lint.catalog import (RUNTIME_AMP, RUNTIME_CUDNN, RUNTIME_DDP, RUNTIME_LOADER,
                                    RUNTIME_SET_EPOCH)

from . import config as _config
from .core import GUARD
from .events import user_location
from .fixes.amp import AmpFix
from .fixes.amp_step import AmpStep
from .fixes.cudnn_flags import CudnnFlagsFix
from .fixes.ddp import DDPFix, world_size
from .fixes.loader_defaults import LoaderDefaultsFix
from .fixes.set_epoch import distributed_sampler_of


class _PrepareGuard:
    """What a fix needs from a guard, without patching anything global."""

    def __init__(self, config):
        self.config = config
        self.log = GUARD.log  # one report for import-time fixes and prepare()
        self.registry = None
        self.debug = GUARD.debug


_EPOCH_CLASSES = {}


def _epoch_loader_class(cls):
    """A subclass of the loader's class whose __iter__ calls set_epoch at each new pass."""
    sub = _EPOCH_CLASSES.get(cls)
    if sub is None:
        def __iter__(self):
            sampler = distributed_sampler_of(self)
            if sampler is not None:
                passes = self.__dict__.get("_runtime_guard_passes", 0)
                self.__dict__["_runtime_guard_passes"] = passes + 1
                if passes and not self.__dict__.get("_runtime_guard_user_epoch"):
                    if sampler.epoch == self.__dict__.get("_runtime_guard_epoch", 0):
                        sampler.set_epoch(passes)
                        self.__dict__["_runtime_guard_epoch"] = passes
                    else:
                        # The script moved the epoch itself: it owns set_epoch from now on.
                        self.__dict__["_runtime_guard_user_epoch"] = True
            return super(sub, self).__iter__()

        namespace = {"__iter__": __iter__, "__module__": cls.__module__,
                     "__qualname__": cls.__qualname__}
        sub = type(cls.__name__, (cls,), namespace)
        _EPOCH_CLASSES[cls] = sub
    return sub


def prepare(model, optimizer=None, *loaders, mode=None, fixes=None, device=None, amp=None):
    """Apply the guard's fixes to these objects; return ``(model, optimizer, *loaders)``.

    The model may come back wrapped (DistributedDataParallel under torchrun); the optimizer and
    loaders are the same objects, adjusted in place. ``amp="bf16"|"fp16"`` (or
    ``RUNTIME_GUARD_AMP``) runs the model's forward under autocast (TPL305); float16 needs the
    installed guard's loss scaling and is skipped without it.
    """
    config = _config.from_env(mode=mode, fixes=fixes, device=device, amp=amp)
    if config.mode == "off":
        return (model, optimizer, *loaders)
    guard = _PrepareGuard(config)
    location = user_location(1)
    if config.wants(RUNTIME_DDP) and isinstance(model, nn.Module):
        ddp_fix = DDPFix(guard)
        ddp_fix.active = True
        from torch.nn.parallel import DistributedDataParallel as DDP
        import weakref
        ddp_fix.converted = weakref.WeakSet()
        ddp_fix.decided = weakref.WeakKeyDictionary()
        try:
            inner = model.module if type(model) is nn.DataParallel else model
            made = None
            ddp_fix._location = location
            if world_size() > 1 and not isinstance(model, DDP):
                made = ddp_fix._to_ddp(inner, getattr(model, "dim", 0))
            elif type(model) is nn.DataParallel:
                made = ddp_fix.replacement(inner, model.device_ids, model.dim)
                ddp_fix._location = location
            if made is not None:
                cls, args, kwargs = made
                model = cls(*args, **kwargs)
                ddp_fix.after_replace(model)
                if isinstance(model, DDP):
                    for loader in loaders:
                        if isinstance(loader, DataLoader):
                            ddp_fix.shard_now(loader)
        except Exception as exc:
            ddp_fix.fail(exc, "prepare(model)")
    for loader in loaders:
        if not isinstance(loader, DataLoader):
            continue
        if config.wants(RUNTIME_LOADER):
            _loader_defaults(guard, loader, location)
        if config.wants(RUNTIME_SET_EPOCH) and config.fixing and distributed_sampler_of(loader):
            loader.__class__ = _epoch_loader_class(type(loader))
            guard.log.add("TPL204", "fixed", "prepare(): set_epoch called at each new pass",
                          RUNTIME_SET_EPOCH, location)
    if config.amp_dtype and config.wants(RUNTIME_AMP) and isinstance(model, nn.Module):
        _amp_step(guard, model, location)
    if config.wants(RUNTIME_CUDNN):
        cudnn_fix = CudnnFlagsFix(guard)
        import torch.backends.cudnn as cudnn
        cudnn_fix._bench = vars(type(cudnn))["benchmark"]
        cudnn_fix._det = vars(type(cudnn))["deterministic"]
        # The descriptors may be the guard's own wrappers: read through to torch's.
        cudnn_fix._bench = getattr(cudnn_fix._bench, "original", cudnn_fix._bench)
        cudnn_fix._det = getattr(cudnn_fix._det, "original", cudnn_fix._det)
        cudnn_fix.active = True
        cudnn_fix.reconcile("prepare()")
    return (model, optimizer, *loaders)


def _loader_defaults(guard, loader, location):
    fix = LoaderDefaultsFix(guard)
    fix.active = True
    try:
        if (not loader.pin_memory and fix.config.device_type == "cuda"
                and torch.cuda.is_available() and fix.fixing):
            loader.pin_memory = True
            guard.log.add("TPL502", "fixed", "prepare(): pin_memory=True", fix.name, location)
        if loader.num_workers == 0 and fix.fixing and loader._iterator is None:
            arguments = {"dataset": loader.dataset,
                         "multiprocessing_context": loader.multiprocessing_context}
            reason = fix.unsafe_reason(arguments)
            if reason:
                guard.log.add("TPL501", "skipped", f"num_workers left at 0: {reason}", fix.name,
                              location)
            else:
                from .fixes.loader_defaults import worker_count
                n = worker_count()
                object.__setattr__(loader, "num_workers", n)
                object.__setattr__(loader, "persistent_workers", True)
                if loader.prefetch_factor is None:
                    object.__setattr__(loader, "prefetch_factor", 2)
                guard.log.add("TPL501", "fixed", f"prepare(): num_workers=0 -> {n}", fix.name,
                              location)
    except Exception as exc:
        fix.fail(exc, "prepare(loader)")


def _amp_step(guard, model, location):
    """TPL305 for a model given outright: through the installed guard's amp fix when there is
    one (uninstall() then undoes it, float16 gets its loss scaling), else bfloat16 only."""
    installed = GUARD.fix(RUNTIME_AMP)
    fix = AmpFix(guard)
    fix.active = True
    try:
        step = AmpStep(fix)
        reason = step.check_target()
        if reason is None and installed is not None and installed.active and \
                getattr(installed, "step", None) is not None and \
                installed.step.want == guard.config.amp_dtype:
            installed.step.adopt(model)
            return
        if reason is None and guard.config.amp_dtype == "fp16":
            reason = ("prepare(amp='fp16') needs the installed guard's loss scaling "
                      "(RUNTIME_GUARD_AMP=fp16 with the guard installed); not turned on")
        if reason:
            guard.log.add("TPL305", "skipped", reason, fix.name, location)
            return
        step.adopt(model)
    except Exception as exc:
        fix.fail(exc, "prepare(model)")
