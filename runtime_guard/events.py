"""Events: what the guard fixed, observed or skipped, keyed by rule code and user source line."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import torch

FIXED = "fixed"
OBSERVED = "observed"
SKIPPED = "skipped"

# Frames in these trees are torch's or ours; an event points at the first frame outside them.
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_GUARD_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_SKIP_PREFIXES = (_TORCH_DIR, _GUARD_DIR, "<frozen ")


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

    def __str__(self) -> str:
        return f"{self.code} {self.action} x{self.count} at {self.location}: {self.detail}"


class EventLog:
    def __init__(self) -> None:
        self._events: Dict[Tuple[str, str, str], Event] = {}
        self._lock = threading.Lock()

    def add(self, code: str, action: str, detail: str, fix: str,
            location: Optional[str] = None, count: int = 1) -> Event:
        if location is None:
            location = user_location(2)
        key = (code, location, action)
        with self._lock:
            event = self._events.get(key)
            if event is None:
                event = self._events[key] = Event(code, location, action, detail, fix, count)
            else:
                event.count += count
        return event

    def put(self, code: str, action: str, detail: str, fix: str, location: str,
            count: int) -> None:
        """Set an event's count and detail outright (for fixes that tally on their own)."""
        with self._lock:
            event = Event(code, location, action, detail, fix, count)
            self._events[(code, location, action)] = event

    def events(self) -> List[Event]:
        with self._lock:
            return list(self._events.values())

    def clear(self) -> None:
        with self._lock:
            self._events.clear()


def format_table(events: List[Event]) -> str:
    if not events:
        return ""
    rank = os.environ.get("RANK")
    head = "runtime_guard report" + (f" (rank {rank})" if rank is not None else "")
    rows = [("code", "action", "count", "location", "detail")]
    for e in sorted(events, key=lambda e: (e.code, e.location)):
        loc = e.location
        if len(loc) > 60:
            loc = "…" + loc[-59:]
        rows.append((e.code, e.action, str(e.count), loc, e.detail))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [head]
    for r in rows:
        lines.append("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4])
    return "\n".join(lines)
