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
- ``RUNTIME_GUARD_UNSAFE``: comma list of the fixes that can change results, applied only on this
  opt-in (also ``install(unsafe=[...])``); ``all`` names every one. Names (or the codes that map to
  them): ``loader_workers`` (TPL501: worker processes for a dataset the guard cannot see into:
  a dataset with its own random generator or state draws differently in workers),
  ``persistent_workers`` (workers kept between epochs: they keep the dataset as it was at the first
  epoch), ``random_on_device`` (TPL101: random factories built on the device draw other numbers
  and leave the CPU generator where it was), ``set_epoch`` (TPL204: a script's own
  DistributedSampler gets a new order each epoch), ``syncbn`` (TPL202: BatchNorm statistics over
  the global batch instead of each GPU's). Without the opt-in they are reported as ``suggested``.
- ``RUNTIME_GUARD_TF32=1``: the opt-in TPL306 fix sets ``torch.set_float32_matmul_precision("high")``
  on a GPU with TF32 (read by ``fixes/tf32.py``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import FrozenSet, Iterable, List, Optional

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

# Fixes that can change what a run computes: applied only when named in RUNTIME_GUARD_UNSAFE.
UNSAFE_WORKERS = "loader_workers"
UNSAFE_PERSISTENT = "persistent_workers"
UNSAFE_RANDOM = "random_on_device"
UNSAFE_SET_EPOCH = "set_epoch"
UNSAFE_SYNCBN = "syncbn"
UNSAFE_FIXES = (UNSAFE_WORKERS, UNSAFE_PERSISTENT, UNSAFE_RANDOM, UNSAFE_SET_EPOCH,
                UNSAFE_SYNCBN)
# Rule codes and fix names accepted in RUNTIME_GUARD_UNSAFE for the unsafe fixes they cover.
_UNSAFE_ALIASES = {
    "TPL501": (UNSAFE_WORKERS,), "TPL101": (UNSAFE_RANDOM,), "TPL204": (UNSAFE_SET_EPOCH,),
    "TPL202": (UNSAFE_SYNCBN,), "loader_defaults": (UNSAFE_WORKERS,),
    "device_native": (UNSAFE_RANDOM,), "all": UNSAFE_FIXES,
}


def unsafe_line(name: str) -> str:
    """The one line that opts in to an unsafe fix (shown with "suggested" events)."""
    return f"RUNTIME_GUARD_UNSAFE={name} (or runtime_guard.install(unsafe=[{name!r}]))"


def _comma_items(value) -> List[str]:
    """The non-empty items of a comma list (an environment value) or of a list given in code."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    return [item.strip() for item in items if item.strip()]


def _unsafe_names(value) -> FrozenSet[str]:
    out = set()
    for item in _comma_items(value):
        key = item.upper() if item.upper() in _UNSAFE_ALIASES else item.lower()
        if key in _UNSAFE_ALIASES:
            out.update(_UNSAFE_ALIASES[key])
        elif key in UNSAFE_FIXES:
            out.add(key)
        else:
            print(f"runtime_guard: unknown unsafe fix {item!r} ignored (known: "
                  f"{', '.join(UNSAFE_FIXES)}, all, or TPL501/TPL101/TPL204/TPL202)",
                  file=sys.stderr)
    return frozenset(out)

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
    out = set()
    for item in _comma_items(value):
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
    unsafe: FrozenSet[str] = frozenset()  # opted-in fixes that can change results

    def allows(self, unsafe_fix: str) -> bool:
        """May the unsafe fix ``unsafe_fix`` be applied (fix mode and the user opted in)?"""
        return self.mode == "fix" and unsafe_fix in self.unsafe

    @property
    def fixing(self) -> bool:
        return self.mode == "fix"

    def wants(self, fix_name: str) -> bool:
        return self.mode != "off" and fix_name in self.enabled

    @property
    def device_type(self) -> str:
        return self.device.split(":", 1)[0]


def from_env(mode=None, fixes=None, skip=None, device=None, amp=None, unsafe=None) -> Config:
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
    if unsafe is None:
        unsafe = env.get("RUNTIME_GUARD_UNSAFE")
    return Config(mode=mode, enabled=frozenset(enabled), device=str(device), amp_dtype=amp,
                  launch=launch, unsafe=_unsafe_names(unsafe))
