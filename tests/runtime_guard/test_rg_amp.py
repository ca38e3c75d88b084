"""TPL301/TPL303 automatic loss scaling for float16 autocast steps without a GradScaler."""
import warnings

import torch
from torch import nn

from _rg_helpers import events


def _fp16_step(clip=None, loss_factor=1e-8, scheduler=False, bf16=False):
    torch.manual_seed(0)
    model = nn.Linear(16, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1, 0.5) if scheduler else None
    x = torch.randn(8, 16)
    with torch.autocast("cpu", dtype=torch.bfloat16 if bf16 else torch.float16):
        loss = model(x).float().mean() * loss_factor
    loss.backward()
    if clip == "norm":
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1e6)
    elif clip == "value":
        from torch.nn.utils import clip_grad_value_
        clip_grad_value_(model.parameters(), 1e6)
    grad = model.weight.grad.clone()
    opt.step()
    if sched is not None:
        sched.step()
    return model, grad, opt


def _fp32_grad(loss_factor=1e-8):
    torch.manual_seed(0)
    model = nn.Linear(16, 1)
    x = torch.randn(8, 16)
    (model(x).mean() * loss_factor).backward()
    return model.weight.grad


def test_tiny_loss_underflows_without_guard_and_not_with_it(guard):
    _, grad, _ = _fp16_step(clip="norm")
    assert torch.count_nonzero(grad) == 0  # the pitfall: float16 gradients underflow to zero
    guard.install(mode="fix", device="cpu")
    _, grad, _ = _fp16_step(clip="norm")
    ref = _fp32_grad()
    assert torch.count_nonzero(grad) == grad.numel()
    assert torch.allclose(grad, ref, rtol=2e-2, atol=0)
    assert events(guard, "TPL301", "fixed") and events(guard, "TPL303", "fixed")


def test_same_update_as_a_handwritten_grad_scaler(guard):
    guard.install(mode="fix", device="cpu")
    model, _, _ = _fp16_step(clip="value", loss_factor=1e-6)
    guard.uninstall()
    torch.manual_seed(0)
    ref = nn.Linear(16, 1)
    opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(8, 16)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = ref(x).float().mean() * 1e-6
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    assert torch.equal(model.weight, ref.weight) and torch.equal(model.bias, ref.bias)


def test_overflow_skips_the_step_backs_off_and_keeps_the_scheduler_quiet(guard):
    guard.install(mode="fix", device="cpu")
    torch.manual_seed(0)
    before = nn.Linear(16, 1).weight.detach().clone()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "lr_scheduler.step() before optimizer.step()" would raise
        model, _, opt = _fp16_step(loss_factor=1e30, scheduler=True)
    assert torch.equal(model.weight, before)  # inf gradients: update skipped
    assert opt.param_groups[0]["lr"] == 0.05  # the schedule moved on as with GradScaler
    fix = guard.GUARD.fix("amp")
    fix.scaled_gradient(torch.ones((), requires_grad=True), None)  # next step updates the scale
    assert fix.state.scale == 2.0 ** 15
    assert any("skipped" in e.detail for e in events(guard, "TPL301"))


def test_bfloat16_and_own_grad_scaler_left_alone(guard):
    guard.install(mode="fix", device="cpu")
    _, grad, _ = _fp16_step(bf16=True, loss_factor=1.0)
    assert not events(guard, "TPL301")
    torch.amp.GradScaler("cpu")  # the script owns scaling from here on
    _, grad, _ = _fp16_step()
    assert torch.count_nonzero(grad) == 0 and not events(guard, "TPL301")


def test_warn_mode_reports_without_scaling(guard):
    guard.install(mode="warn", device="cpu")
    _, grad, _ = _fp16_step()
    assert torch.count_nonzero(grad) == 0
    assert [e.action for e in events(guard, "TPL301")] == ["observed"]
