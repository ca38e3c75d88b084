"""The base of every fix: patching through the shared registry, events, and failing safely."""

from __future__ import annotations

import traceback
from typing import Any, Optional

from ..config import unsafe_line
from ..events import FIXED, LEFT_ALONE, OBSERVED, SUGGESTED, user_location

# What a fix says in warn mode instead of applying itself.
APPLY_FIX_MODE = "RUNTIME_GUARD=fix (the default mode)"


class Fix:
    """One runtime fix. Subclasses set ``name`` and ``codes`` and implement ``_install``.

    Every patched entry point must check ``self.active`` first and, on an internal failure, call
    ``self.fail(exc)`` and then the original: a bug in the guard must never break the user's run.
    """

    name = ""
    codes: tuple = ()
    active = False  # until install(); False again after uninstall() or an internal failure

    def __init__(self, guard) -> None:
        self.guard = guard

    @property
    def config(self):
        return self.guard.config

    @property
    def fixing(self) -> bool:
        return self.guard.config.fixing

    def install(self) -> None:
        self.active = True
        try:
            self._install()
        except Exception as exc:  # a fix that cannot install is skipped, the others go on
            self.fail(exc, "install")

    def _install(self) -> None:
        raise NotImplementedError

    def uninstall(self) -> None:
        self.active = False
        self.guard.registry.restore(self.name)
        self._uninstall()

    def _uninstall(self) -> None:
        pass

    def patch(self, obj: Any, attr: str, new: Any) -> Any:
        return self.guard.registry.patch(self.name, obj, attr, new)

    def on_undo(self, fn) -> None:
        self.guard.registry.on_undo(self.name, fn)

    def step_hook(self, when: str, fn):
        """Run ``fn(optimizer, args, kwargs)`` before (``"before"``) or after (``"after"``) every
        optimizer step until uninstall or until the returned function is called (see
        ``patches.StepHooks``: subscribe only while there is work to do at each step)."""
        return self.guard.registry.step_hook(self.name, when, fn)

    def event(self, code: str, action: str, detail: str, location: Optional[str] = None,
              count: int = 1, apply: str = ""):
        # No location given: the script's line that led here. user_location skips every frame of
        # the guard and of torch, so how deep in the guard this is called does not matter.
        if location is None:
            location = user_location()
        return self.guard.log.add(code, action, detail, self.name, location, count, apply)

    def fixed(self, code, detail, location=None, count=1):
        """A change made in fix mode; in warn mode the same change is only suggested."""
        if self.fixing:
            return self.event(code, FIXED, detail, location, count)
        return self.event(code, SUGGESTED, detail, location, count, APPLY_FIX_MODE)

    def suggested(self, code, detail, unsafe_fix=None, location=None, count=1, apply=None):
        """A fix not applied: it can change results (``unsafe_fix`` names the opt-in), or the
        mode is warn. The event carries the one line that applies it."""
        if apply is None:
            apply = unsafe_line(unsafe_fix) if unsafe_fix and self.fixing else APPLY_FIX_MODE
            if unsafe_fix and not self.fixing:
                apply = f"RUNTIME_GUARD=fix with {unsafe_line(unsafe_fix)}"
        return self.event(code, SUGGESTED, detail, location, count, apply)

    def observed(self, code, detail, location=None, count=1):
        """A finding with no fix to apply (the report says what to change in the code)."""
        return self.event(code, OBSERVED, detail, location, count)

    def left_alone(self, code, reason, location=None, count=1):
        """The guard saw the pitfall and deliberately changed nothing, for ``reason``."""
        return self.event(code, LEFT_ALONE, reason, location, count)

    skipped = left_alone  # the former name

    def fail(self, exc: BaseException, where: str = "") -> None:
        """Disable this fix after an internal failure and say why; the caller runs the original."""
        self.active = False
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        at = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
        reason = f"internal failure in {self.name}{' ' + where if where else ''}: " \
                 f"{type(exc).__name__}: {exc}{at}; fix disabled"
        code = self.codes[0] if self.codes else "TPL900"
        try:
            self.event(code, LEFT_ALONE, reason, user_location(2))
        except Exception:
            pass
        if self.guard.debug:
            raise exc
