"""TPL101: tensors made on the CPU by a torch factory, then moved straight to the device.

``torch.randn(n, n).to("cuda")`` fills the tensor on the CPU, copies it over the bus and drops the
CPU copy. The guard learns such call sites and from then on passes ``device=`` to the factory:

- each torch factory called by the script without ``device=`` notes the id of its result and its
  call site (code object and line);
- if that very tensor is moved by ``.to(device)`` / ``.cuda()`` on the same line, with nothing
  but the device (and ``non_blocking``), and nothing else holds it (a reference-count check,
  calibrated at install), the site is learned; later calls there build on that device directly
  and the ``.to`` becomes a no-op. A tensor the script keeps (``e = torch.ones(2); f = e.to(d)``,
  or a walrus on the same line) is never learned: moving it would change ``e``.
- random factories draw other numbers on another device and leave the CPU generator where it was
  (a shuffling sampler's later order changes): they are only *suggested* by default and redirected
  on opt-in (``RUNTIME_GUARD_UNSAFE=random_on_device``), and even then left alone where the script
  asked for determinism (``torch.use_deterministic_algorithms(True)`` or ``cudnn.deterministic``).
  Deterministic factories give the same values on any device: they are fixed by default.
Cost on code that creates nothing: none; per factory call from the script: one frame lookup.
"""

from __future__ import annotations

import sys

import torch

from torchperf_lint.catalog import RUNTIME_DEVICE_NATIVE

from ..config import UNSAFE_RANDOM, unsafe_line
from ..events import FIXED, LEFT_ALONE, SUGGESTED, _is_internal
from .base import APPLY_FIX_MODE, Fix

CODE = "TPL101"
DETERMINISTIC = ("tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace",
                 "eye")
RANDOM = ("rand", "randn", "randint", "randperm")


def _target(args, kwargs):
    """The device of a ``.to(...)`` that changes nothing but the device, else None."""
    extra = set(kwargs) - {"device", "non_blocking"}
    if extra:
        return None
    if "device" in kwargs:
        if args:
            return None
        dev = kwargs["device"]
    elif len(args) == 1 or (len(args) == 2 and isinstance(args[1], bool)):
        dev = args[0]
    else:
        return None
    if isinstance(dev, (str, int)) or isinstance(dev, torch.device):
        try:
            dev = torch.device(dev) if not isinstance(dev, int) else torch.device("cuda", dev)
        except Exception:
            return None
        return dev if dev.type != "cpu" else None
    return None


class DeviceNativeFix(Fix):
    name = RUNTIME_DEVICE_NATIVE
    codes = (CODE,)

    def _install(self):
        self.learned = {}  # (code, line) -> device
        self.hits = {}  # (code, line) -> calls built on the device
        self.fresh = None  # (id of the last factory result from the script, its site)
        self.random_kept = {}  # (code, line) -> [why a random site stays on the CPU, calls]
        self.max_refs = 0
        fix = self
        getframe = sys._getframe
        is_compiling = torch.compiler.is_compiling
        # file name -> whether it is torch's, the guard's or a library's: decided once per file,
        # not by prefix tests at every call (keyed by name, not code object: bounded by the
        # files, however many code objects a notebook or exec() makes).
        internal = {}

        def make(name, original, random):
            def factory(*args, **kwargs):
                if not fix.active or "device" in kwargs or is_compiling():
                    return original(*args, **kwargs)
                key = None
                try:
                    frame = getframe(1)
                    code = frame.f_code
                    skip = internal.get(code.co_filename)
                    if skip is None:
                        skip = internal[code.co_filename] = _is_internal(code.co_filename)
                    if not skip:
                        key = (code, frame.f_lineno)
                        device = fix.learned.get(key)
                        if device is not None and fix.fixing:
                            if random and not fix.random_allowed(key):
                                pass
                            else:
                                kwargs["device"] = device
                                fix.hits[key] = fix.hits.get(key, 0) + 1
                except Exception as exc:
                    fix.fail(exc, name)
                result = original(*args, **kwargs)
                if key is not None and "device" not in kwargs:
                    fix.fresh = (id(result), key)
                return result

            return factory

        for name in DETERMINISTIC + RANDOM:
            self.patch(torch, name, make(name, getattr(torch, name), name in RANDOM))

        def make_move(name, original):
            def move(tensor, *args, **kwargs):
                fresh = fix.fresh
                if fresh is not None and fresh[0] == id(tensor) and fix.active:
                    fix.fresh = None
                    refs = sys.getrefcount(tensor)
                    try:
                        fix.consider(fresh[1], tensor, name, args, kwargs, refs)
                    except Exception as exc:
                        fix.fail(exc, f"Tensor.{name}")
                return original(tensor, *args, **kwargs)

            return move

        self.patch(torch.Tensor, "to", make_move("to", torch.Tensor.to))
        self.patch(torch.Tensor, "cuda", make_move("cuda", torch.Tensor.cuda))
        self._calibrate()

    def _calibrate(self):
        # The reference count a temporary has inside the move wrapper, measured with the call
        # shape of a script (a factory result moved in the same expression, nothing keeping it).
        probe = []
        saved = self.consider
        self.consider = lambda key, tensor, name, args, kwargs, refs: probe.append(refs)
        try:
            self._fresh_empty().to("meta")
        finally:
            self.consider = saved
            self.fresh = None
        self.max_refs = probe[0] if probe else 2

    def _fresh_empty(self):
        # Like the factory wrapper: the result is a local that is returned.
        result = torch._C._VariableFunctions.empty(0)
        self.fresh = (id(result), None)
        return result

    def determinism(self) -> bool:
        return torch.are_deterministic_algorithms_enabled() or \
            bool(torch.backends.cudnn.deterministic)

    def random_allowed(self, key) -> bool:
        """May a learned random site be built on the device? Records why not."""
        if self.config.allows(UNSAFE_RANDOM) and not self.determinism():
            return True
        why = "determinism" if self.determinism() else "unsafe"
        kept = self.random_kept.get(key)
        if kept is None:
            kept = self.random_kept[key] = [why, 0]
        kept[0] = why if why == "determinism" else kept[0]
        kept[1] += 1
        return False

    @staticmethod
    def _where(key):
        return f"{key[0].co_filename}:{key[1]}"

    def consider(self, key, tensor, name, args, kwargs, refs):
        if key in self.learned:
            return
        frame = sys._getframe(2)
        if (frame.f_code, frame.f_lineno) != key:
            return  # moved on another line: the script had a name for it
        if refs > self.max_refs:
            return  # something else holds the CPU tensor: moving it would change the script
        if tensor.device.type != "cpu":
            return
        device = torch.device("cuda") if name == "cuda" and not args and \
            set(kwargs) <= {"non_blocking"} else (_target(args, kwargs) if name == "to" else None)
        if device is None:
            return
        target = torch.device(self.config.device)
        if device.type != target.type:
            return
        self.learned[key] = device
        self.hits.setdefault(key, 0)

    def finalize(self):
        for key, device in list(self.learned.items()):
            count = self.hits.get(key, 0)
            kept = self.random_kept.get(key)
            where = self._where(key)
            if kept is not None and not count:
                why, calls = kept
                if why == "determinism":
                    self.guard.log.put(CODE, LEFT_ALONE, "random factory kept on the CPU: "
                                       "determinism was requested and another device draws other "
                                       "numbers", self.name, where, calls)
                else:
                    self.guard.log.put(CODE, SUGGESTED, f"random tensor created on the CPU then "
                                       f"moved to {device}: creating it on {device} is faster but "
                                       "draws other numbers and leaves the CPU generator where it "
                                       "was (later CPU draws change)", self.name, where, calls,
                                       unsafe_line(UNSAFE_RANDOM))
                continue
            if self.fixing:
                detail = (f"tensor created on the CPU then moved to {device}: now created on "
                          f"{device} directly ({count} calls); pass device= to the factory")
                self.guard.log.put(CODE, FIXED, detail, self.name, where, max(count, 1))
            else:
                detail = (f"tensor created on the CPU then moved to {device}: pass device= to the "
                          "factory")
                self.guard.log.put(CODE, SUGGESTED, detail, self.name, where, max(count, 1),
                                   APPLY_FIX_MODE)
