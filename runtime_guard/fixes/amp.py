"""TPL301/TPL302/TPL303: loss scaling for float16 autocast steps that have no GradScaler.

float16 has a small range: gradients under ~6e-8 become zero (a ~1e-8 loss trains nothing) and
large ones overflow. GradScaler multiplies the loss by a scale before backward, divides the
gradients back before they are used, skips steps whose gradients overflowed and adapts the scale.
The guard does the same for scripts that run a float16 autocast forward without a GradScaler:

- ``torch.autocast.__enter__`` (one class for ``torch.autocast``, ``torch.amp.autocast`` and the
  deprecated ``torch.cuda.amp.autocast``) notes an enabled float16 region, on any device.
  bfloat16 has float32's range and needs no scaling: left alone.
- ``Tensor.backward`` after such a region backpropagates ``scale * loss`` instead of ``loss``.
- ``clip_grad_norm_`` (through ``clip_grad._get_total_norm``, which every alias calls) and
  ``clip_grad_value_`` see unscaled gradients (TPL303: clipping scaled gradients clips nothing).
- a global optimizer step pre-hook unscales the optimizer's gradients and, if any is inf/nan,
  skips the update by clearing them (optimizers skip parameters without gradients) — the step
  itself still runs, so LR schedulers see a step and do not warn "lr_scheduler.step() before
  optimizer.step()"; the scale halves on overflow and doubles after 2000 clean steps.
- A script that builds its own ``GradScaler`` owns scaling: the guard stands aside for good, and
  only observes misuse (TPL302): an optimizer stepped directly after ``scaler.scale(loss)
  .backward()``, or ``scaler.step`` again without ``scaler.update()`` in between.
Scaling is never switched on by the guard where the script did not ask for float16 autocast,
except for the opt-in TPL305 autocast (``RUNTIME_GUARD_AMP``, see ``amp_step.py``), whose float16
regions get the same scaling.
"""

from __future__ import annotations

import threading
import weakref

import torch
from torch.amp.autocast_mode import autocast as _autocast
from torch.nn.utils import clip_grad as _clip_grad

from torchperf_lint.catalog import RUNTIME_AMP

from .amp_step import AmpStep
from ..events import user_location
from .base import Fix

SCALER = "TPL301"
MISUSE = "TPL302"
CLIP = "TPL303"

INIT_SCALE = 2.0 ** 16
GROWTH_INTERVAL = 2000


class _Step:
    """Scaling state between a scaled backward and the next one."""

    def __init__(self):
        self.scale = INIT_SCALE
        self.growth = 0
        self.pending = False  # a scaled backward happened; its gradients are not all unscaled
        self.unscaled = set()  # id()s of gradient tensors already divided by the scale
        self.found_inf = False
        self.stepped = False  # an optimizer stepped since the last scaled backward


class AmpFix(Fix):
    name = RUNTIME_AMP
    codes = (SCALER, MISUSE, CLIP)

    def _install(self):
        self.state = _Step()
        self.tls = threading.local()  # fp16 autocast seen in this thread since the last backward
        self.user_scaler = False
        self.step = None
        fix = self
        if self.config.amp_dtype:
            reason = AmpStep(self).check_target()
            if reason:
                self.skipped("TPL305", reason)
            else:
                self.step = AmpStep(self)
        original_enter = _autocast.__enter__
        original_backward = torch.Tensor.backward
        original_total_norm = _clip_grad._get_total_norm
        original_clip_value = _clip_grad.clip_grad_value_
        original_scaler_init = torch.amp.GradScaler.__init__

        def __enter__(ctx):
            result = original_enter(ctx)
            if fix.step is not None and fix.active:
                fix.step.saw_autocast(ctx)
            if fix.active and not fix.user_scaler:
                try:
                    if ctx._enabled and ctx.fast_dtype == torch.float16 and \
                            torch.is_grad_enabled():
                        fix.tls.fp16 = True
                except Exception as exc:
                    fix.fail(exc, "autocast")
            return result

        def backward(tensor, gradient=None, retain_graph=None, create_graph=False, inputs=None):
            if fix.active and getattr(fix.tls, "fp16", False) and not fix.user_scaler:
                try:
                    gradient = fix.scaled_gradient(tensor, gradient)
                except Exception as exc:
                    fix.fail(exc, "backward")
            return original_backward(tensor, gradient, retain_graph, create_graph, inputs)

        def _get_total_norm(tensors, *args, **kwargs):
            if fix.active and fix.state.pending:
                try:
                    tensors = fix.unscale_for_clip(tensors, "clip_grad_norm_")
                except Exception as exc:
                    fix.fail(exc, "clip_grad_norm_")
            return original_total_norm(tensors, *args, **kwargs)

        def clip_grad_value_(parameters, *args, **kwargs):
            if fix.active and fix.state.pending:
                try:
                    parameters = [parameters] if isinstance(parameters, torch.Tensor) \
                        else list(parameters)
                    fix.unscale_for_clip([p.grad for p in parameters if p.grad is not None],
                                         "clip_grad_value_")
                except Exception as exc:
                    fix.fail(exc, "clip_grad_value_")
            return original_clip_value(parameters, *args, **kwargs)

        def scaler_init(scaler, *args, **kwargs):
            # The script owns loss scaling from now on (even a disabled scaler is its choice).
            fix.user_scaler = True
            return original_scaler_init(scaler, *args, **kwargs)

        self.patch(_autocast, "__enter__", __enter__)
        self.patch(torch.Tensor, "backward", backward)
        self.patch(_clip_grad, "_get_total_norm", _get_total_norm)
        for module in (_clip_grad, torch.nn.utils):
            self.patch(module, "clip_grad_value_", clip_grad_value_)
        self.patch(torch.amp.GradScaler, "__init__", scaler_init)
        self._install_misuse()
        if self.step is not None:
            original_opt_init = torch.optim.Optimizer.__init__

            def optimizer_init(optimizer, *args, **kwargs):
                result = original_opt_init(optimizer, *args, **kwargs)
                if fix.active and fix.step.on:
                    try:
                        fix.step.note_optimizer(optimizer)
                    except Exception as exc:
                        fix.step.fail(exc, "optimizer construction")
                return result

            self.patch(torch.optim.Optimizer, "__init__", optimizer_init)
            self.on_undo(self.step.restore)
        from torch.optim.optimizer import register_optimizer_step_pre_hook
        handle = register_optimizer_step_pre_hook(self._pre_step)
        self.on_undo(handle.remove)

    # -- backward ------------------------------------------------------------------------------
    def scaled_gradient(self, tensor, gradient):
        self.tls.fp16 = False
        if not tensor.requires_grad or not tensor.is_floating_point():
            return gradient
        state = self.state
        if state.stepped:
            self._update_scale()
        if not self.fixing:
            self.observed(SCALER, "float16 autocast step without GradScaler: small gradients "
                                  "underflow to zero; use torch.amp.GradScaler")
            return gradient
        if gradient is None:
            if tensor.numel() != 1:
                return None  # backward() itself raises for a non-scalar without gradient
            gradient = torch.full_like(tensor, state.scale, memory_format=torch.preserve_format)
        else:
            gradient = gradient * state.scale
        state.pending = True
        self.fixed(SCALER, f"float16 autocast step without GradScaler: loss scaled by "
                           f"{state.scale:g} for backward, gradients unscaled before use")
        return gradient

    def _update_scale(self):
        state = self.state
        if state.found_inf:
            state.scale *= 0.5
            state.growth = 0
        else:
            state.growth += 1
            if state.growth >= GROWTH_INTERVAL:
                state.scale *= 2.0
                state.growth = 0
        state.found_inf = False
        state.stepped = False
        state.unscaled.clear()

    # -- unscaling -----------------------------------------------------------------------------
    def _unscale(self, grads):
        state = self.state
        todo = [g for g in grads if g is not None and id(g) not in state.unscaled]
        if not todo:
            return
        inv = 1.0 / state.scale
        groups = {}
        for g in todo:
            groups.setdefault((g.device, g.dtype), []).append(g)
            state.unscaled.add(id(g))
        for (device, _), group in groups.items():
            found = torch.zeros(1, dtype=torch.float32, device=device)
            inv_t = torch.full((1,), inv, dtype=torch.float32, device=device)
            dense = [g for g in group if not g.is_sparse]
            if dense:
                torch._amp_foreach_non_finite_check_and_unscale_(dense, found, inv_t)
            for g in group:
                if g.is_sparse:
                    g.mul_(inv)
                    if not torch.isfinite(g.coalesce().values()).all():
                        found.fill_(1.0)
            if float(found) > 0:  # one host sync per step, as GradScaler makes
                state.found_inf = True

    def unscale_for_clip(self, grads, what):
        grads = list(grads)
        if self.fixing:
            self._unscale(grads)
            self.fixed(CLIP, f"{what} on scaled gradients: unscaled first (as "
                             "scaler.unscale_(optimizer) would)")
        return grads

    def _pre_step(self, optimizer, args, kwargs):
        if not self.active:
            return None
        if self.step is not None and self.step.on:
            try:
                self.step.on_step(optimizer)
            except Exception as exc:
                self.step.fail(exc, "optimizer step")
        if self.scalers and not getattr(self.tls, "in_scaler_step", False):
            try:
                self._direct_step(optimizer)
            except Exception as exc:
                self.fail(exc, "optimizer step")
        state = self.state
        try:
            if not state.pending:
                return None
            grads = [p.grad for group in optimizer.param_groups for p in group["params"]
                     if p.grad is not None]
            self._unscale(grads)
            state.stepped = True
            if state.found_inf:
                for group in optimizer.param_groups:
                    for p in group["params"]:
                        p.grad = None
                self.fixed(SCALER, f"inf/nan gradients at scale {state.scale:g}: optimizer "
                                   "update skipped, scale halved")
        except Exception as exc:
            self.fail(exc, "optimizer step")
        return None

    # -- TPL302: the script's own GradScaler misused (observed only) --------------------------
    def _install_misuse(self):
        fix = self
        self.scalers = weakref.WeakKeyDictionary()  # scaler -> {"scaled": bool, "stepped": loc}
        self.scaler_opts = weakref.WeakSet()  # optimizers passed to a scaler
        scaler_cls = torch.amp.GradScaler
        original_scale = scaler_cls.scale
        original_step = scaler_cls.step
        original_update = scaler_cls.update
        original_unscale = scaler_cls.unscale_

        def scale(scaler, outputs):
            if fix.active:
                try:
                    if scaler.is_enabled():
                        fix._scaler(scaler)["scaled"] = True
                except Exception as exc:
                    fix.fail(exc, "scaler.scale")
            return original_scale(scaler, outputs)

        def unscale_(scaler, optimizer):
            if fix.active:
                try:
                    fix.scaler_opts.add(optimizer)
                except Exception as exc:
                    fix.fail(exc, "scaler.unscale_")
            return original_unscale(scaler, optimizer)

        def step(scaler, optimizer, *args, **kwargs):
            if not fix.active:
                return original_step(scaler, optimizer, *args, **kwargs)
            try:
                fix._scaler_step(scaler, optimizer)
            except Exception as exc:
                fix.fail(exc, "scaler.step")
            outer = getattr(fix.tls, "in_scaler_step", False)
            fix.tls.in_scaler_step = True
            try:
                return original_step(scaler, optimizer, *args, **kwargs)
            finally:
                fix.tls.in_scaler_step = outer

        def update(scaler, *args, **kwargs):
            if fix.active:
                info = fix.scalers.get(scaler)
                if info is not None:
                    info["stepped"] = None
                    info["scaled"] = False
            return original_update(scaler, *args, **kwargs)

        self.patch(scaler_cls, "scale", scale)
        self.patch(scaler_cls, "unscale_", unscale_)
        self.patch(scaler_cls, "step", step)
        self.patch(scaler_cls, "update", update)

    def _scaler(self, scaler):
        info = self.scalers.get(scaler)
        if info is None:
            info = self.scalers[scaler] = {"scaled": False, "stepped": None, "opts": set()}
        return info

    def _scaler_step(self, scaler, optimizer):
        if not scaler.is_enabled():
            return
        self.scaler_opts.add(optimizer)
        info = self._scaler(scaler)
        here = user_location(1)
        if info["stepped"] is not None and id(optimizer) in info["opts"]:
            self.observed(MISUSE, "scaler.step(optimizer) again without scaler.update(): "
                                  "the scale never adapts (torch raises here); call "
                                  "scaler.update() after each scaler.step()", info["stepped"])
        if info["stepped"] is None:
            info["opts"] = set()
        info["opts"].add(id(optimizer))
        info["stepped"] = here
        info["scaled"] = False

    def _direct_step(self, optimizer):
        if optimizer in self.scaler_opts:
            return
        for scaler, info in list(self.scalers.items()):
            if info["scaled"] and scaler.is_enabled():
                self.observed(MISUSE, "optimizer.step() called directly after "
                                      "scaler.scale(loss).backward(): gradients are still "
                                      "scaled; use scaler.step(optimizer); scaler.update()",
                              user_location(1))
                info["scaled"] = False
                return

    def finalize(self):
        """At report time: scalers that stepped and were never updated."""
        for info in list(getattr(self, "scalers", {}).values()):
            if info["stepped"] is not None and not info.get("reported"):
                info["reported"] = True
                self.observed(MISUSE, "scaler.step(optimizer) without a later scaler.update(): "
                                      "the scale never adapts; call scaler.update() after each "
                                      "scaler.step()", info["stepped"])
