"""TPL305 (opt-in, ``RUNTIME_GUARD_AMP=bf16|fp16``): the trained model's forward under autocast.

Part of the ``amp`` fix (``AmpFix`` owns it and its patches). Which forward is "the model": the
outermost module whose parameters an optimizer trains. Nothing is hooked on ordinary ops or on
every ``Module.__call__``:

- ``Optimizer.__init__`` (patched on the base class, which every optimizer's ``__init__`` calls)
  notes the parameters of each new optimizer; an optimizer made before the guard was installed is
  noted at its first step.
- While some noted parameters have no wrapped module yet, a global module forward pre-hook and an
  always-called forward hook look at the next forwards: the first (outermost) module called whose
  parameters include noted ones is the model. Its instance gets a subclass of its own class whose
  ``forward`` runs the original under ``torch.autocast`` (the current call is put under autocast by
  the two hooks). The global hooks go as soon as the parameters are covered or the optimizer steps,
  so from the second step on only the model's own forward passes through the guard.
- dtype: on CUDA bfloat16 where ``torch.cuda.is_bf16_supported()``, else float16; float16 gets the
  ``amp`` fix's loss scaling (its ``autocast.__enter__`` patch sees the guard's float16 region like
  a script's own). On a CPU only bfloat16, and only because the user asked for it; float16 on a
  CPU (much slower than float32 there) is reported as skipped and never turned on.
- A script that enters autocast itself (outside the guard's regions) owns precision: the guard
  stands aside for good; a forward already under autocast is never nested.
- ``uninstall()`` puts every wrapped instance back to its own class; copies and pickles of a
  wrapped model (``copy.deepcopy``, ``torch.save(model)``) get the original class.
"""

from __future__ import annotations

import copyreg
import threading
import traceback
import weakref

import torch
from torch.nn.modules import module as _module

from ..events import SKIPPED, user_location

CODE = "TPL305"

_NAMES = {torch.bfloat16: "bfloat16", torch.float16: "float16"}


class AmpStep:
    def __init__(self, fix) -> None:
        self.fix = fix  # the AmpFix: events, patches, loss scaling
        self.want = fix.config.amp_dtype  # "bf16" | "fp16"
        self.on = True
        self.user_autocast = False
        self.tls = threading.local()  # depth of the guard's autocast regions; first-call stack
        self.pending = {}  # id(optimizer) -> set of parameter ids not yet covered by a model
        self.seen = weakref.WeakSet()  # optimizers noted
        self.covered = set()
        self.wrapped = weakref.WeakKeyDictionary()  # module -> its own class
        self.classes = {}  # (class, device type, dtype) -> subclass
        self.hooks = []
        self.open = 0  # first calls put under autocast by the hooks, not yet closed
        self.lock = threading.RLock()

    # -- decisions -----------------------------------------------------------------------------
    def check_target(self):
        """Install-time check of the configured target; return a reason to skip, or None."""
        device = self.fix.config.device_type
        if device == "cpu" and self.want == "fp16":
            return ("RUNTIME_GUARD_AMP=fp16 on a CPU target: float16 autocast is much slower than "
                    "float32 on CPUs; not turned on (bf16 is allowed on request)")
        if device == "cuda" and not torch.cuda.is_available():
            return "RUNTIME_GUARD_AMP set for CUDA but CUDA is not available; not turned on"
        if device not in ("cpu", "cuda"):
            return f"RUNTIME_GUARD_AMP: autocast not supported for target device {device!r}"
        return None

    def choose(self, device_type):
        """(dtype or None, note) for a model whose parameters live on ``device_type``."""
        if device_type == "cuda":
            if self.want == "bf16":
                if torch.cuda.is_bf16_supported():
                    return torch.bfloat16, ""
                return torch.float16, "; this GPU lacks bfloat16: float16 with loss scaling"
            return torch.float16, " with loss scaling"
        if device_type == "cpu":
            if self.want == "bf16":
                return torch.bfloat16, " on the CPU, at the user's request"
            return None, ("float16 autocast on a CPU is much slower than float32: not turned on "
                          "(RUNTIME_GUARD_AMP=bf16 is allowed)")
        return None, f"autocast not supported by the guard for {device_type!r} parameters"

    def fail(self, exc, where):
        """Turn TPL305 off after an internal failure (loss scaling stays); the caller goes on."""
        self.on = False
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        at = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
        try:
            self.fix.event(CODE, SKIPPED, f"internal failure in amp step {where}: "
                                          f"{type(exc).__name__}: {exc}{at}; autocast disabled",
                           user_location(2))
        except Exception:
            pass
        if self.fix.guard.debug:
            raise exc

    # -- optimizers ----------------------------------------------------------------------------
    def note_optimizer(self, optimizer):
        if not self.on or self.user_autocast:
            return
        ids = {id(p) for group in optimizer.param_groups for p in group["params"]}
        ids -= self.covered
        with self.lock:
            self.seen.add(optimizer)
            if ids:
                self.pending[id(optimizer)] = ids
                self._start()

    def on_step(self, optimizer):
        """Optimizer step pre-hook: ends the search for this optimizer's model."""
        if optimizer not in self.seen:
            self.note_optimizer(optimizer)  # made before install: its next forward is found
            return
        if self.pending:
            with self.lock:
                self.pending.pop(id(optimizer), None)
                self._maybe_stop()

    # -- discovery hooks -----------------------------------------------------------------------
    def _start(self):
        if self.hooks:
            return
        self.hooks = [_module.register_module_forward_pre_hook(self._pre_hook),
                      _module.register_module_forward_hook(self._post_hook, always_call=True)]

    def _maybe_stop(self):
        """Remove the global hooks once nothing is searched for and no first call is open.

        Called from places where torch does not iterate the hook dicts live (never from the
        always-called hook, which torch runs while iterating them after an exception)."""
        if self.hooks and (not self.pending or not self.on or self.user_autocast) \
                and not self.open:
            hooks, self.hooks = self.hooks, []
            for handle in hooks:
                handle.remove()

    def tidy(self):
        try:
            with self.lock:
                self._maybe_stop()
        except Exception as exc:
            self.fail(exc, "hook removal")

    def remove_hooks(self):
        hooks, self.hooks = self.hooks, []
        for handle in hooks:
            handle.remove()

    def _pre_hook(self, module, args):
        if getattr(self.tls, "depth", 0):
            return None
        try:
            if not self.on or self.user_autocast or not self.pending:
                with self.lock:
                    self._maybe_stop()
                return None
            if torch.compiler.is_compiling() or type(module) in self.classes.values():
                return None
            params = list(module.parameters())
            if not params:
                return None
            with self.lock:
                wanted = set().union(*self.pending.values())
            if not any(id(p) in wanted for p in params):
                return None
            ctx = self._adopt(module, params)
            if ctx is not None:
                stack = getattr(self.tls, "stack", None)
                if stack is None:
                    stack = self.tls.stack = []
                stack.append((module, ctx))
                self.open += 1
            with self.lock:
                self._maybe_stop()
        except Exception as exc:
            self.fail(exc, "forward pre-hook")
        return None

    def _post_hook(self, module, args, result):
        stack = getattr(self.tls, "stack", None)
        if stack and stack[-1][0] is module:
            _, ctx = stack.pop()
            self.open -= 1
            self.exit(ctx)
        return None

    def adopt(self, module):
        """Wrap a model given outright (``prepare(model, amp=...)``)."""
        try:
            params = list(module.parameters())
            if params and not isinstance(module, tuple(self.classes.values())):
                self._adopt(module, params, enter=False)
        except Exception as exc:
            self.fail(exc, "prepare(model)")

    def _adopt(self, module, params, enter=True):
        """Wrap the model just found; return the autocast context entered for this call."""
        ids = {id(p) for p in params}
        with self.lock:
            self.covered |= ids
            for key in list(self.pending):
                self.pending[key] -= ids
                if not self.pending[key]:
                    del self.pending[key]
        device_type = params[0].device.type
        dtype, note = self.choose(device_type)
        name = type(module).__name__
        if dtype is None:
            self.fix.skipped(CODE, f"{name}: {note}")
            return None
        if isinstance(module, torch.jit.ScriptModule) or "forward" in vars(module):
            self.fix.skipped(CODE, f"{name}: forward is scripted or set on the instance; "
                                   "autocast not added")
            return None
        if not self.fix.fixing:
            self.fix.observed(CODE, f"{name} trains in float32; RUNTIME_GUARD_AMP={self.want} "
                                    f"would run its forward under {_NAMES[dtype]} autocast")
            return None
        self.wrap(module, device_type, dtype)
        self.fix.fixed(CODE, f"forward of {name} runs under {_NAMES[dtype]} autocast"
                             f"{note} (RUNTIME_GUARD_AMP={self.want})")
        return self.enter(device_type, dtype) if enter else None

    # -- the wrapped forward -------------------------------------------------------------------
    def wrap(self, module, device_type, dtype):
        base = type(module)
        key = (base, device_type, dtype)
        sub = self.classes.get(key)
        if sub is None:
            sub = self.classes[key] = self._subclass(base, device_type, dtype)
        object.__setattr__(module, "__class__", sub)
        self.wrapped[module] = base

    def _subclass(self, base, device_type, dtype):
        step = self

        def forward(self, *args, **kwargs):
            if step.hooks and not step.open:
                step.tidy()
            ctx = step.enter(device_type, dtype) if step.on and not step.user_autocast else None
            if ctx is None:
                return super(sub, self).forward(*args, **kwargs)
            try:
                return super(sub, self).forward(*args, **kwargs)
            finally:
                step.exit(ctx)

        def __reduce_ex__(self, protocol):
            # Copies and pickles get the script's own class, not the guard's.
            reduced = super(sub, self).__reduce_ex__(protocol)
            # (pickle insists that __newobj__'s class is the object's; copyreg._reconstructor,
            # the stdlib's protocol-0/1 path, makes object.__new__(base) without that check.)
            if isinstance(reduced, tuple) and len(reduced) > 1 and reduced[0] is \
                    copyreg.__newobj__ and tuple(reduced[1]) == (sub,):
                reduced = (copyreg._reconstructor, (base, object, None)) + tuple(reduced[2:])
            return reduced

        namespace = {"forward": forward, "__reduce_ex__": __reduce_ex__,
                     "__module__": base.__module__, "__qualname__": base.__qualname__,
                     "__doc__": base.__doc__}
        sub = type(base.__name__, (base,), namespace)
        return sub

    def enter(self, device_type, dtype):
        """Enter the guard's autocast region (None when autocast is already on, or on failure)."""
        try:
            if torch.is_autocast_enabled(device_type):
                return None  # the script's (or an outer wrapped module's) autocast: no nesting
            ctx = torch.autocast(device_type, dtype=dtype)
            ctx._runtime_guard = True
            ctx.__enter__()
            self.tls.depth = getattr(self.tls, "depth", 0) + 1
            return ctx
        except Exception as exc:
            self.fail(exc, "autocast entry")
            return None

    def exit(self, ctx):
        try:
            self.tls.depth -= 1
            ctx.__exit__(None, None, None)
        except Exception as exc:
            self.fail(exc, "autocast exit")

    def saw_autocast(self, ctx):
        """The patched ``autocast.__enter__`` reports every region entered."""
        if getattr(ctx, "_runtime_guard", False) or getattr(self.tls, "depth", 0):
            return  # the guard's own region, or the script fine-tuning inside it
        if not self.user_autocast:
            self.user_autocast = True
            self.fix.skipped(CODE, "the script uses autocast itself: RUNTIME_GUARD_AMP "
                                   "autocast left to it", user_location(1))

    def restore(self):
        self.on = False
        self.remove_hooks()
        for module, base in list(self.wrapped.items()):
            try:
                object.__setattr__(module, "__class__", base)
            except Exception:
                pass
        self.wrapped = weakref.WeakKeyDictionary()
