"""TPL603: autograd anomaly detection left on during training steps (observed, never changed).

``torch.autograd.set_detect_anomaly(True)`` and ``with torch.autograd.detect_anomaly():`` both go
through ``torch.set_anomaly_enabled`` at call time, so wrapping that attribute catches every alias
and records where the script turned anomaly mode on. A hook after every optimizer step (the guard's
step hooks, ``patches.StepHooks``) counts the steps taken while ``torch.is_anomaly_enabled()`` and
times the interval since the previous step, so the
report can give the measured step time with anomaly mode on next to the time without it when the
run has both (free: two clock reads per step). The guard never switches anomaly mode off, in any
mode: the script may be hunting a NaN on purpose.
"""

from __future__ import annotations

import threading
import time
from array import array

import torch

from torchperf_lint.catalog import RUNTIME_ANOMALY

from ..events import OBSERVED, user_location
from .base import Fix

CODE = "TPL603"
_BEFORE = "<turned on before runtime_guard was installed>"
_MAX_SAMPLES = 4096  # step times kept per state: enough for a median, bounded for long runs


class _StepTimes:
    """The first ``_MAX_SAMPLES`` step intervals of one anomaly state, in a buffer of doubles
    allocated once at install and filled in place. A list that grew by one float per step made
    the C library's heap change under every clean step of every guarded run (a new, larger block
    for the list each time it grew, up to 80 KB): on a CPU conv step that moved where glibc put
    the step's tensors, and with them how often it gave heap memory back to the kernel and
    faulted it in again. Now a clean step allocates nothing here."""

    __slots__ = ("values", "count")

    def __init__(self) -> None:
        self.values = array("d", bytes(8 * _MAX_SAMPLES))
        self.count = 0

    def add(self, seconds: float) -> None:
        if self.count < _MAX_SAMPLES:
            self.values[self.count] = seconds
            self.count += 1

    def kept(self) -> list:
        return self.values[:self.count].tolist()


class AnomalyModeFix(Fix):
    name = RUNTIME_ANOMALY
    codes = (CODE,)

    def _install(self):
        self._lock = threading.Lock()
        self.turned_on_at = _BEFORE if torch.is_anomaly_enabled() else None
        self.steps_on = 0
        self.steps_off = 0
        self.seconds_on = _StepTimes()  # intervals between optimizer steps, by anomaly state
        self.seconds_off = _StepTimes()
        self._last_step = None
        fix = self
        original = torch.set_anomaly_enabled

        def set_anomaly_enabled(enabled, *args, **kwargs):
            if fix.active and enabled:
                try:
                    if not torch.is_anomaly_enabled():
                        fix.turned_on_at = user_location(1)
                except Exception as exc:
                    fix.fail(exc, "set_anomaly_enabled")
            return original(enabled, *args, **kwargs)

        self.patch(torch, "set_anomaly_enabled", set_anomaly_enabled)
        self.step_hook("after", self._make_step_hook())

    def _make_step_hook(self):
        """The hook run after every optimizer step: it counts the step by anomaly state and keeps
        the interval since the previous step. It runs at every step of every script, so what it
        reads is bound here once (no attribute or module lookups per step)."""
        fix = self
        lock = self._lock
        perf_counter = time.perf_counter
        anomaly_enabled = torch.is_anomaly_enabled
        is_compiling = torch.compiler.is_compiling
        seconds_on, seconds_off = self.seconds_on, self.seconds_off

        def after_optimizer_step(optimizer, args, kwargs) -> None:
            if not fix.active:
                return
            if is_compiling():
                # A compiled optimizer step: time.perf_counter and the lock would break its
                # graph. The step is not timed; whether anomaly mode is on is decided outside
                # compiled code.
                return
            try:
                now = perf_counter()
                on = anomaly_enabled()
                with lock:
                    if on:
                        fix.steps_on += 1
                        samples = seconds_on
                    else:
                        fix.steps_off += 1
                        samples = seconds_off
                    last = fix._last_step
                    if last is not None:
                        samples.add(now - last)
                    fix._last_step = now
            except Exception as exc:
                fix.fail(exc, "optimizer step hook")

        return after_optimizer_step

    def finalize(self) -> None:
        with self._lock:
            steps_on, steps_off = self.steps_on, self.steps_off
            on, off = self.seconds_on.kept(), self.seconds_off.kept()
        if not steps_on:
            return
        # Imported here, at report time: statistics pulls in decimal and fractions, which a
        # run that never turns anomaly detection on should not load.
        import statistics

        detail = (f"autograd anomaly detection was on during {steps_on} of {steps_on + steps_off} "
                  "optimizer steps: it records a stack trace for every autograd node and checks every "
                  "gradient for NaN")
        if on and off:
            with_it, without = statistics.median(on), statistics.median(off)
            detail += (f"; median step time {with_it * 1e3:.3g} ms with it, {without * 1e3:.3g} ms "
                       f"without ({with_it / without:.2g}x)")
        elif on:
            detail += f"; median step time {statistics.median(on) * 1e3:.3g} ms with it (no steps without it to compare)"
        detail += "; left on (the guard never turns it off): remove it or put it behind a debug flag"
        self.guard.log.put(CODE, OBSERVED, detail, self.name, self.turned_on_at or _BEFORE, steps_on)
