"""The base of every fix: patching through the shared registry, events, and failing safely."""

from __future__ import annotations

import traceback
from typing import Any, Optional

from ..events import FIXED, OBSERVED, SKIPPED, user_location


class Fix:
    """One runtime fix. Subclasses set ``name`` and ``codes`` and implement ``_install``.

    Every patched entry point must check ``self.active`` first and, on an internal failure, call
    ``self.fail(exc)`` and then the original: a bug in the guard must never break the user's run.
    """

    name = ""
    codes: tuple = ()

    def __init__(self, guard) -> None:
        self.guard = guard
        self.active = False

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

    def event(self, code: str, action: str, detail: str, location: Optional[str] = None,
              count: int = 1):
        if location is None:
            location = user_location(2)
        return self.guard.log.add(code, action, detail, self.name, location, count)

    def fixed(self, code, detail, location=None, count=1):
        """A change made in fix mode, or only observed in warn mode."""
        action = FIXED if self.fixing else OBSERVED
        if location is None:
            location = user_location(2)
        return self.event(code, action, detail, location, count)

    def observed(self, code, detail, location=None, count=1):
        if location is None:
            location = user_location(2)
        return self.event(code, OBSERVED, detail, location, count)

    def skipped(self, code, detail, location=None, count=1):
        if location is None:
            location = user_location(2)
        return self.event(code, SKIPPED, detail, location, count)

    def fail(self, exc: BaseException, where: str = "") -> None:
        """Disable this fix after an internal failure and say why; the caller runs the original."""
        self.active = False
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        at = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
        reason = f"internal failure in {self.name}{' ' + where if where else ''}: " \
                 f"{type(exc).__name__}: {exc}{at}; fix disabled"
        code = self.codes[0] if self.codes else "TPL900"
        try:
            self.event(code, SKIPPED, reason, user_location(2))
        except Exception:
            pass
        if self.guard.debug:
            raise exc
