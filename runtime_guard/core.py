"""The guard: configuration, patch registry, event log and the installed fixes."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Dict, List, Optional

from . import config as _config
from . import report_file
from .events import EventLog, format_table
from .patches import PatchRegistry, warnings_at_the_users_line


class Guard:
    def __init__(self) -> None:
        self.config = _config.Config(mode="off")
        self.registry = PatchRegistry()
        self.log = EventLog()
        self.fixes: Dict[str, object] = {}
        self.installed = False
        self.debug = os.environ.get("RUNTIME_GUARD_DEBUG", "") == "1"
        # What replaces the script when the DDP fix relaunches it under torchrun (set by
        # ``python -m runtime_guard``; the fixes read it from here, never from the runner).
        self.relaunch_target = None
        self._lock = threading.RLock()
        self._atexit = False

    def install(self, mode=None, fixes=None, device=None, skip=None, amp=None,
                unsafe=None) -> None:
        from .fixes import FIX_CLASSES

        with self._lock:
            if self.installed:
                self.uninstall()
            self.config = _config.from_env(mode=mode, fixes=fixes, skip=skip, device=device,
                                           amp=amp, unsafe=unsafe)
            if self.config.mode == "off":
                return
            # The one pair of optimizer step hooks the fixes subscribe to (patches.StepHooks):
            # registered with torch here, never later from inside a step.
            self.registry.step_hooks.start()
            self.registry.on_undo("core", self.registry.step_hooks.stop)
            for cls in FIX_CLASSES:
                if not self.config.wants(cls.name):
                    continue
                fix = cls(self)
                self.fixes[cls.name] = fix
                fix.install()
            self._note_ranks()
            warnings_at_the_users_line(self.registry, "core")
            self.installed = True
            if not self._atexit:
                # Registered once, at the first install that is not "off": an "off" import must
                # leave no trace, not even an atexit handler.
                atexit.register(self._print_report)
                self._atexit = True

    def _note_ranks(self) -> None:
        """A process that joins a process group by itself (an ``mp.spawn`` rank) has no torchrun
        RANK: its rank is noted when it joins, for the report's heading and per-rank file."""
        import torch.distributed as dist

        from . import report_file

        if not dist.is_available():
            return
        original = dist.init_process_group

        def init_process_group(*args, **kwargs):
            result = original(*args, **kwargs)
            report_file.note_process_group()
            return result

        self.registry.patch("core", dist, "init_process_group", init_process_group)
        report_file.note_process_group()  # joined before the guard was installed

    def uninstall(self) -> None:
        with self._lock:
            self.report()  # fixes that tally on their own write their events before they go
            for fix in reversed(list(self.fixes.values())):
                try:
                    fix.uninstall()
                except Exception as exc:
                    print(f"runtime_guard: uninstalling {fix.name} failed: {exc}", file=sys.stderr)
            self.fixes.clear()
            errors = self.registry.restore()
            for err in errors:
                print(f"runtime_guard: could not restore {err}", file=sys.stderr)
            self.installed = False

    def fix(self, name: str):
        return self.fixes.get(name)

    def report(self) -> List[object]:
        for fix in list(self.fixes.values()):
            finalize = getattr(fix, "finalize", None)
            if finalize is not None:
                try:
                    finalize()
                except Exception:
                    pass
        return self.log.events()

    def _print_report(self) -> None:
        events = []
        try:
            events = self.report()
            table = format_table(events, report_file.rank_label())
            if table:
                # One write with its newline: under torchrun every rank shares stderr, and print()
                # writes the text and the end separately, so tables ran into each other.
                sys.stderr.write(table + "\n")
                sys.stderr.flush()
        except Exception:
            pass
        # RUNTIME_GUARD_REPORT / --report: the same events as a JSON or SARIF file (never raises).
        try:
            sync = self.fixes.get("sync_report")
            report_file.write_at_exit(events, getattr(sync, "steps", None))
        except Exception:
            pass


GUARD = Guard()


def install(mode: Optional[str] = None, fixes=None, device: Optional[str] = None, skip=None,
            amp: Optional[str] = None, unsafe=None) -> None:
    """Install the guard (again): explicit arguments win over the RUNTIME_GUARD_* environment.

    ``unsafe``: names of fixes that can change results, applied only on this opt-in
    (``loader_workers``, ``persistent_workers``, ``random_on_device``, ``set_epoch``, ``syncbn``,
    ``all``, or their rule codes); the environment's ``RUNTIME_GUARD_UNSAFE`` otherwise."""
    GUARD.install(mode=mode, fixes=fixes, device=device, skip=skip, amp=amp, unsafe=unsafe)


def uninstall() -> None:
    """Restore every object the guard patched (the identical originals)."""
    GUARD.uninstall()


def report():
    """The events so far: objects with .code, .location, .count, .action, .detail and .apply.

    ``.action`` is "fixed", "suggested" (``.apply`` is the line that applies it), "left alone"
    (``.detail`` is the reason) or "observed" (a finding with no fix); see ``events``."""
    return GUARD.report()
