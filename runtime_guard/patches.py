"""The patch registry: every attribute the guard replaces is recorded here and restored exactly.

Restoring puts back the very object that was there (identity-equal), or deletes the attribute
when the guard added it to an object that only inherited it (``DataParallel.__new__``), so that
``uninstall()`` leaves torch as it found it.
"""

from __future__ import annotations

from typing import Any, Callable, List, Tuple

_MISSING = object()


class PatchRegistry:
    def __init__(self) -> None:
        # (owner fix name, object, attribute, original entry of vars(obj) or _MISSING)
        self._patches: List[Tuple[str, Any, str, Any]] = []
        self._undo: List[Tuple[str, Callable[[], None]]] = []

    def patch(self, owner: str, obj: Any, attr: str, new: Any) -> Any:
        """Replace ``obj.attr`` with ``new``; return the current (possibly inherited) value."""
        current = getattr(obj, attr)
        try:
            own = vars(obj).get(attr, _MISSING)
        except TypeError:  # objects without __dict__: setattr would fail below anyway
            own = _MISSING
        setattr(obj, attr, new)
        self._patches.append((owner, obj, attr, own))
        return current

    def on_undo(self, owner: str, fn: Callable[[], None]) -> None:
        """Register a callback (e.g. removing a hook handle) run when the owner is uninstalled."""
        self._undo.append((owner, fn))

    def restore(self, owner: str = None) -> List[str]:
        """Undo the patches of one owner (or all), newest first; return errors as text."""
        errors = []
        keep = []
        for entry in reversed(self._patches):
            who, obj, attr, own = entry
            if owner is not None and who != owner:
                keep.append(entry)
                continue
            try:
                if own is _MISSING:
                    delattr(obj, attr)
                else:
                    setattr(obj, attr, own)
            except Exception as exc:  # keep restoring the others
                errors.append(f"{obj!r}.{attr}: {exc}")
        self._patches = list(reversed(keep))
        keep_undo = []
        for entry in reversed(self._undo):
            who, fn = entry
            if owner is not None and who != owner:
                keep_undo.append(entry)
                continue
            try:
                fn()
            except Exception as exc:
                errors.append(f"undo {fn!r}: {exc}")
        self._undo = list(reversed(keep_undo))
        return errors

    def __len__(self) -> int:
        return len(self._patches)
