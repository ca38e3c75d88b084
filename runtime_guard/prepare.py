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
    """A subclass of the loader's class whose __iter__ calls set_epoch at each new pass.

    The loader's ``_runtime_guard_epoch_apply`` says whether set_epoch may be called (a sampler
    the guard made, or the user's opt-in); otherwise a repeated order is reported as suggested."""
    sub = _EPOCH_CLASSES.get(cls)
    if sub is None:
        def __iter__(self):
            sampler = distributed_sampler_of(self)
            if sampler is not None:
                passes = self.__dict__.get("_runtime_guard_passes", 0)
                self.__dict__["_runtime_guard_passes"] = passes + 1
                if passes and not self.__dict__.get("_runtime_guard_user_epoch"):
                    if sampler.epoch == self.__dict__.get("_runtime_guard_epoch", 0):
                        if self.__dict__.get("_runtime_guard_epoch_apply"):
                            sampler.set_epoch(passes)
                            self.__dict__["_runtime_guard_epoch"] = passes
                        elif getattr(sampler, "shuffle", True) and \
                                not self.__dict__.get("_runtime_guard_told"):
                            self.__dict__["_runtime_guard_told"] = True
                            _suggest_set_epoch(self.__dict__.get("_runtime_guard_where"))
                    else:
                        # The script moved the epoch itself: it owns set_epoch from now on.
                        self.__dict__["_runtime_guard_user_epoch"] = True
            return super(sub, self).__iter__()

        namespace = {"__iter__": __iter__, "__module__": cls.__module__,
                     "__qualname__": cls.__qualname__}
        sub = type(cls.__name__, (cls,), namespace)
        _EPOCH_CLASSES[cls] = sub
    return sub


def _suggest_set_epoch(location):
    from .config import UNSAFE_SET_EPOCH, unsafe_line
    GUARD.log.add("TPL204", "suggested", "prepare(): the script's DistributedSampler repeats its "
                  "order each epoch: call set_epoch(epoch) at the start of each epoch",
                  RUNTIME_SET_EPOCH, location or user_location(2),
                  apply=unsafe_line(UNSAFE_SET_EPOCH))


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
        ddp_fix._init_invariants()
        try:
            was_dp = type(model) is nn.DataParallel
            inner = model.module if was_dp else model
            made = None
            ddp_fix._location = location
            if world_size() > 1 and not isinstance(model, DDP):
                made = ddp_fix._to_ddp(inner, getattr(model, "dim", 0), as_data_parallel=was_dp)
            elif was_dp:
                made = ddp_fix.replacement(inner, model.device_ids, model.dim)
                ddp_fix._location = location
            if made is not None:
                cls, args, kwargs = made
                dp_args = (getattr(model, "device_ids", None) or None,
                           getattr(model, "output_device", None), getattr(model, "dim", 0))
                model = cls(*args, **kwargs)
                if was_dp:
                    model.__dict__["_rg_dp_args"] = dp_args
                ddp_fix.after_replace(model)
                if isinstance(model, DDP):
                    # The invariants (parameters without gradients, several backward passes,
                    # parameters outside the model) are checked before each optimizer step.
                    from torch.optim.optimizer import register_optimizer_step_pre_hook
                    if optimizer is not None:
                        ddp_fix.optimizers.add(optimizer)
                    handle = register_optimizer_step_pre_hook(ddp_fix._pre_step)
                    # prepare() installs nothing that uninstall() could undo: the check lives as
                    # long as the model it guards (a second prepare() adds its own, not a twin).
                    weakref.finalize(model, handle.remove)
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
        sampler = distributed_sampler_of(loader)
        if config.wants(RUNTIME_SET_EPOCH) and config.fixing and sampler is not None:
            from .config import UNSAFE_SET_EPOCH
            from .fixes.set_epoch import GUARD_MADE
            apply = bool(getattr(sampler, GUARD_MADE, False) or config.allows(UNSAFE_SET_EPOCH))
            loader.__class__ = _epoch_loader_class(type(loader))
            loader.__dict__["_runtime_guard_epoch_apply"] = apply
            loader.__dict__["_runtime_guard_where"] = location
            if apply:
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
    """The loader fix's judgement for a loader given outright (same rules as at construction)."""
    from torchperf_lint.analysis.in_memory import runtime_cuda_data, runtime_in_memory_reason

    from .config import UNSAFE_PERSISTENT, UNSAFE_WORKERS
    from .fixes.loader_defaults import WORKERS, worker_count

    fix = LoaderDefaultsFix(guard)
    fix.active = True
    try:
        in_memory = runtime_in_memory_reason(loader.dataset)
        if (not loader.pin_memory and fix.config.device_type == "cuda"
                and torch.cuda.is_available()):
            if runtime_cuda_data(loader.dataset):
                fix.left_alone("TPL502", f"pin_memory not set: {in_memory}", location)
            else:
                if fix.fixing:
                    loader.pin_memory = True
                fix.fixed("TPL502", "prepare(): pin_memory=True", location)
        if loader.num_workers == 0 and loader._iterator is None:
            arguments = {"dataset": loader.dataset,
                         "multiprocessing_context": loader.multiprocessing_context}
            reason = in_memory or fix.unsafe_reason(arguments)
            n = worker_count()
            if reason:
                fix.left_alone(WORKERS, f"num_workers left at 0: {reason}", location)
            elif not fix.config.allows(UNSAFE_WORKERS):
                fix.suggested(WORKERS, f"prepare(): num_workers=0; num_workers={n} would overlap "
                                       "loading with the step, but a dataset with its own random "
                                       "generator or open files yields differently in workers",
                              UNSAFE_WORKERS, location)
            else:
                object.__setattr__(loader, "num_workers", n)
                persistent = fix.config.allows(UNSAFE_PERSISTENT)
                object.__setattr__(loader, "persistent_workers", persistent)
                if loader.prefetch_factor is None:
                    object.__setattr__(loader, "prefetch_factor", 2)
                fix.fixed(WORKERS, f"prepare(): num_workers=0 -> {n}"
                                   f"{', persistent_workers=True' if persistent else ''} "
                                   "(opted in: loader_workers)", location)
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
            fix.left_alone("TPL305", reason, location)
            return
        step.adopt(model)
    except Exception as exc:
        fix.fail(exc, "prepare(model)")
