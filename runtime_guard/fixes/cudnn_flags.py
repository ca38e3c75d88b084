"""TPL401: cudnn.benchmark together with determinism.

``cudnn.benchmark`` tries several convolution algorithms and keeps the fastest, which may differ
run to run, so it defeats ``cudnn.deterministic`` / ``torch.use_deterministic_algorithms(True)``.
When both meet, in either order, benchmark is turned off: the script asked for reproducible
results, and that request is the one that cannot be met otherwise.

Interception points, chosen to catch every alias:
- ``benchmark`` and ``deterministic`` are descriptors on the class of the ``torch.backends.cudnn``
  module object; replacing them there catches ``cudnn.benchmark = …`` through any import alias.
- ``torch.use_deterministic_algorithms`` (and ``set_deterministic_debug_mode``) call
  ``torch._C._set_deterministic_algorithms`` at call time, so patching that catches
  ``from torch import use_deterministic_algorithms`` imported before the guard too.
Not caught: ``torch.backends.cudnn.flags(...)`` and direct ``torch._C._set_cudnn_*`` calls; the
``flags`` context manager restores flags one at a time and would trip over its own transient state.
"""

from __future__ import annotations

import torch
import torch.backends.cudnn as _cudnn

from torchperf_lint.catalog import RUNTIME_CUDNN

from .base import Fix

CODE = "TPL401"


class _GuardedFlag:
    """A descriptor wrapping cudnn's own: reads and writes go to it; writes are then reconciled."""

    def __init__(self, fix, original, flag):
        self.fix = fix
        self.original = original
        self.flag = flag

    def __get__(self, obj, objtype=None):
        return self.original.__get__(obj, objtype)

    def __set__(self, obj, value):
        self.original.__set__(obj, value)
        self.fix.reconcile(self.flag)


class CudnnFlagsFix(Fix):
    name = RUNTIME_CUDNN
    codes = (CODE,)

    def _install(self):
        cls = type(_cudnn)
        self._bench = vars(cls)["benchmark"]
        self._det = vars(cls)["deterministic"]
        self.patch(cls, "benchmark", _GuardedFlag(self, self._bench, "benchmark"))
        self.patch(cls, "deterministic", _GuardedFlag(self, self._det, "deterministic"))
        original = torch._C._set_deterministic_algorithms
        fix = self

        def _set_deterministic_algorithms(mode, *args, **kwargs):
            result = original(mode, *args, **kwargs)
            if fix.active:
                fix.reconcile("use_deterministic_algorithms")
            return result

        self.patch(torch._C, "_set_deterministic_algorithms", _set_deterministic_algorithms)
        # Flags set before the guard was imported meet here.
        self.reconcile("already set at install")

    def reconcile(self, flag):
        if not self.active:
            return
        try:
            if not self._bench.__get__(_cudnn, type(_cudnn)):
                return
            det = bool(self._det.__get__(_cudnn, type(_cudnn)))
            algos = torch.are_deterministic_algorithms_enabled()
            if not (det or algos):
                return
            which = " and ".join(n for n, on in (("cudnn.deterministic=True", det),
                                                 ("torch.use_deterministic_algorithms(True)", algos))
                                 if on)
            if self.fixing:
                self._bench.__set__(_cudnn, False)
                self.fixed(CODE, f"cudnn.benchmark=True with {which} (set by {flag}): "
                                 "benchmark turned off so results stay reproducible")
            else:
                self.suggested(CODE, f"cudnn.benchmark=True with {which}: benchmark's algorithm "
                                     "choice varies run to run; set benchmark=False")
        except Exception as exc:
            self.fail(exc, "reconcile")
