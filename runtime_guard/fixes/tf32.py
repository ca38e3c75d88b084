"""TPL306 (opt-in, ``RUNTIME_GUARD_TF32=1``): float32 matmuls on TF32 tensor cores.

On a GPU with TF32 (NVIDIA, compute capability 8.0 or newer), the guard calls
``torch.set_float32_matmul_precision("high")`` at install: float32 matrix multiplies may then use
TF32 (float32 range, 10-bit mantissa). It changes numerics, so it happens only when asked for with
``RUNTIME_GUARD_TF32=1``, and is reported. Without a CUDA target, on ROCm, or on an older GPU it is
left alone and the report says why. Without the variable this fix does nothing at all.

The script's own choice wins: the setters every spelling goes through
(``torch._C._set_float32_matmul_precision`` for ``torch.set_float32_matmul_precision``,
``torch._C._set_cublas_allow_tf32`` for ``torch.backends.cuda.matmul.allow_tf32 = ...``,
``torch._C._set_fp32_precision_setter`` for the ``fp32_precision`` attributes) are wrapped, and
the first time the script calls one, the guard puts the previous precision back before the
script's call runs. That matters beyond courtesy: torch raises on reading the TF32 state once the
legacy and the new API were mixed (``set_float32_matmul_precision("high")`` then
``matmul.fp32_precision = "ieee"``), and stepping back first leaves exactly the state the script
alone would have made.
"""

from __future__ import annotations

import os

import torch

from torchperf_lint.catalog import RUNTIME_TF32

from ..events import user_location
from .base import Fix

CODE = "TPL306"
ENV = "RUNTIME_GUARD_TF32"
_SETTERS = ("_set_float32_matmul_precision", "_set_cublas_allow_tf32", "_set_fp32_precision_setter")


def requested() -> bool:
    return os.environ.get(ENV, "").strip().lower() in ("1", "true", "yes", "on")


class TF32Fix(Fix):
    name = RUNTIME_TF32
    codes = (CODE,)

    def _install(self):
        self.previous = None  # the precision before the guard changed it (None: not changed)
        if not requested():
            return
        reason = self.unsupported_reason()
        if reason is not None:
            self.skipped(CODE, f"{ENV}=1: left alone: {reason}")
            return
        current = torch.get_float32_matmul_precision()
        if current != "highest":
            self.skipped(CODE, f"{ENV}=1: left alone: the float32 matmul precision is already "
                               f"{current!r}")
            return
        if not self.fixing:
            self.observed(CODE, f"{ENV}=1 (warn mode): torch.set_float32_matmul_precision(\"high\") "
                                "would let float32 matmuls use TF32 tensor cores")
            return
        originals = {name: getattr(torch._C, name) for name in _SETTERS}
        for name, original in originals.items():
            self.patch(torch._C, name, self._stepping_back(name, original))
        self._set_precision = originals["_set_float32_matmul_precision"]
        self._set_precision("high")
        self.previous = current
        self.on_undo(self._restore)
        self.fixed(CODE, "torch.set_float32_matmul_precision(\"high\") (was \"highest\"): float32 "
                         f"matmuls may use TF32 tensor cores ({ENV}=1); a setting the script makes "
                         "itself replaces this one")

    def unsupported_reason(self):
        """Why TF32 cannot be used here, or None when the target GPU has it."""
        device = self.config.device
        if not device.startswith("cuda"):
            return f"the target device is {device!r}, not a CUDA GPU (TF32 is a feature of NVIDIA " \
                   "GPUs with compute capability 8.0 or newer)"
        if not torch.cuda.is_available():
            return "CUDA is not available"
        if getattr(torch.version, "hip", None):
            return "ROCm GPUs have no TF32 mode"
        index = torch.device(device).index
        major, minor = torch.cuda.get_device_capability(index)
        if major < 8:
            return f"the GPU has compute capability {major}.{minor}; TF32 needs 8.0 (Ampere) or newer"
        return None

    def _stepping_back(self, name, original):
        fix = self

        def setter(*args, **kwargs):
            if fix.active and fix.previous is not None:
                try:
                    fix.step_back(user_location(1))
                except Exception as exc:
                    fix.fail(exc, name)
            return original(*args, **kwargs)

        setter.__name__ = getattr(original, "__name__", name)
        setter.__doc__ = getattr(original, "__doc__", None)
        return setter

    def step_back(self, location: str) -> None:
        """The script sets the precision itself: put back what was there, then let it."""
        previous, self.previous = self.previous, None
        self._set_precision(previous)
        self.skipped(CODE, "the script sets the float32 matmul precision itself: the "
                                    f"guard's \"high\" was withdrawn (back to {previous!r}) first",
                   location)

    def _restore(self) -> None:
        if self.previous is not None:
            previous, self.previous = self.previous, None
            self._set_precision(previous)
