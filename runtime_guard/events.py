"""Events: what the guard did about each pitfall, keyed by rule code and user source line.

The report's words (``Event.action``) are promises about the run:

- ``fixed``: the guard changed the run. Only fixes that keep its results are applied by default:
  identical numbers, or, for DistributedDataParallel under torchrun and float16 loss scaling,
  exactly what a careful hand-written version computes. A fix that can change results is applied
  only where the user opted in (``RUNTIME_GUARD_UNSAFE`` / ``install(unsafe=[...])``).
- ``suggested``: a fix exists but was not applied (it can change results and the user did not opt
  in, or the mode is ``warn``); ``Event.apply`` holds the one line that applies it.
- ``left alone``: the guard saw the pitfall and deliberately changed nothing; ``Event.detail`` is
  the reason (also used when a fix disabled itself after an internal failure).
- ``observed``: a finding with no fix to apply (the host-sync report, a GradScaler misused by the
  script): the report says what to change in the code.

Before these words the actions were ``fixed``/``observed``/``skipped``: ``skipped`` is now
``left alone``; ``observed`` in warn mode for a fix the guard would apply is now ``suggested``.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import torch

FIXED = "fixed"
SUGGESTED = "suggested"
LEFT_ALONE = "left alone"
OBSERVED = "observed"
SKIPPED = LEFT_ALONE  # the former name of "left alone", kept for modules written against it
ACTIONS = (FIXED, SUGGESTED, LEFT_ALONE, OBSERVED)

# Frames in these trees are torch's, ours or an installed library's (Lightning, accelerate,
# tqdm: their lines are not the script's to change); an event points at the first frame outside
# them, the script's line that called into them.
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_GUARD_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _library_dirs():
    import site
    import sysconfig

    dirs = set()
    for key in ("purelib", "platlib", "stdlib", "platstdlib"):
        try:
            dirs.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    try:
        dirs.update(site.getsitepackages())
        dirs.add(site.getusersitepackages())
    except Exception:  # virtualenv's old site module lacks these
        pass
    return tuple(os.path.abspath(d) + os.sep for d in sorted(dirs) if d)


_SKIP_PREFIXES = (_TORCH_DIR, _GUARD_DIR, "<frozen ") + _library_dirs()


def _is_internal(filename: str) -> bool:
    return filename.startswith(_SKIP_PREFIXES)


def user_frame(depth: int = 1):
    """The innermost frame that is neither torch's nor the guard's (None if there is none)."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return None
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def user_location(depth: int = 1) -> str:
    frame = user_frame(depth + 1)
    if frame is None:
        return "<unknown>:0"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


@dataclass
class Event:
    code: str
    location: str
    action: str
    detail: str
    fix: str
    count: int = 1
    apply: str = ""  # for "suggested": the one line (environment or call) that applies the fix

    def words(self) -> str:
        """The report's words: "fixed: …", "suggested: … (apply: …)", "left alone: <reason>"."""
        text = f"{self.action}: {self.detail}"
        if self.apply:
            text += f" [apply: {self.apply}]"
        return text

    def __str__(self) -> str:
        return f"{self.code} x{self.count} at {self.location}: {self.words()}"


class EventLog:
    def __init__(self) -> None:
        self._events: Dict[Tuple[str, str, str], Event] = {}
        self._lock = threading.Lock()

    def add(self, code: str, action: str, detail: str, fix: str,
            location: Optional[str] = None, count: int = 1, apply: str = "") -> Event:
        if location is None:
            location = user_location(2)
        key = (code, location, action)
        with self._lock:
            event = self._events.get(key)
            if event is None:
                event = self._events[key] = Event(code, location, action, detail, fix, count,
                                                  apply)
            else:
                event.count += count
        return event

    def put(self, code: str, action: str, detail: str, fix: str, location: str,
            count: int, apply: str = "") -> None:
        """Set an event's count and detail outright (for fixes that tally on their own)."""
        with self._lock:
            event = Event(code, location, action, detail, fix, count, apply)
            self._events[(code, location, action)] = event

    def events(self) -> List[Event]:
        with self._lock:
            return list(self._events.values())

    def clear(self) -> None:
        with self._lock:
            self._events.clear()


def format_table(events: List[Event], rank: Optional[str] = None) -> str:
    """The report printed at exit; ``rank``: the process's rank, for its heading."""
    if not events:
        return ""
    head = "runtime_guard report" + (f" (rank {rank})" if rank is not None else "")
    rows = [("code", "action", "count", "location", "detail")]
    for e in sorted(events, key=lambda e: (e.code, e.location)):
        loc = e.location
        if len(loc) > 60:
            loc = "…" + loc[-59:]
        detail = e.detail + (f" [apply: {e.apply}]" if e.apply else "")
        rows.append((e.code, e.action, str(e.count), loc, detail))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [head]
    for r in rows:
        lines.append("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4])
    return "\n".join(lines)
