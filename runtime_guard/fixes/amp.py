"""TPL301/TPL302: loss scaling for float16 autocast steps that have no GradScaler.

float16 has a small range: gradients under ~6e-8 become zero (a ~1e-8 loss trains nothing) and
large ones overflow. GradScaler multiplies the loss by a scale before backward, divides the
gradients back before they are used, skips steps whose gradients overflowed and adapts the scale.
The guard does the same for scripts that run a float16 autocast forward without a GradScaler, in a
way that needs no cooperation from the script's code between ``backward()`` and the step:

- ``torch.autocast.__enter__`` (one class for ``torch.autocast``, ``torch.amp.autocast`` and the
  deprecated ``torch.cuda.amp.autocast``) notes an enabled float16 region with autograd on, on any
  device. bfloat16 has float32's range and needs no scaling: left alone. The note lasts until the
  next optimizer step, so every backward of one iteration is scaled: two losses
  (``loss_a.backward(retain_graph=True); loss_b.backward()``), gradient accumulation inside or
  across regions, a GAN's two-part discriminator loss.
- ``torch.autograd.backward`` (which ``Tensor.backward`` calls) after such a region backpropagates
  ``scale * loss``. The leaves the graph reaches (found by walking ``grad_fn``) are tracked.
  Around the backward, for the tracked float32/float64 leaves: gradients already in ``.grad``
  (accumulation) are multiplied by the scale before it, and every ``.grad`` is divided by it after
  it returns, one fused multiplication per device (a power of two both ways: exact). No Python runs
  per gradient during the backward: a tensor hook per leaf, tried first, ran in autograd's device
  thread and cost a GIL hand-off per gradient (+52 % per step against a hand-written GradScaler on
  a d=512 transformer on an H100, benchmarks/RUNTIME.md). Leaves of other dtypes (a ``.half()``
  model: multiplying an accumulated float16 gradient by 65536 could overflow it) and leaves with
  hooks of the script's own (which read ``.grad`` inside the backward: an optimizer step fused
  into it) keep that hook (``Tensor.register_hook``), which divides the incoming gradient *before*
  autograd accumulates it.
  So ``.grad`` always holds true gradients after every backward, for code that reads them
  (grad-norm logging, clipping by hand, ``p.grad.clamp_``), for accumulation across backward passes
  and scale changes, and for DistributedDataParallel, whose all-reduce (of the scaled sum, linear)
  runs inside the backward, before the division. inf/nan stays inf/nan, and the step's check of
  ``.grad`` finds it. Under CPU/CUDA float16 autocast the parameters' gradients are float32, so the
  division cannot underflow. A backward that is not scaled changes nothing.
- Parameters the walk cannot reach get tracked too: a reentrant ``torch.utils.checkpoint`` segment
  recomputes its forward inside the backward and calls ``torch.autograd.backward`` there (during a
  scaled backward, the ``nn.Parameter`` leaves of that inner graph are tracked, their gradients
  multiplied, before their gradients arrive); after each scaled backward a sweep over the parameters
  of the optimizers seen so far unscales and tracks any that got a gradient untracked (unfrozen with
  ``requires_grad_(True)``, added by ``add_param_group``, first used after the walks stopped). An
  optimizer's first step unscales what it holds the same way, and the report says so.
- A hook before every optimizer step (subscribed to the guard's step hooks at the first float16
  autocast region or GradScaler loss, see ``arm``), for an optimizer whose parameters got scaled
  gradients since its last step, checks its parameters' inf/nan flags and gradients (one fused
  kernel per device, one host sync per step, as GradScaler). On inf/nan its update is skipped: the
  gradients are hidden (``None``) during ``step()`` (optimizers skip parameters without gradients)
  and put back after it; the step itself still runs, so LR schedulers advance as they do with
  GradScaler and do not warn
  "lr_scheduler.step() before optimizer.step()". The scale is updated once per iteration, however
  many optimizers step on one backward (a GAN): halved if any of them found inf/nan, else one
  clean iteration counted; it doubles after 2000 clean iterations, GradScaler's defaults.
- A script that builds its own ``GradScaler`` owns scaling: the guard stands aside for good, and
  only observes misuse (TPL302): an optimizer stepped directly after ``scaler.scale(loss)
  .backward()``, or ``scaler.step`` again without ``scaler.update()`` in between.
Scaling is never switched on by the guard where the script did not ask for float16 autocast,
except for the opt-in TPL305 autocast (``RUNTIME_GUARD_AMP``, see ``amp_step.py``), whose float16
regions get the same scaling. Known limit: a script that updates parameters by hand (no
``torch.optim`` step) gets true gradients but no overflow skipping or scale back-off.
"""

from __future__ import annotations

import threading
import weakref

import torch
from torch.amp.autocast_mode import autocast as _autocast

from torchperf_lint.catalog import RUNTIME_AMP

from .amp_step import AmpStep
from ..events import user_location
from .base import Fix

SCALER = "TPL301"
MISUSE = "TPL302"

INIT_SCALE = 2.0 ** 16
BACKOFF = 0.5
GROWTH = 2.0
GROWTH_INTERVAL = 2000
WALK_EVERY = 50


class _Backward:
    """The scale of the backward in progress, as tensors on each device the hooks meet."""

    def __init__(self, scale, flags):
        self.scale = scale
        self.flags = flags  # id(leaf) -> float32 tensor on its device, 1.0 once it held inf/nan
        self._inv = {}

    def inv(self, device):
        t = self._inv.get(device)
        if t is None:
            t = self._inv[device] = torch.full((1,), 1.0 / self.scale, dtype=torch.float32,
                                               device=device)
        return t

    def flag(self, key, device):
        # One flag per leaf, so that each optimizer skips its step only for its own gradients'
        # inf/nan (GradScaler's found_inf is per optimizer too).
        t = self.flags.get(key)
        if t is None or t.device != device:
            t = self.flags[key] = torch.zeros(1, dtype=torch.float32, device=device)
        return t


class _Scaling:
    """Loss-scaling state shared by every backward and optimizer step."""

    def __init__(self):
        self.scale = INIT_SCALE
        self.growth = 0
        self.flags = {}  # id(leaf) -> inf/nan flag tensor, reset when an optimizer step reads it
        # The steps that follow one scaled backward share one scale update, as GradScaler's one
        # update() per iteration: None until the first of them; then {"scale": the scale they
        # were scaled with, "inf": an optimizer among them found inf/nan}.
        self.window = None
        self.optimizers = weakref.WeakSet()  # optimizers stepped since install (see sweep)
        self.touched = set()  # id()s of leaves that received scaled gradients since their step
        self.current = None  # _Backward while a scaled backward runs (hooks read it)
        self.hidden = {}  # id(optimizer) -> [(param, grad)] hidden during a skipped step
        self.backwards = 0  # scaled backward passes so far
        self.quiet = 0  # graph walks in a row that found no new leaf


class AmpFix(Fix):
    name = RUNTIME_AMP
    codes = (SCALER, MISUSE)

    def _install(self):
        self.state = _Scaling()
        self.tls = threading.local()  # fp16 autocast seen in this thread since the last step
        self.user_scaler = False
        # id(leaf) -> weak reference, for the float32/float64 leaves whose gradients are unscaled
        # in one batch around each scaled backward. Not a WeakKeyDictionary: its lookups compare
        # tensors with ==, which is elementwise.
        self.tracked = {}
        # id(leaf) -> (weak reference to the leaf, hook handle), for the leaves of other dtypes,
        # whose incoming gradients a tensor hook divides.
        self.hooked = {}
        self.step = None
        # A float16 autocast region with autograd on was entered (in any thread): until then no
        # backward can be scaled, and the backward wrapper passes straight through.
        self.fp16_seen = False
        # The optimizer step hooks are subscribed (see arm()).
        self.armed = False
        self._arm_lock = threading.Lock()
        fix = self
        if self.config.amp_dtype:
            reason = AmpStep(self).check_target()
            if reason:
                self.left_alone("TPL305", reason)
            else:
                self.step = AmpStep(self)
        original_enter = _autocast.__enter__
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
                        fix.fp16_seen = True
                        if not fix.armed:
                            fix.arm()
                except Exception as exc:
                    fix.fail(exc, "autocast")
            return result

        original_backward = torch.autograd.backward  # Tensor.backward calls it at call time

        def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
                     grad_variables=None, inputs=None):
            if not fix.fp16_seen:
                # No float16 autocast region yet: nothing is scaled, no scaled backward runs
                # (the checks below would all fail; this is every backward of a float32 script).
                return original_backward(tensors, grad_tensors, retain_graph, create_graph,
                                         grad_variables, inputs)
            state = fix.state
            if state.current is not None:
                # A backward started while a scaled one runs: a reentrant checkpoint recomputing
                # its segment (torch.utils.checkpoint, use_reentrant=True) and backpropagating
                # the scaled gradient through it. The segment's parameters are not in the outer
                # graph: hook them before their gradients arrive. Nothing is scaled again.
                if fix.active:
                    try:
                        fix.hook_nested(tensors)
                    except Exception as exc:
                        fix.fail(exc, "reentrant backward")
            elif fix.active and getattr(fix.tls, "fp16", False) and not fix.user_scaler and \
                    isinstance(tensors, torch.Tensor) and grad_variables is None:
                gradient = grad_tensors
                if isinstance(gradient, (tuple, list)) and len(gradient) == 1:
                    gradient = gradient[0]
                scaled = None
                try:
                    if gradient is None or isinstance(gradient, torch.Tensor):
                        scaled = fix.scaled_gradient(tensors, gradient, inputs)
                except Exception as exc:
                    fix.fail(exc, "backward")
                if scaled is not None:
                    gradient, run = scaled
                    try:
                        fix.multiply_tracked(run, state.scale)
                    except Exception as exc:
                        fix.fail(exc, "backward")
                    state.current = run
                    try:
                        result = original_backward(tensors, gradient, retain_graph, create_graph,
                                                   None, inputs)
                    finally:
                        state.current = None
                        # Also when the backward raised (a caught out-of-memory): .grad must not
                        # stay multiplied.
                        try:
                            fix.multiply_tracked(run, 1.0 / run.scale, touch=True)
                        except Exception as exc:
                            fix.fail(exc, "backward")
                    try:
                        fix.sweep(run)
                    except Exception as exc:
                        fix.fail(exc, "backward")
                    return result
            return original_backward(tensors, grad_tensors, retain_graph, create_graph,
                                     grad_variables, inputs)

        def scaler_init(scaler, *args, **kwargs):
            # The script owns loss scaling from now on (even a disabled scaler is its choice).
            fix.user_scaler = True
            return original_scaler_init(scaler, *args, **kwargs)

        self.patch(_autocast, "__enter__", __enter__)
        self.patch(torch.autograd, "backward", backward)
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
        self.on_undo(self._remove_hooks)
        if self.step is not None:
            self.arm()  # TPL305's autocast acts at every step from the start

    def arm(self):
        """Subscribe the optimizer step hooks (``_pre_step``, ``_post_step``), once: at the first
        float16 autocast region, the first loss an enabled GradScaler scales, or at install with
        the TPL305 autocast. Before any of these both hooks would return at once (see the top of
        ``_pre_step``), so a float32 script never calls them."""
        with self._arm_lock:
            if self.armed:
                return
            self.step_hook("before", self._pre_step)
            self.step_hook("after", self._post_step)
            self.armed = True

    def _remove_hooks(self):
        for ref, handle in list(self.hooked.values()):
            if ref() is not None:
                handle.remove()
        self.hooked = {}
        self.tracked = {}

    def _is_tracked(self, leaf):
        entry = self.tracked.get(id(leaf))
        if entry is not None:
            return entry() is leaf
        entry = self.hooked.get(id(leaf))
        return entry is not None and entry[0]() is leaf

    @staticmethod
    def _needs_hook(leaf):
        """A leaf whose gradient must be true while the backward runs, or whose dtype cannot take
        the multiplication: a float16/bfloat16 leaf; a leaf with hooks of the script's own, which
        read its gradient inside the backward (an optimizer step fused into the backward with
        ``register_post_accumulate_grad_hook``, a clamp in ``register_hook``)."""
        return leaf.dtype not in (torch.float32, torch.float64) or bool(leaf._backward_hooks) \
            or bool(getattr(leaf, "_post_accumulate_grad_hooks", None))

    def _track(self, leaf):
        """Unscale this leaf's gradients from now on: in the batch around each scaled backward,
        or by a tensor hook where ``_needs_hook``. True if it was not tracked yet."""
        if self._is_tracked(leaf):
            return False
        if self._needs_hook(leaf):
            self._hook(leaf)
            return True
        key = id(leaf)
        tracked = self.tracked

        def forget(_ref, key=key):
            if tracked.get(key) is _ref:
                del tracked[key]

        tracked[key] = weakref.ref(leaf, forget)
        return True

    def multiply_tracked(self, run, factor, touch=False):
        """Multiply the gradients of the tracked leaves by ``factor`` (the scale before a scaled
        backward, its inverse after it): one fused multiplication per device and dtype. A
        gradient with a graph (``create_graph=True``) or a sparse one is replaced by a product
        instead (in place would break its graph or its layout)."""
        batches = {}
        state = self.state
        for key, ref in list(self.tracked.items()):
            leaf = ref()
            if leaf is None:
                continue
            if not touch and self._needs_hook(leaf):
                # Hooks of the script's own registered since the leaf was tracked: from this
                # backward on, its gradient is divided before it accumulates.
                del self.tracked[key]
                self._hook(leaf)
                continue
            grad = leaf.grad
            if grad is None:
                continue
            if touch:
                state.touched.add(key)
            if grad.is_sparse or grad.requires_grad or not grad.is_floating_point():
                leaf.grad = grad * factor
            else:
                batches.setdefault((grad.device, grad.dtype), []).append(grad)
        if batches:
            with torch.no_grad():
                for grads in batches.values():
                    torch._foreach_mul_(grads, factor)

    def _hook(self, leaf):
        key = id(leaf)
        entry = self.hooked.get(key)
        if entry is not None and entry[0]() is leaf:
            return
        hooked = self.hooked

        def forget(_ref, key=key):
            if hooked.get(key, (None,))[0] is _ref:
                del hooked[key]

        self.hooked[key] = (weakref.ref(leaf, forget), leaf.register_hook(self._make_hook(leaf)))

    # -- backward ------------------------------------------------------------------------------
    def scaled_gradient(self, tensor, gradient, inputs):
        """(scaled gradient, _Backward) for a backward to scale, or None to leave it alone."""
        if not tensor.requires_grad or not tensor.is_floating_point():
            return None
        if not self.fixing:
            self.suggested(SCALER, "float16 autocast step without GradScaler: small gradients "
                                   "underflow to zero; use torch.amp.GradScaler")
            return None
        if gradient is None:
            if tensor.numel() != 1:
                return None  # backward() itself raises for a non-scalar without gradient
        state = self.state
        state.window = None  # a new iteration: its steps share the next scale update
        # Walking the graph costs Python time per node (~30 us per layer): once three walks in a
        # row found no new leaf, walk only every WALK_EVERY-th scaled backward. A leaf first
        # reached in between is unscaled by the sweep after the backward (see sweep) if an
        # optimizer trains it.
        state.backwards += 1
        if inputs is not None or state.quiet < 3 or state.backwards % WALK_EVERY == 0:
            leaves = self._leaves(tensor, inputs)
            if not leaves:
                return None
            new = 0
            for leaf in leaves:
                new += self._track(leaf)
            state.quiet = 0 if new else state.quiet + 1
        if gradient is None:
            gradient = torch.full_like(tensor, state.scale, memory_format=torch.preserve_format)
        else:
            gradient = gradient * state.scale
        self.fixed(SCALER, "float16 autocast step without GradScaler: loss scaled for backward "
                           "(65536 at first, adapted like GradScaler), gradients divided back "
                           "as the backward returns; steps with inf/nan skipped")
        return gradient, _Backward(state.scale, state.flags)

    def hook_nested(self, tensors):
        """Track the parameters a reentrant backward inside the scaled one reaches, before their
        gradients arrive: a gradient they already hold is multiplied now, as the tracked leaves'
        were before the outer backward. Only ``nn.Parameter`` leaves: the segment's detached
        inputs are leaves too, and their gradients flow on into the outer graph, where they must
        stay scaled."""
        run = self.state.current
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        for root in roots:
            if isinstance(root, torch.Tensor):
                for leaf in self._leaves(root, None):
                    if isinstance(leaf, torch.nn.Parameter) and self._track(leaf) and \
                            id(leaf) in self.tracked and leaf.grad is not None:
                        grad = leaf.grad
                        if grad.is_sparse or grad.requires_grad:
                            leaf.grad = grad * run.scale
                        else:
                            with torch.no_grad():
                                grad.mul_(run.scale)

    def sweep(self, run):
        """After a scaled backward: a trained parameter that got a gradient untracked
        (reached where the graph walk was skipped: unfrozen with ``requires_grad_(True)``, added
        with ``add_param_group``, first used by a branch taken late) holds it scaled: divide it
        now, so that code reading ``.grad`` before the step sees true values, and track it."""
        for optimizer in list(self.state.optimizers):
            self._unscale_untracked(optimizer, run)

    def _unscale_untracked(self, optimizer, run):
        """Unscale and track the parameters of ``optimizer`` holding a gradient while untracked;
        their number."""
        state = self.state
        count = 0
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None or not p.requires_grad:
                    continue
                if self._is_tracked(p):
                    continue
                grad = p.grad
                key = id(p)
                with torch.no_grad():
                    if grad.is_sparse or not grad.is_floating_point():
                        p.grad = grad * (1.0 / run.scale)
                        values = p.grad.coalesce().values() if p.grad.is_sparse else p.grad
                        run.flag(key, grad.device).logical_or_(~torch.isfinite(values).all())
                    else:
                        torch._amp_foreach_non_finite_check_and_unscale_(
                            [grad], run.flag(key, grad.device), run.inv(grad.device))
                state.touched.add(key)
                self._track(p)
                state.quiet = 0
                count += 1
        return count

    @staticmethod
    def _leaves(tensor, inputs):
        """The leaf tensors requiring grad that this backward reaches (AccumulateGrad nodes)."""
        if inputs is not None:
            items = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
            return [t for t in items if isinstance(t, torch.Tensor) and t.is_leaf]
        root = tensor.grad_fn
        if root is None:
            return [tensor] if tensor.is_leaf else []
        leaves, seen, todo = [], {root}, [root]
        while todo:
            node = todo.pop()
            variable = getattr(node, "variable", None)
            if variable is not None:
                leaves.append(variable)
                continue
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    todo.append(child)
        return leaves

    def _make_hook(self, leaf):
        state = self.state
        key = id(leaf)

        def unscale(grad):
            run = state.current
            if run is None:
                return None  # a backward the guard did not scale: the gradient is true already
            state.touched.add(key)
            if grad.is_sparse or grad.requires_grad or not grad.is_floating_point():
                out = grad * (1.0 / run.scale)
                with torch.no_grad():
                    values = out.coalesce().values() if out.is_sparse else out
                    run.flag(key, grad.device).logical_or_(~torch.isfinite(values).all())
                return out
            # One kernel per gradient, into a new tensor (the incoming one may be shared with other
            # uses), and no inf/nan flag of its own: inf/nan divided by a power of two stays inf/nan
            # in .grad, where the optimizer step's one fused check over all its gradients finds it
            # (_found_inf), as GradScaler.unscale_ checks them at the step. Measured on an H100
            # (benchmarks/RUNTIME.md): a clone, a flag and a fused unscale per gradient made
            # the guard's float16 step 28-46 % slower than a hand-written GradScaler's.
            return grad * (1.0 / run.scale)

        return unscale

    # -- optimizer steps -----------------------------------------------------------------------
    def _pre_step(self, optimizer, args, kwargs):
        # The common case, first and cheap (it runs at every step of every script): no float16
        # backward was ever scaled, no GradScaler scaled a loss, no TPL305 autocast. Also what a
        # compiled optimizer step sees, where the bookkeeping below would break the graph.
        if not self.state.backwards and not self.scaler_used and self.step is None and \
                not getattr(self.tls, "fp16", False):
            return None
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
        try:
            self.tls.fp16 = False  # the iteration that asked for scaling ends with this step
            state = self.state
            if optimizer not in state.optimizers:
                state.optimizers.add(optimizer)
                if state.backwards:
                    self._repair(optimizer)
            if not state.touched:
                return None
            params = [p for group in optimizer.param_groups for p in group["params"]]
            mine = [p for p in params if id(p) in state.touched]
            if not mine:
                return None
            state.touched.difference_update(id(p) for p in mine)
            # torch passes (optimizer, *step args): a closure is the first step argument.
            if len(args) > 1 or kwargs.get("closure") is not None:
                return None  # a closure runs its own backward inside step(): not judged here
            window = state.window
            if window is None:
                window = state.window = {"scale": state.scale, "inf": False}
                first = True
            else:
                first = False
            if self._found_inf(params, mine):
                state.hidden[id(optimizer)] = [(p, p.grad) for p in params if p.grad is not None]
                for p in params:
                    p.grad = None
                self.fixed(SCALER, f"inf/nan gradients at loss scale {window['scale']:g}: "
                                   "optimizer update skipped (as GradScaler does), scale halved")
                if not window["inf"]:
                    # Once per iteration, from the scale its backward used (GradScaler.update()).
                    window["inf"] = True
                    state.scale = window["scale"] * BACKOFF
                    state.growth = 0
            elif first:
                state.growth += 1
                if state.growth >= GROWTH_INTERVAL:
                    state.scale *= GROWTH
                    state.growth = 0
        except Exception as exc:
            self.fail(exc, "optimizer step")
        return None

    def _repair(self, optimizer):
        """An optimizer's first step after scaled backward passes, before the guard knew it (the
        sweep after each backward covers known optimizers): gradients no hook saw are still
        scaled here. They are unscaled for the step; code that read them between backward and
        this step saw them scaled, which the report says."""
        state = self.state
        scale = state.window["scale"] if state.window is not None else state.scale
        count = self._unscale_untracked(optimizer, _Backward(scale, state.flags))
        if count:
            self.fixed(SCALER, f"{count} gradient tensor(s) reached outside the walked graph were "
                               "unscaled at the optimizer step, not right after backward: code "
                               "that read them in between saw them scaled")

    def _found_inf(self, params, mine):
        """Did a scaled gradient of this optimizer's parameters hold inf/nan? One host sync."""
        state = self.state
        flags = [state.flags.pop(id(p)) for p in mine if id(p) in state.flags]
        # The gradients themselves too: after DDP's all-reduce another rank's inf is here.
        by_device = {}
        for p in params:
            g = p.grad
            if g is not None and not g.is_sparse and g.is_floating_point():
                by_device.setdefault((g.device, g.dtype), []).append(g)
        found = []
        for (device, _), grads in by_device.items():
            flag = torch.zeros(1, dtype=torch.float32, device=device)
            one = torch.ones(1, dtype=torch.float32, device=device)
            # Multiplying by one changes nothing; the kernel only checks (GradScaler's unscale_).
            torch._amp_foreach_non_finite_check_and_unscale_(grads, flag, one)
            found.append(flag)
        for p in params:
            g = p.grad
            if g is not None and g.is_sparse and \
                    not bool(torch.isfinite(g.coalesce().values()).all()):
                return True
        found += flags
        if not found:
            return False
        per_device = {}
        for flag in found:
            per_device.setdefault(flag.device, []).append(flag)
        totals = [torch.cat(group).sum().to("cpu") for group in per_device.values()]
        return any(bool(total.item() > 0) for total in totals)

    def _post_step(self, optimizer, args, kwargs):
        if not self.state.hidden:
            return
        hidden = self.state.hidden.pop(id(optimizer), None) if self.active else None
        if hidden:
            for p, grad in hidden:
                if p.grad is None:
                    p.grad = grad  # the script sees its gradients as it would with GradScaler

    # -- TPL302: the script's own GradScaler misused (observed only) --------------------------
    def _install_misuse(self):
        fix = self
        self.scalers = weakref.WeakKeyDictionary()  # scaler -> {"scaled": bool, "stepped": loc}
        self.scaler_used = False  # some enabled GradScaler scaled a loss (read at every step)
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
                        fix.scaler_used = True
                        if not fix.armed:
                            fix.arm()
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
