"""TPL501/TPL502: DataLoader defaults that starve the device.

- ``pin_memory=True`` when the target is CUDA and the script did not pass ``pin_memory``: copies
  from pinned memory are faster and can overlap compute, and the values are the same. Left alone
  for a dataset of CUDA tensors (pinning them raises).
- Worker processes (no ``num_workers`` given) are only *suggested* by default: workers change what
  a dataset with state or randomness of its own yields (a ``random.Random(seed)`` or
  ``np.random.default_rng(seed)`` in the dataset draws a different sequence once the indices are
  split over workers; lazily opened files behave differently per process), and the guard cannot see
  that without touching the dataset. It never does: no ``dataset[i]`` and no pickling in the main
  process (a sample fetched there shifts the dataset's own generator and opens its files in the
  parent, which forked workers then share; pickling a dataset copies all its tensors). Where the
  data is in memory (the same judgement as the linter's TPL501, ``torchperf_lint.analysis.in_memory``) the
  loader is left alone: workers cost more than they save there.
- ``RUNTIME_GUARD_UNSAFE=loader_workers`` applies the suggestion: ``num_workers`` = CPU cores per
  process - 1 (at most 8), for map-style datasets under the fork start method. Workers are not
  persistent unless ``persistent_workers`` is opted in too: persistent workers keep the dataset as
  it was at the first epoch, so a script that changes it between epochs (curriculum, progressive
  resizing, ``dataset.set_epoch``) would train on stale data. If a worker fails at the first batch,
  the loader falls back to the user's settings (with the random state restored, so the order is
  the one the user's settings give) and the guard reports it.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os

import weakref

import torch
from torch.utils.data import DataLoader, IterableDataset

from torchperf_lint.catalog import RUNTIME_LOADER
from torchperf_lint.analysis.in_memory import runtime_cuda_data, runtime_in_memory_reason

from ..config import UNSAFE_PERSISTENT, UNSAFE_WORKERS
from .base import Fix

WORKERS = "TPL501"
PIN = "TPL502"


def worker_count() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    per_process = cpus // max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1))
    # The bound Lightning uses: leave one core to the main (training) process.
    return min(8, max(1, per_process - 1))


class _Prepended:
    """The loader's iterator with its first batch already fetched (to catch worker failures)."""

    def __init__(self, first, it):
        self._first = [first]
        self._it = it

    def __iter__(self):
        return self

    def __next__(self):
        if self._first:
            return self._first.pop()
        return next(self._it)

    def __len__(self):
        return len(self._it)

    def __getattr__(self, name):
        return getattr(self._it, name)


class LoaderDefaultsFix(Fix):
    name = RUNTIME_LOADER
    codes = (WORKERS, PIN)

    def _install(self):
        self.user_settings = weakref.WeakKeyDictionary()  # loader -> the user's settings
        self.made_persistent = weakref.WeakSet()  # loaders whose persistent_workers we set
        fix = self
        original_init = DataLoader.__init__
        original_iter = DataLoader.__iter__
        signature = inspect.signature(original_init)

        def __init__(loader, *args, **kwargs):
            if not fix.active or type(loader) is not DataLoader:
                return original_init(loader, *args, **kwargs)
            try:
                bound = signature.bind(loader, *args, **kwargs)
                arguments = dict(bound.arguments)
                del arguments["self"]
                changed = fix.plan(arguments)
            except Exception as exc:
                fix.fail(exc, "DataLoader.__init__")
                changed = None
            if not changed:
                return original_init(loader, *args, **kwargs)
            try:
                original_init(loader, **changed)
            except Exception as exc:
                # Our settings made DataLoader refuse: report and build exactly what the user
                # asked for (their own errors then surface unchanged).
                fix.left_alone(WORKERS, f"DataLoader refused the guard's settings ({exc}); "
                                     "user settings kept")
                return original_init(loader, *args, **kwargs)
            fix.user_settings[loader] = {k: arguments.get(k, d) for k, d in (
                ("num_workers", 0), ("pin_memory", False), ("persistent_workers", False),
                ("prefetch_factor", None))}
            if changed.get("persistent_workers") and not arguments.get("persistent_workers"):
                fix.made_persistent.add(loader)
            return None

        def __iter__(loader):
            if fix.active:
                if loader in fix.user_settings:
                    try:
                        return fix.first_pass(loader, original_iter)
                    except Exception as exc:
                        fix.fail(exc, "DataLoader first pass")
                elif loader in fix.made_persistent and loader._iterator is not None:
                    # A fresh iterator draws a base seed from the loader's generator (the
                    # global one by default) at every pass; a persistent one draws it once.
                    # Draw it anyway so the shuffling sampler, which draws next, and the
                    # script's own random numbers see the stream they would without workers.
                    torch.empty((), dtype=torch.int64).random_(generator=loader.generator)
            return original_iter(loader)

        self.patch(DataLoader, "__init__", __init__)
        self.patch(DataLoader, "__iter__", __iter__)

    # -- construction --------------------------------------------------------------------------
    def plan(self, arguments):
        """New keyword arguments for DataLoader, or None to keep the user's."""
        new = dict(arguments)
        changed = False
        dataset = arguments.get("dataset")
        in_memory = runtime_in_memory_reason(dataset)
        cuda_data = runtime_cuda_data(dataset)
        if ("pin_memory" not in arguments and self.config.device_type == "cuda"
                and torch.cuda.is_available()):
            if cuda_data:
                self.left_alone(PIN, f"pin_memory not set: {in_memory}")
            else:
                if self.fixing:
                    new["pin_memory"] = True
                    changed = True
                self.fixed(PIN, "pin_memory=True: the loader feeds CUDA (faster, asynchronous "
                                "copies; same values)")
        if "num_workers" in arguments:
            if arguments["num_workers"] == 0:
                self.left_alone(WORKERS, "num_workers=0 given explicitly: kept (data loads in "
                                         "the training process)")
            elif "persistent_workers" not in arguments and arguments["num_workers"]:
                self._suggest_persistent()
            return new if changed else None
        if in_memory:
            # The linter's TPL501 is silent here for the same reason.
            self.left_alone(WORKERS, f"num_workers left at 0: {in_memory}")
            return new if changed else None
        reason = self.unsafe_reason(arguments)
        if reason:
            self.left_alone(WORKERS, f"num_workers left at 0: {reason}")
            return new if changed else None
        n = worker_count()
        if not self.config.allows(UNSAFE_WORKERS):
            self.suggested(WORKERS, f"no num_workers: data loads in the training process, between "
                                    f"steps; num_workers={n} would overlap it with the step, but "
                                    "a dataset with its own random generator or open files "
                                    "yields differently in workers, which the guard cannot see",
                           UNSAFE_WORKERS)
            return new if changed else None
        new["num_workers"] = n
        persistent = ""
        if "persistent_workers" not in arguments:
            if self.config.allows(UNSAFE_PERSISTENT):
                new["persistent_workers"] = True
                persistent = ", persistent_workers=True"
            else:
                self._suggest_persistent()
        self.fixed(WORKERS, f"num_workers=0 -> {n}{persistent} (opted in: loader_workers): "
                            "loading overlaps the step; batch order unchanged")
        return new

    def _suggest_persistent(self):
        self.suggested(WORKERS, "workers start again every epoch; persistent_workers=True keeps "
                                "them, but then they keep the dataset as it was at the first "
                                "epoch (changes the script makes between epochs are not seen)",
                       UNSAFE_PERSISTENT)

    def unsafe_reason(self, arguments):
        """Why workers cannot be given to this loader at all (None: they can, on opt-in).

        Looks at types and settings only, never at a sample or a pickle of the dataset."""
        from torch.utils.data import get_worker_info

        dataset = arguments.get("dataset")
        if get_worker_info() is not None or multiprocessing.current_process().daemon:
            return "already inside a worker process"
        if isinstance(dataset, IterableDataset):
            return "an IterableDataset would be replayed by every worker"
        ctx = arguments.get("multiprocessing_context")
        method = ctx if isinstance(ctx, str) else (
            ctx.get_start_method() if ctx is not None else multiprocessing.get_start_method(True)
            or multiprocessing.get_context().get_start_method())
        if method != "fork":
            return f"start method {method!r}: spawned workers re-import the script"
        if not hasattr(type(dataset), "__len__"):
            return "dataset has no len()"
        return None

    # -- first pass ----------------------------------------------------------------------------
    def first_pass(self, loader, original_iter):
        settings = self.user_settings.pop(loader)
        gen = loader.generator
        states = (torch.get_rng_state(), gen.get_state() if gen is not None else None)
        it = original_iter(loader)
        try:
            first = next(it)
        except StopIteration:
            return iter(())
        except Exception as exc:
            shutdown = getattr(it, "_shutdown_workers", None)
            if shutdown is not None:
                shutdown()
            self.made_persistent.discard(loader)
            for name, value in settings.items():
                object.__setattr__(loader, name, value)
            object.__setattr__(loader, "_iterator", None)
            torch.set_rng_state(states[0])
            if gen is not None:
                gen.set_state(states[1])
            self.left_alone(WORKERS, f"worker failed at the first batch ({type(exc).__name__}: "
                                  f"{str(exc)[:120]}); back to the loader's own settings")
            return original_iter(loader)
        return _Prepended(first, it)
