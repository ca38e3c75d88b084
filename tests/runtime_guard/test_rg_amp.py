"""TPL301 automatic loss scaling for float16 autocast steps without a GradScaler.

CPU float16 autocast with a ~1e-8 loss: without scaling every gradient underflows to exactly zero,
so a test that sees the right gradients cannot pass by accident. The references are hand-written:
the same steps in float32 (true gradients) and with ``torch.amp.GradScaler("cpu")``.
"""
import warnings

import pytest
import torch
from torch import nn

from _rg_helpers import backward_and_step, events

TINY = 1e-8


def _model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 1))


def _x(seed=1, n=8):
    return torch.randn(n, 16, generator=torch.Generator().manual_seed(seed))


def _fp32_grads(model, losses):
    """True gradients: the same losses in float32, summed as autograd accumulates them."""
    model.zero_grad()
    for fn in losses:
        fn(model).backward()
    return [p.grad.clone() for p in model.parameters()]


def _close(got, ref, rtol=2e-2):
    """Each tensor within 2% of the reference (relative error of the whole tensor: float16
    activations round the smallest elements of a float32 reference more than 2% each)."""
    for g, r in zip(got, ref):
        assert torch.count_nonzero(r) > 0
        assert (g - r).norm() <= rtol * r.norm(), (g, r)


def test_tiny_loss_underflows_without_guard_and_not_with_it(guard):
    model, x = _model(), _x()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean() * TINY
    loss.backward()
    assert all(torch.count_nonzero(p.grad) == 0 for p in model.parameters())  # the pitfall
    guard.install(mode="fix", device="cpu")
    model = _model()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean() * TINY
    loss.backward()
    # .grad holds TRUE gradients right after backward (not 65536x), for code that reads them.
    _close([p.grad for p in model.parameters()],
           _fp32_grads(_model(), [lambda m: m(x).mean() * TINY]))
    assert events(guard, "TPL301", "fixed")


def test_two_losses_with_retain_graph_both_unscaled(guard):
    guard.install(mode="fix", device="cpu")
    model, x = _model(), _x()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(x).float()
        loss_a = out.mean() * TINY
        loss_b = (out ** 2).mean() * TINY
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    _close([p.grad for p in model.parameters()],
           _fp32_grads(_model(), [lambda m: m(x).mean() * TINY,
                                  lambda m: (m(x) ** 2).mean() * TINY]))


def test_gradient_accumulation_inside_one_autocast_region(guard):
    guard.install(mode="fix", device="cpu")
    model = _model()
    xs = [_x(seed) for seed in (1, 2, 3)]
    with torch.autocast("cpu", dtype=torch.float16):
        for x in xs:
            (model(x).float().mean() * TINY / 3).backward()
    _close([p.grad for p in model.parameters()],
           _fp32_grads(_model(), [lambda m, x=x: m(x).mean() * TINY / 3 for x in xs]))


def test_existing_grad_and_hand_clipping_see_true_values(guard):
    guard.install(mode="fix", device="cpu")
    model, x = _model(), _x()
    for p in model.parameters():  # gradients left from an earlier fp32 backward
        p.grad = torch.full_like(p, 1e-9)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean() * TINY
    loss.backward()
    ref = [g + 1e-9 for g in _fp32_grads(_model(), [lambda m: m(x).mean() * TINY])]
    _close([p.grad for p in model.parameters()], ref)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # a no-op at true scale
    assert norm < 1e-6
    _close([p.grad for p in model.parameters()], ref)


def _gan_step(scaler=None):
    """A GAN discriminator step with two losses and one generator step, DCGAN-style."""
    torch.manual_seed(0)
    disc = nn.Sequential(nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 1))
    gen = nn.Linear(4, 16)
    opt_d = torch.optim.SGD(disc.parameters(), lr=1e6)
    opt_g = torch.optim.SGD(gen.parameters(), lr=1e6)
    real, noise = _x(1), torch.randn(8, 4, generator=torch.Generator().manual_seed(2))
    scale = scaler.scale if scaler is not None else (lambda t: t)
    with torch.autocast("cpu", dtype=torch.float16):
        err_real = disc(real).float().mean() * TINY
    scale(err_real).backward()
    with torch.autocast("cpu", dtype=torch.float16):
        fake = gen(noise)
        err_fake = -disc(fake.detach()).float().mean() * (TINY / 2)
    scale(err_fake).backward()
    d_grads = [p.grad.clone() for p in disc.parameters()]
    (scaler.step if scaler is not None else lambda o: o.step())(opt_d)
    if scaler is not None:
        scaler.update()
    gen.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        err_g = disc(fake).float().mean() * TINY
    scale(err_g).backward()
    (scaler.step if scaler is not None else lambda o: o.step())(opt_g)
    if scaler is not None:
        scaler.update()
    return d_grads, [p.detach().clone() for p in list(disc.parameters()) + list(gen.parameters())]


def test_gan_two_loss_discriminator_step_matches_grad_scaler(guard):
    ref_grads, ref_params = _gan_step(torch.amp.GradScaler("cpu"))
    guard.install(mode="fix", device="cpu")
    got_grads, got_params = _gan_step()
    # The scaler's gradients are still scaled when its step reads them: compare unscaled.
    _close(got_grads, [r / 65536.0 for r in ref_grads])
    _close(got_params, ref_params)
    torch.manual_seed(0)  # the untrained models, built as _gan_step builds them
    untrained = [p.detach().clone() for m in (nn.Sequential(nn.Linear(16, 8), nn.Tanh(),
                                                            nn.Linear(8, 1)), nn.Linear(4, 16))
                 for p in m.parameters()]
    assert len(untrained) == len(got_params)
    # The comparison is between trained models: every tensor of both moved.
    assert all(not torch.equal(a, b) for a, b in zip(got_params, untrained))


def test_same_update_as_a_handwritten_grad_scaler(guard):
    x = _x()

    def train(scaler=None, steps=3):
        model = _model()
        opt = torch.optim.SGD(model.parameters(), lr=1e5, momentum=0.9)
        for _ in range(steps):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = model(x).float().mean() * TINY
            opt.zero_grad()
            backward_and_step(loss, opt, scaler)
        return [p.detach().clone() for p in model.parameters()]

    ref = train(torch.amp.GradScaler("cpu"))
    guard.install(mode="fix", device="cpu")
    _close(train(), ref)


def test_overflow_skips_the_step_backs_off_and_keeps_the_scheduler_quiet(guard):
    guard.install(mode="fix", device="cpu")
    model, x = _model(), _x()
    before = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "lr_scheduler.step() before optimizer.step()" would raise
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(x).float().mean() * 1e30  # overflows at any scale
        loss.backward()
        opt.step()
        sched.step()
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), before))  # update skipped
    assert all(p.grad is not None for p in model.parameters())  # gradients handed back
    assert opt.param_groups[0]["lr"] == 0.05  # the schedule moved on as with GradScaler
    fix = guard.GUARD.fix("amp")
    assert fix.state.scale == 2.0 ** 15
    assert any("skipped" in e.detail for e in events(guard, "TPL301", "fixed"))
    # The next clean step updates normally at the backed-off scale.
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean()
    loss.backward()
    opt.step()
    assert not all(torch.equal(a, b) for a, b in zip(model.parameters(), before))


def test_fp32_backward_after_the_step_is_not_scaled(guard):
    guard.install(mode="fix", device="cpu")
    model, x = _model(), _x()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean()
    loss.backward()
    opt.step()
    fix = guard.GUARD.fix("amp")
    count = events(guard, "TPL301", "fixed")[0].count
    opt.zero_grad()
    model(x).mean().backward()  # no autocast since the step: an ordinary fp32 backward
    assert events(guard, "TPL301", "fixed")[0].count == count
    assert fix.state.current is None


def test_bfloat16_and_own_grad_scaler_left_alone(guard):
    guard.install(mode="fix", device="cpu")
    model, x = _model(), _x()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(x).float().mean().backward()
    assert not events(guard, "TPL301")
    torch.amp.GradScaler("cpu")  # the script owns scaling from here on
    model = _model()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean() * TINY
    loss.backward()
    assert all(torch.count_nonzero(p.grad) == 0 for p in model.parameters())
    assert not events(guard, "TPL301")


def test_warn_mode_suggests_without_scaling(guard):
    guard.install(mode="warn", device="cpu")
    model, x = _model(), _x()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean() * TINY
    loss.backward()
    assert all(torch.count_nonzero(p.grad) == 0 for p in model.parameters())
    (ev,) = events(guard, "TPL301")
    assert ev.action == "suggested" and "RUNTIME_GUARD=fix" in ev.apply


def test_float32_leaves_get_no_hook_half_leaves_one_until_uninstall(guard):
    """float32 leaves are unscaled in one batch after the backward (no Python per gradient inside
    it); float16 leaves get a tensor hook, which uninstall removes."""
    guard.install(mode="fix", device="cpu")
    model, x = _model(), _x()
    half = nn.Linear(16, 1).half()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean() * TINY + half(x.half()).float().mean() * TINY
    loss.backward()
    amp = guard.GUARD.fix("amp")
    assert len(amp.tracked) == 4 and len(amp.hooked) == 2
    assert all(not p._backward_hooks for p in model.parameters())
    assert all(len(p._backward_hooks) == 1 for p in half.parameters())
    guard.uninstall()
    assert amp.tracked == {} and amp.hooked == {}
    for p in list(model.parameters()) + list(half.parameters()):
        assert not p._backward_hooks


def test_backward_that_raises_leaves_the_gradients_as_they_were(guard):
    """The gradients held before a scaled backward are multiplied by the scale for it and divided
    back after it, also when it raises (a script that catches the error goes on with them)."""
    guard.install(mode="fix", device="cpu")
    model, x = _model(), _x()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().mean()
    loss.backward()
    before = [p.grad.clone() for p in model.parameters()]
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()  # the graph was freed by the first one
    for p, g in zip(model.parameters(), before):
        assert torch.equal(p.grad, g)


def test_parameter_first_used_after_the_graph_walks_stopped(guard):
    """Walks stop once the leaves are known; a branch first used later is still trained right."""
    guard.install(mode="fix", device="cpu")
    torch.manual_seed(0)
    trunk, late = nn.Linear(16, 8), nn.Linear(8, 1)
    opt = torch.optim.SGD(list(trunk.parameters()) + list(late.parameters()), lr=0.0)
    x = _x()
    for _ in range(5):  # late never used: the walks find nothing new and stop
        with torch.autocast("cpu", dtype=torch.float16):
            loss = trunk(x).float().mean() * TINY
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert guard.GUARD.fix("amp").state.quiet >= 3
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = late(torch.tanh(trunk(x))).float().mean() * TINY
    loss.backward()
    opt.step()  # the step sees the late branch's gradients unscaled
    ref_trunk, ref_late = nn.Linear(16, 8), nn.Linear(8, 1)
    ref_trunk.load_state_dict(trunk.state_dict())
    ref_late.load_state_dict(late.state_dict())
    (ref_late(torch.tanh(ref_trunk(x))).mean() * TINY).backward()
    _close([p.grad for p in late.parameters()], [p.grad for p in ref_late.parameters()])


def test_optimizer_fused_into_the_backward_steps_on_true_gradients(guard):
    """An optimizer step inside the backward (``register_post_accumulate_grad_hook``, the pattern of
    PyTorch's "fuse the optimizer step into backward" tutorial) reads ``.grad`` while the backward
    runs: those leaves are unscaled before accumulation, so each step sees the true gradient."""

    def train(guarded):
        torch.manual_seed(0)
        model, x = _model(), _x()
        optimizers = {p: torch.optim.SGD([p], lr=1e4) for p in model.parameters()}
        seen = []

        def step_now(p):
            seen.append(p.grad.detach().clone())
            optimizers[p].step()
            optimizers[p].zero_grad()

        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step_now)
        if guarded:
            guard.install(mode="fix", device="cpu")
        try:
            for _ in range(2):
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = model(x).float().mean() * TINY
                loss.backward()
        finally:
            if guarded:
                guard.uninstall()
        return seen, [p.detach().clone() for p in model.parameters()]

    seen_plain, _ = train(False)
    seen_guard, params_guard = train(True)
    assert len(seen_guard) == 8
    # Without scaling the tiny loss's float16 gradients underflow to zero in places; with it they are
    # the true ones, never 65536 times larger.
    for g in seen_guard:
        assert torch.isfinite(g).all() and g.abs().max() < 1e-7, g
    assert sum(int(torch.count_nonzero(g)) for g in seen_guard) > \
        sum(int(torch.count_nonzero(g)) for g in seen_plain)
    for p in params_guard:
        assert torch.isfinite(p).all() and p.abs().max() < 10
