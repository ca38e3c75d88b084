"""TPL501/TPL502: DataLoader defaults that starve the device.

- ``pin_memory=True`` when the target is CUDA and the script did not pass ``pin_memory``: copies
  from pinned memory are faster and can overlap compute.
- ``num_workers`` raised from the default 0 (never from an explicit 0: that is a choice, often for
  debugging) only where it is safe and can pay off, with ``persistent_workers=True`` so workers
  start once, not every epoch. "Safe" means: a map-style dataset (an IterableDataset would be
  replayed by every worker), start method fork (spawned workers of a script without a
  ``__main__`` guard crash), a dataset that pickles, a sample fetch that draws no random numbers
  from the global generators (workers draw from their own, so content would change) and returns no
  CUDA tensors, and samples that are not trivially cheap (for in-memory tensors the worker
  round-trip costs more than it saves). Worker batches come back in sampler order, so batch order
  and content do not change.
- If a worker fails at the first batch, the loader falls back to the user's settings (with the
  random state restored, so the order is the one the user's settings give) and the guard reports.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os
import pickle
import random
import sys
import time
import weakref

import torch
from torch.utils.data import DataLoader, IterableDataset, TensorDataset

from torchperf_lint.catalog import RUNTIME_LOADER

from .base import Fix

WORKERS = "TPL501"
PIN = "TPL502"
_PICKLE_PROBE_BYTES = 1 << 20  # a dataset that pickles its first MiB without error is taken as picklable
_CHEAP_SAMPLE_S = 20e-6


class _Enough(Exception):
    pass


class _BoundedWriter:
    def __init__(self, limit):
        self.left = limit

    def write(self, data):
        self.left -= len(data)
        if self.left < 0:
            raise _Enough()


def _pickles(obj) -> bool:
    try:
        pickle.Pickler(_BoundedWriter(_PICKLE_PROBE_BYTES), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except _Enough:
        return True
    except Exception:
        return False
    return True


def _has_cuda_tensor(obj, depth=0) -> bool:
    if isinstance(obj, torch.Tensor):
        return obj.is_cuda
    if depth > 4:
        return False
    if isinstance(obj, (list, tuple)):
        return any(_has_cuda_tensor(o, depth + 1) for o in obj)
    if isinstance(obj, dict):
        return any(_has_cuda_tensor(o, depth + 1) for o in obj.values())
    return False


def _rng_states():
    states = [torch.get_rng_state(), random.getstate()]
    np = sys.modules.get("numpy")
    states.append(np.random.get_state() if np is not None else None)
    return states


def _restore_rng(states):
    torch.set_rng_state(states[0])
    random.setstate(states[1])
    np = sys.modules.get("numpy")
    if np is not None and states[2] is not None:
        np.random.set_state(states[2])


def _same_rng(a, b) -> bool:
    if not torch.equal(a[0], b[0]) or a[1] != b[1]:
        return False
    if a[2] is None or b[2] is None:
        return True
    return a[2][0] == b[2][0] and bool((a[2][1] == b[2][1]).all()) and a[2][2:] == b[2][2:]


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
                fix.skipped(WORKERS, f"DataLoader refused the guard's settings ({exc}); "
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
        if ("pin_memory" not in arguments and self.config.device_type == "cuda"
                and torch.cuda.is_available()):
            if self.fixing:
                new["pin_memory"] = True
                changed = True
            self.fixed(PIN, "pin_memory=True: the loader feeds CUDA (faster, asynchronous copies)",
                       location=None)
        if "num_workers" in arguments:
            if arguments["num_workers"] == 0:
                self.observed(WORKERS, "num_workers=0 given explicitly: kept (data loads in the "
                                       "training process)")
            return new if changed else None
        if not self.fixing:
            self.observed(WORKERS, "no num_workers: data loads in the training process, between "
                                   "steps")
            return new if changed else None
        reason = self.unsafe_reason(arguments)
        if reason:
            self.skipped(WORKERS, f"num_workers left at 0: {reason}")
            return new if changed else None
        n = worker_count()
        new["num_workers"] = n
        if "persistent_workers" not in arguments:
            new["persistent_workers"] = True
        self.fixed(WORKERS, f"num_workers=0 -> {n} (persistent_workers=True): loading overlaps "
                            "the step; batch order unchanged")
        return new

    def unsafe_reason(self, arguments):
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
        if isinstance(dataset, TensorDataset):
            return "in-memory TensorDataset: worker round-trips cost more than indexing"
        try:
            size = len(dataset)
        except Exception:
            return "dataset has no len()"
        if size == 0:
            return "empty dataset"
        if not _pickles(dataset):
            return "dataset does not pickle"
        before = _rng_states()
        try:
            start = time.perf_counter()
            sample = dataset[0]
            elapsed = time.perf_counter() - start
        except Exception as exc:
            return f"fetching a sample to check it failed ({type(exc).__name__})"
        finally:
            after = _rng_states()
            _restore_rng(before)
        if not _same_rng(before, after):
            return "the dataset draws from the global random generators (workers draw other numbers)"
        if _has_cuda_tensor(sample):
            return "samples hold CUDA tensors (a forked worker cannot use CUDA)"
        if elapsed < _CHEAP_SAMPLE_S:
            return f"samples take {elapsed * 1e6:.0f} us to fetch: workers would cost more"
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
            self.skipped(WORKERS, f"worker failed at the first batch ({type(exc).__name__}: "
                                  f"{str(exc)[:120]}); back to the loader's own settings")
            return original_iter(loader)
        return _Prepended(first, it)
