"""TPL605: convolution biases cancelled by the BatchNorm that follows, seen as models are built.

``nn.Sequential.__init__`` is wrapped: once a Sequential is built, each ``Conv1d/2d/3d`` with a
bias that is directly followed by a BatchNorm (``BatchNorm1d/2d/3d``, ``SyncBatchNorm``, lazy
ones) is counted, with the parameters its bias costs. BatchNorm subtracts the per-channel mean,
so the bias changes nothing but still costs an add, memory, a gradient and optimizer state. The
guard reports, per source line that builds such a Sequential, how many biases and parameters
``bias=False`` would save; it changes nothing (removing a parameter would break checkpoints and
optimizers built from the model). Convolutions fed to BatchNorm inside a custom ``forward`` are the
linter's to find: the guard only sees construction.

A Sequential counts only once it runs: a script that builds ``nn.Sequential(conv, bn, relu)`` and
uses a slice of it (``features[:1]``, a new Sequential without the BatchNorm) never feeds that
conv to the BatchNorm. While some built Sequential with such a pair has not run yet, a global
forward pre-hook (and an optimizer step hook) watch for it; they go at the first forward after the
first optimizer step (the model has run by then), so they cost nothing afterwards, and nothing at
all in a script without such a Sequential. A Sequential first run after that step is not reported.
"""

from __future__ import annotations

import threading
import weakref

import torch
from torch import nn
from torch.nn.modules import module as _module
from torch.nn.modules.batchnorm import _BatchNorm

from torchperf_lint.catalog import RUNTIME_CONV_BIAS

from ..events import OBSERVED, user_location
from .base import Fix

CODE = "TPL605"
_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)


def cancelled_biases(sequential: nn.Sequential):
    """(conv, batchnorm) pairs of consecutive layers where the batch norm cancels the conv's bias."""
    layers = list(sequential._modules.values())
    return [
        (conv, norm) for conv, norm in zip(layers, layers[1:])
        if isinstance(conv, _CONVS) and conv.bias is not None and isinstance(norm, _BatchNorm)
    ]


class ConvBiasFix(Fix):
    name = RUNTIME_CONV_BIAS
    codes = (CODE,)

    def _install(self):
        self._lock = threading.Lock()
        self.sites = {}  # location -> [Sequentials run, biases cancelled, parameters in them]
        self.pending = weakref.WeakKeyDictionary()  # built, not run yet -> (location, pairs, n)
        self.hook = None
        fix = self
        original_init = nn.Sequential.__init__

        def __init__(sequential, *args, **kwargs):
            original_init(sequential, *args, **kwargs)
            if fix.active:
                try:
                    fix.inspect(sequential)
                except Exception as exc:
                    fix.fail(exc, "nn.Sequential.__init__")

        self.patch(nn.Sequential, "__init__", __init__)
        self.step_hook = None  # with self.hook: watching; inspect() sets self.stepped then
        self.on_undo(self._stop_watching)

    def inspect(self, sequential: nn.Sequential) -> None:
        pairs = cancelled_biases(sequential)
        if not pairs:
            return
        # A lazy conv's bias has no size yet; its out_channels is the bias length.
        parameters = sum(conv.out_channels for conv, _ in pairs)
        location = user_location(2)
        with self._lock:
            self.pending[sequential] = (location, len(pairs), parameters)
            if self.hook is None:
                from torch.optim.optimizer import register_optimizer_step_post_hook

                self.stepped = False
                self.hook = _module.register_module_forward_pre_hook(self._pre_forward)
                self.step_hook = register_optimizer_step_post_hook(self._after_step)

    def _pre_forward(self, module, args):
        if self.stepped:
            # Removed here, not in the step hook: torch iterates the optimizer hooks while it
            # calls them, and this module hook's own dict is copied before its hooks run.
            self._stop_watching()
            return None
        if not isinstance(module, nn.Sequential):
            return None
        if torch.compiler.is_compiling():
            return None
        with self._lock:
            seen = self.pending.pop(module, None)
            if seen is None:
                return None
            location, biases, parameters = seen
            site = self.sites.setdefault(location, [0, 0, 0])
            site[0] += 1
            site[1] += biases
            site[2] += parameters
        return None

    def _after_step(self, optimizer, args, kwargs) -> None:
        # Sequentials not run by the first optimizer step are not part of the trained model.
        self.stepped = True

    def _stop_watching(self) -> None:
        with self._lock:
            hooks = (self.hook, self.step_hook)
            self.hook = self.step_hook = None
            self.pending = weakref.WeakKeyDictionary()
        for hook in hooks:
            if hook is not None:
                hook.remove()

    def finalize(self) -> None:
        with self._lock:
            sites = {location: list(site) for location, site in self.sites.items()}
        for location, (built, biases, parameters) in sites.items():
            times = f" (built and run {built} times)" if built > 1 else ""
            detail = (f"nn.Sequential{times}: {biases} convolution bias{'es' if biases > 1 else ''} "
                      f"directly followed by BatchNorm, which cancels {'them' if biases > 1 else 'it'}; "
                      f"bias=False on those convolutions saves {parameters} parameters (and their "
                      "gradients and optimizer state) and an add per output element")
            self.guard.log.put(CODE, OBSERVED, detail, self.name, location, biases)
