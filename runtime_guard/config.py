"""Configuration of the runtime guard, read from the environment and overridden by ``install()``.

Environment variables (the public surface; README documents them):

- ``RUNTIME_GUARD``: ``off`` (importing changes nothing), ``warn`` (observe and report only) or
  ``fix`` (the default).
- ``RUNTIME_GUARD_FIXES`` / ``RUNTIME_GUARD_SKIP``: comma lists of fix names (``ddp``, ``set_epoch``…)
  or rule codes (``TPL201``…). FIXES keeps only the named ones; SKIP drops the named ones.
- ``RUNTIME_GUARD_DEVICE``: the target device; ``cuda`` when CUDA is available, else ``cpu``.
  Tests use ``meta`` as a stand-in for an accelerator.
- ``RUNTIME_GUARD_AMP``: ``bf16`` or ``fp16`` turns on the opt-in TPL305 autocast of the trained
  model's forward (also ``install(amp=...)``/``prepare(amp=...)``). On CUDA: bfloat16 where the
  GPU supports it, else float16 with the guard's loss scaling. On a CPU target only ``bf16`` (the
  user's explicit request; about as fast as float32 there); ``fp16`` on a CPU is reported as
  skipped. Scripts that use autocast themselves are left alone.
- ``RUNTIME_GUARD_LAUNCH=1``: with several GPUs and no torchrun, relaunch the script under torchrun.
- ``RUNTIME_GUARD_TF32=1``: the opt-in TPL306 fix sets ``torch.set_float32_matmul_precision("high")``
  on a GPU with TF32 (read by ``fixes/tf32.py``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import FrozenSet, Iterable, Optional

from torchperf_lint.catalog import (
    CATALOG,
    RUNTIME_AMP,
    RUNTIME_ANOMALY,
    RUNTIME_BATCHNORM,
    RUNTIME_CONV_BIAS,
    RUNTIME_CUDNN,
    RUNTIME_DDP,
    RUNTIME_DDP_ACCUMULATION,
    RUNTIME_DEVICE_NATIVE,
    RUNTIME_LOADER,
    RUNTIME_SET_EPOCH,
    RUNTIME_SYNC_REPORT,
    RUNTIME_SYNCBN,
    RUNTIME_TF32,
)

MODES = ("off", "warn", "fix")

# Every fix the guard knows, by its catalog name. The sync report only observes, so "fix" and
# "warn" mean the same for it.
ALL_FIXES = (
    RUNTIME_SET_EPOCH,
    RUNTIME_DDP,
    RUNTIME_SYNCBN,
    RUNTIME_LOADER,
    RUNTIME_CUDNN,
    RUNTIME_AMP,
    RUNTIME_DEVICE_NATIVE,
    RUNTIME_SYNC_REPORT,
    RUNTIME_BATCHNORM,
    RUNTIME_DDP_ACCUMULATION,
    RUNTIME_TF32,
    RUNTIME_ANOMALY,
    RUNTIME_CONV_BIAS,
)


def _names(value: Optional[Iterable[str] | str]) -> FrozenSet[str]:
    """Fix names from a comma list of fix names and/or rule codes (codes map through the catalog)."""
    if value is None:
        return frozenset()
    items = value.split(",") if isinstance(value, str) else list(value)
    out = set()
    for raw in items:
        item = raw.strip()
        if not item:
            continue
        upper = item.upper()
        if upper in CATALOG:
            fix = CATALOG[upper].runtime_fix
            if fix:
                out.add(fix)
            continue
        if item.lower() in ALL_FIXES:
            out.add(item.lower())
            continue
        print(f"runtime_guard: unknown fix or code {item!r} ignored "
              f"(known: {', '.join(ALL_FIXES)} or TPL codes)", file=sys.stderr)
    return frozenset(out)


def default_device() -> str:
    try:
        import torch
        return "cuda" if torch.cuda.is_available() else "cpu"
    except Exception:  # torch missing or broken: the guard then has nothing to do anyway
        return "cpu"


@dataclass
class Config:
    mode: str = "fix"
    enabled: FrozenSet[str] = field(default_factory=lambda: frozenset(ALL_FIXES))
    device: str = "cpu"
    amp_dtype: Optional[str] = None  # TPL305 opt-in: "bf16" or "fp16"
    launch: bool = False

    @property
    def fixing(self) -> bool:
        return self.mode == "fix"

    def wants(self, fix_name: str) -> bool:
        return self.mode != "off" and fix_name in self.enabled

    @property
    def device_type(self) -> str:
        return self.device.split(":", 1)[0]


def from_env(mode=None, fixes=None, skip=None, device=None, amp=None) -> Config:
    """Build the configuration: explicit arguments win over the environment."""
    env = os.environ
    if mode is None:
        mode = env.get("RUNTIME_GUARD", "fix").strip().lower() or "fix"
    if mode not in MODES:
        # An unknown mode must not make the guard change a run the user did not agree to:
        # fall back to observing only.
        print(f"runtime_guard: RUNTIME_GUARD={mode!r} is not one of {MODES}; using 'warn'",
              file=sys.stderr)
        mode = "warn"
    if fixes is None:
        fixes = env.get("RUNTIME_GUARD_FIXES")
    if skip is None:
        skip = env.get("RUNTIME_GUARD_SKIP")
    enabled = set(ALL_FIXES)
    if fixes:
        enabled &= _names(fixes)
    if skip:
        enabled -= _names(skip)
    if device is None:
        device = env.get("RUNTIME_GUARD_DEVICE") or default_device()
    if amp is None:
        amp = env.get("RUNTIME_GUARD_AMP") or None
    if amp is not None:
        amp = amp.strip().lower()
        if amp not in ("bf16", "fp16"):
            print(f"runtime_guard: RUNTIME_GUARD_AMP={amp!r} is not bf16 or fp16; ignored",
                  file=sys.stderr)
            amp = None
    launch = env.get("RUNTIME_GUARD_LAUNCH", "").strip() in ("1", "true", "yes")
    return Config(mode=mode, enabled=frozenset(enabled), device=str(device), amp_dtype=amp,
                  launch=launch)
