"""The one patching mechanism: every attribute the guard replaces goes through ``PatchRegistry``.

A replacement function is made to look like the original to everything that inspects it:

- ``functools.update_wrapper``: ``__name__``, ``__qualname__``, ``__doc__``, ``__module__`` and
  ``__wrapped__``; ``__signature__`` is the original's, so ``inspect.signature`` sees the
  original's parameters. Lightning re-creates DataLoaders from ``inspect.signature`` of
  ``DataLoader.__init__`` and stores the positional ``dataset`` as ``__dataset`` by those
  parameter names: with ``(loader, *args, **kwargs)`` it stored nothing and died with
  ``'DataLoader' object has no attribute '__dataset'``.
- TorchScript compiles the original, never the wrapper: a wrapped torch builtin (``torch.zeros``)
  is entered in TorchScript's builtin table under the original's operator, and a wrapped Python
  function (``F._verify_batch_size``, which ``F.batch_norm`` calls) gets
  ``__prepare_scriptable__``, which TorchScript's recursive compiler asks for the function to
  compile. Scripted code therefore runs unguarded, exactly as without the guard.
- ``torch.compile`` traces the wrappers (they step aside under ``torch.compiler.is_compiling()``).
- warnings that torch raises inside a wrapper are shown at the script's line
  (``warnings_at_the_users_line``).

Restoring puts back the very object that was there (identity-equal), or deletes the attribute
when the guard added it to an object that only inherited it, and removes the TorchScript builtin
entries, so that ``uninstall()`` leaves torch as it found it.

Optimizer steps: the guard registers one global step pre-hook and one post-hook with torch for all
its fixes (``StepHooks``), and fixes subscribe to them through the registry (``step_hook``). Each
hook torch calls is a Python call on every step of every script, so a fix subscribes only while it
has work there (loss scaling once a float16 autocast region or a GradScaler appears, the DDP
all-reduce count once a DDP model runs), and the step count that the report gives is counted here
once for all.
"""

from __future__ import annotations

import functools
import inspect
import threading
import types
import warnings
from typing import Any, Callable, List, Tuple

_MISSING = object()


def _builtin_table():
    try:
        from torch.jit import _builtins
        return _builtins._get_builtin_table()
    except Exception:  # torch without TorchScript: nothing to register
        return None


def transparent(original: Any, wrapper: Callable) -> Callable:
    """Make ``wrapper`` present itself as ``original`` (see the module docstring); return it."""
    if isinstance(original, (staticmethod, classmethod)):
        original = original.__func__
    functools.update_wrapper(wrapper, original)
    try:
        wrapper.__signature__ = inspect.signature(original)
    except (TypeError, ValueError):  # builtins without a text signature: __wrapped__ suffices
        pass
    wrapper.__runtime_guard_original__ = original
    innermost = original_of(original)
    if isinstance(innermost, types.FunctionType):
        wrapper.__prepare_scriptable__ = lambda: innermost
    else:
        wrapper.__dict__.pop("__prepare_scriptable__", None)
    return wrapper


def original_of(obj: Any) -> Any:
    """The unwrapped original of a guard wrapper (the object itself otherwise)."""
    while hasattr(obj, "__runtime_guard_original__"):
        obj = obj.__runtime_guard_original__
    return obj


def warnings_at_the_users_line(registry: "PatchRegistry", owner: str) -> None:
    """Warnings raised inside a guard wrapper are shown at the script's line, not the guard's.

    torch's C++ warnings (``torch.tensor(a_tensor)``'s "To copy construct from a tensor...", a
    complex-to-real ``.to``) are attributed to the innermost Python frame, which under the guard is
    the wrapper of the factory or method. ``warnings._showwarnmsg`` is where every shown or recorded
    warning passes, C++ ones included (``catch_warnings(record=True)`` and pytest's capture too):
    a message located in the guard's files is moved to the first frame that is neither torch's,
    the guard's nor a library's. Nothing runs unless a warning is shown."""
    from .events import _GUARD_DIR, user_frame

    original = warnings._showwarnmsg

    def _showwarnmsg(msg):
        try:
            if str(msg.filename).startswith(_GUARD_DIR):
                frame = user_frame(1)
                if frame is not None:
                    msg.filename = frame.f_code.co_filename
                    msg.lineno = frame.f_lineno
                    msg.line = None
        except Exception:
            pass
        return original(msg)

    registry.patch(owner, warnings, "_showwarnmsg", _showwarnmsg)


class StepHooks:
    """The guard's global optimizer step hooks: one pre-hook and one post-hook with torch, calling
    the fixes subscribed to them (in the order they subscribed), and the count of optimizer steps.

    Subscribers are kept in tuples, replaced (never changed in place) by ``add``/``remove``: a fix
    may subscribe or leave while a step runs its hooks (from an autocast region inside a closure,
    a model run in another hook) without disturbing the loop, which torch's own hook dicts would
    not allow ("dictionary changed size during iteration"). That is why both hooks are registered
    with torch once, at install, and never from a fix's wrapper."""

    def __init__(self) -> None:
        self.before: Tuple[Callable, ...] = ()
        self.after: Tuple[Callable, ...] = ()
        self.steps = 0  # optimizer steps (of every optimizer) since start()
        self._handles: Tuple[Any, ...] = ()
        self._lock = threading.Lock()  # two fixes subscribing from two threads: neither is lost

    def start(self) -> None:
        from torch.optim.optimizer import (register_optimizer_step_post_hook,
                                           register_optimizer_step_pre_hook)

        self.stop()
        self.steps = 0
        self._handles = (register_optimizer_step_pre_hook(self._before),
                         register_optimizer_step_post_hook(self._after))

    def stop(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = ()
        self.before = self.after = ()

    @property
    def started(self) -> bool:
        return bool(self._handles)

    def add(self, when: str, fn: Callable) -> None:
        if when not in ("before", "after"):
            raise ValueError(f"when: 'before' or 'after', not {when!r}")
        with self._lock:
            if when == "before":
                self.before = self.before + (fn,)
            else:
                self.after = self.after + (fn,)

    def remove(self, fn: Callable) -> None:
        with self._lock:
            self.before = tuple(f for f in self.before if f is not fn)
            self.after = tuple(f for f in self.after if f is not fn)

    def _before(self, optimizer, args, kwargs):
        # torch's contract for a pre-hook: None, or new (args, kwargs) for the hooks after it
        # and the step.
        changed = None
        for fn in self.before:
            result = fn(optimizer, args, kwargs)
            if result is not None:
                args, kwargs = changed = result
        return changed

    def _after(self, optimizer, args, kwargs) -> None:
        self.steps += 1
        for fn in self.after:
            fn(optimizer, args, kwargs)


class PatchRegistry:
    def __init__(self) -> None:
        # (owner fix name, object, attribute, original entry of vars(obj) or _MISSING)
        self._patches: List[Tuple[str, Any, str, Any]] = []
        self._undo: List[Tuple[str, Callable[[], None]]] = []
        self.step_hooks = StepHooks()

    def step_hook(self, owner: str, when: str, fn: Callable) -> Callable[[], None]:
        """Call ``fn(optimizer, args, kwargs)`` before (``when="before"``) or after every optimizer
        step, through the guard's one pair of torch hooks, until the owner is uninstalled or the
        returned function is called. The guard must be started (``StepHooks.start``)."""
        hooks = self.step_hooks
        if not hooks.started:
            raise RuntimeError("the guard's optimizer step hooks are not registered")
        hooks.add(when, fn)
        remove = functools.partial(hooks.remove, fn)
        self.on_undo(owner, remove)
        return remove

    def patch(self, owner: str, obj: Any, attr: str, new: Any) -> Any:
        """Replace ``obj.attr`` with ``new``; return the current (possibly inherited) value.

        A plain function replacing a callable is made ``transparent`` first."""
        current = getattr(obj, attr)
        try:
            own = vars(obj).get(attr, _MISSING)
        except TypeError:  # objects without __dict__: setattr would fail below anyway
            own = _MISSING
        if isinstance(new, types.FunctionType) and callable(current):
            transparent(current, new)
            table = _builtin_table()
            op = table.get(id(original_of(current))) if table is not None else None
            if op is not None:
                table[id(new)] = op
                self.on_undo(owner, functools.partial(table.pop, id(new), None))
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
