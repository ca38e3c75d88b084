"""TPL102: where the script waits for the device (host syncs), per source line, per step.

``.item()``, ``.tolist()``, ``.cpu()``, ``.numpy()``, ``bool/float/int(t)``, ``.nonzero()`` and
``torch.cuda.synchronize()`` make the host wait for all queued device work; in a training loop
each one stalls the pipeline. The guard counts them by the user's source line and reports counts
per optimizer step; it changes nothing.

Only those Tensor methods are wrapped: a TorchFunctionMode would see them too but adds ~1.5 us to
every ordinary op. Calls made by torch itself (the DataLoader draws a seed with ``.item()``) are not
the script's and are not counted. While torch.compile traces, the wrapper steps aside at once:
``sys._getframe`` inside a traced function would add graph breaks.
With an accelerator target only calls on accelerator tensors are counted: reading a CPU tensor
waits for nothing. On a CPU-only target every such call is counted, and the report says what that
is: a read that waits for no device on this run and would be a host sync on an accelerator (the
places to look at before moving the script to a GPU), not a host sync.
"""

from __future__ import annotations

import sys
import threading

import torch

from torchperf_lint.catalog import RUNTIME_SYNC_REPORT

from ..events import OBSERVED, _is_internal
from .base import Fix

CODE = "TPL102"
METHODS = ("item", "tolist", "cpu", "numpy", "__bool__", "__float__", "__int__", "nonzero")


_SPELLING = {"__bool__": "bool(t)", "__float__": "float(t)", "__int__": "int(t)",
             "torch.cuda.synchronize": "torch.cuda.synchronize()"}


class SyncReportFix(Fix):
    name = RUNTIME_SYNC_REPORT
    codes = (CODE,)
    _final_steps = None  # the step count when uninstalled

    def _install(self):
        self.counts = {}  # (filename, lineno) -> {kind: count}
        self._final_steps = None
        self._lock = threading.Lock()
        count_cpu = self.count_cpu = self.config.device_type == "cpu"
        is_compiling = torch.compiler.is_compiling
        getframe = sys._getframe
        # file name -> whether it is torch's, the guard's or a library's: decided once per file,
        # not by prefix tests at every call (keyed by name, not code object: bounded by the
        # files, however many code objects a notebook or exec() makes).
        internal = {}
        fix = self

        def count_caller(frame, name):
            code = frame.f_code
            filename = code.co_filename
            skip = internal.get(filename)
            if skip is None:
                skip = internal[filename] = _is_internal(filename)
            if not skip:
                fix.count((code.co_filename, frame.f_lineno), name)

        def make(name, original):
            def wrapper(tensor, *args, **kwargs):
                # A CPU tensor on an accelerator target waits for nothing: out at once.
                if fix.active and (count_cpu or not tensor.is_cpu) and not is_compiling():
                    try:
                        count_caller(getframe(1), name)
                    except Exception as exc:
                        fix.fail(exc, name)
                return original(tensor, *args, **kwargs)

            return wrapper

        for name in METHODS:
            self.patch(torch.Tensor, name, make(name, getattr(torch.Tensor, name)))

        original_sync = torch.cuda.synchronize

        def synchronize(*args, **kwargs):
            if fix.active and not is_compiling():
                try:
                    count_caller(getframe(1), "torch.cuda.synchronize")
                except Exception as exc:
                    fix.fail(exc, "torch.cuda.synchronize")
            return original_sync(*args, **kwargs)

        self.patch(torch.cuda, "synchronize", synchronize)

    @property
    def steps(self):
        """Optimizer steps since install: the guard's step hooks count them for every fix."""
        if self._final_steps is not None:
            return self._final_steps
        return self.guard.registry.step_hooks.steps

    def _uninstall(self):
        self._final_steps = self.guard.registry.step_hooks.steps

    def count(self, where, kind):
        with self._lock:
            kinds = self.counts.get(where)
            if kinds is None:
                kinds = self.counts[where] = {}
            kinds[kind] = kinds.get(kind, 0) + 1

    def finalize(self):
        with self._lock:
            items = [(where, dict(kinds)) for where, kinds in self.counts.items()]
        steps = self.steps
        for (filename, lineno), kinds in items:
            total = sum(kinds.values())
            what = ", ".join(f"{_SPELLING.get(k, '.' + k + '()')} x{n}"
                             for k, n in sorted(kinds.items()))
            if steps:
                per = f"{total / steps:.2g} per optimizer step over {steps} steps"
            else:
                per = "no optimizer step seen"
            if self.count_cpu:
                detail = (f"value read back to Python: {what} ({per}); on this CPU-only run it "
                          "waits for no device, on an accelerator each is a host sync: keep values "
                          "on the device (total += loss.detach()) and read them once per epoch or "
                          "every N steps")
            else:
                detail = (f"host sync: {what} ({per}); keep values on the device "
                          "(total += loss.detach()) and sync once per epoch or every N steps")
            self.guard.log.put(CODE, OBSERVED, detail, self.name, f"{filename}:{lineno}", total)
