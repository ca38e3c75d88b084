"""TPL305 opt-in autocast (RUNTIME_GUARD_AMP) and the TPL302 GradScaler-misuse observation."""
import copy
import io
import sys

import torch
from torch import nn
from torch.nn.modules import module as _module

from _rg_helpers import events


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 16)
        self.b = nn.Linear(16, 1)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def _train(steps=20, autocast=False):
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.randn(64, 8)
    y = x.sum(1, keepdim=True)
    dtypes, losses = [], []
    for _ in range(steps):
        if autocast:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(x)
        else:
            out = model(x)
        dtypes.append(out.dtype)
        loss = ((out.float() - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, dtypes, losses


def _install(guard, monkeypatch, amp):
    if amp:
        monkeypatch.setenv("RUNTIME_GUARD_AMP", amp)
    guard.install(mode="fix", device="cpu")


def test_bf16_on_cpu_autocasts_the_trained_model(guard, monkeypatch):
    _install(guard, monkeypatch, "bf16")
    model, dtypes, losses = _train()
    assert set(dtypes) == {torch.bfloat16}  # from the very first forward on
    assert losses[-1] < 0.2 * losses[0]
    assert all(p.dtype == torch.float32 for p in model.parameters())
    assert [e.code for e in events(guard, "TPL305", "fixed")] == ["TPL305"]
    assert not _module._global_forward_pre_hooks and not _module._global_forward_hooks
    with torch.no_grad():  # inference is autocast too, without loss scaling
        assert model(torch.randn(2, 8)).dtype == torch.bfloat16
    assert isinstance(model, Net)
    assert type(copy.deepcopy(model)) is Net  # copies (an EMA model) get the script's class
    buf = io.BytesIO()
    torch.save(model, buf)
    buf.seek(0)
    assert type(torch.load(buf, weights_only=False)) is Net


def test_uninstall_restores_exactly(guard, monkeypatch):
    init = torch.optim.Optimizer.__init__
    scaler_methods = {k: vars(torch.amp.GradScaler)[k] for k in ("scale", "step", "update")}
    _install(guard, monkeypatch, "bf16")
    model, dtypes, _ = _train(steps=2)
    assert dtypes[-1] == torch.bfloat16 and torch.optim.Optimizer.__init__ is not init
    guard.uninstall()
    assert type(model) is Net and "forward" not in vars(model)
    assert torch.optim.Optimizer.__init__ is init
    assert all(vars(torch.amp.GradScaler)[k] is v for k, v in scaler_methods.items())
    assert not _module._global_forward_pre_hooks and not _module._global_forward_hooks
    assert model(torch.randn(2, 8)).dtype == torch.float32


def test_fp16_on_cpu_is_skipped_and_reported(guard, monkeypatch):
    _install(guard, monkeypatch, "fp16")
    _, dtypes, _ = _train(steps=2)
    assert set(dtypes) == {torch.float32}
    skipped = events(guard, "TPL305", "left alone")
    assert skipped and "CPU" in skipped[0].detail and not events(guard, "TPL305", "fixed")


def test_float16_regions_get_the_amp_fix_loss_scaling(guard, monkeypatch):
    # The CUDA fp16 path, checked on the CPU: the guard's float16 region is scaled like a
    # script's own (a ~1e-8 loss gets exactly zero float16 gradients without scaling).
    _install(guard, monkeypatch, "bf16")
    step = guard.GUARD.fix("amp").step
    torch.manual_seed(0)
    model = nn.Linear(16, 1)
    step.wrap(model, "cpu", torch.float16)
    x = torch.randn(8, 16)
    out = model(x)
    assert out.dtype == torch.float16
    (out.float().mean() * 1e-8).backward()
    assert torch.count_nonzero(model.weight.grad) == model.weight.numel()
    assert events(guard, "TPL301", "fixed")


def test_script_with_its_own_autocast_is_left_alone(guard, monkeypatch):
    _install(guard, monkeypatch, "bf16")
    model, dtypes, _ = _train(steps=3, autocast=True)
    assert set(dtypes) == {torch.bfloat16}
    assert type(model) is Net  # not wrapped
    assert model(torch.randn(2, 8)).dtype == torch.float32
    assert events(guard, "TPL305", "left alone") and not events(guard, "TPL305", "fixed")


def test_off_by_default(guard):
    init = torch.optim.Optimizer.__init__
    guard.install(mode="fix", device="cpu")
    assert torch.optim.Optimizer.__init__ is init
    _, dtypes, _ = _train(steps=2)
    assert set(dtypes) == {torch.float32} and not events(guard, "TPL305")


def test_prepare_with_amp(guard):
    model = Net()
    guard.prepare(model, None, mode="fix", device="cpu", amp="bf16")
    assert model(torch.randn(2, 8)).dtype == torch.bfloat16
    assert events(guard, "TPL305", "fixed")
    other = Net()
    guard.prepare(other, None, mode="fix", device="cpu", amp="fp16")
    assert other(torch.randn(2, 8)).dtype == torch.float32
    assert events(guard, "TPL305", "left alone")


def test_scaler_misuse_is_observed(guard):
    guard.install(mode="fix", device="cpu")
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(model(torch.randn(2, 4)).sum()).backward()
    line = sys._getframe().f_lineno + 1
    opt.step()  # the pitfall: still-scaled gradients applied directly
    direct = events(guard, "TPL302", "observed")
    assert direct and direct[0].location.endswith(f"test_rg_amp_step.py:{line}")
    guard.GUARD.log.clear()
    opt.zero_grad()
    scaler.scale(model(torch.randn(2, 4)).sum()).backward()
    scaler.step(opt)  # and no scaler.update() afterwards
    assert any("update" in e.detail for e in events(guard, "TPL302", "observed"))


def test_correct_scaler_use_is_quiet(guard):
    guard.install(mode="fix", device="cpu")
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    for _ in range(2):
        opt.zero_grad()
        scaler.scale(model(torch.randn(2, 4)).sum()).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
    assert not events(guard, "TPL302")


def test_warn_mode_observes_and_wraps_nothing(guard, monkeypatch):
    monkeypatch.setenv("RUNTIME_GUARD_AMP", "bf16")
    guard.install(mode="warn", device="cpu")
    model, dtypes, _ = _train(steps=3)
    assert set(dtypes) == {torch.float32} and type(model) is Net
    (event,) = events(guard, "TPL305")
    assert event.action == "observed"
    assert event.detail == ("Net trains in float32; RUNTIME_GUARD_AMP=bf16 would run its forward "
                            "under bfloat16 autocast")
    # The search for the model ended with the first step: no global hook stays behind.
    assert not guard.GUARD.fix("amp").step.hooks
    assert not _module._global_forward_pre_hooks and not _module._global_forward_hooks


def test_two_models_each_found_at_their_first_forward(guard, monkeypatch):
    """A generator and a discriminator with an optimizer each: the second model's first forward
    comes after the guard's region for the first one has closed, and is found as well."""
    _install(guard, monkeypatch, "bf16")
    torch.manual_seed(0)
    gen, disc = nn.Linear(4, 8), Net()
    opt_g = torch.optim.SGD(gen.parameters(), lr=0.01)
    opt_d = torch.optim.SGD(disc.parameters(), lr=0.01)
    dtypes = []
    for _ in range(2):
        fake = gen(torch.randn(16, 4))
        score = disc(fake.detach())
        dtypes.append((fake.dtype, score.dtype))
        score.float().mean().backward()
        opt_d.step()
        gen_score = disc(fake)
        gen_score.float().mean().backward()
        opt_g.step()
    assert dtypes == [(torch.bfloat16, torch.bfloat16)] * 2
    assert sorted(e.detail for e in events(guard, "TPL305", "fixed")) == [
        "forward of Linear runs under bfloat16 autocast on the CPU, at the user's request "
        "(RUNTIME_GUARD_AMP=bf16)",
        "forward of Net runs under bfloat16 autocast on the CPU, at the user's request "
        "(RUNTIME_GUARD_AMP=bf16)"]
    # After the guard's regions, a region the script opens itself is the script's own.
    with torch.autocast("cpu", dtype=torch.bfloat16):
        pass
    (left,) = events(guard, "TPL305", "left alone")
    assert left.detail == "the script uses autocast itself: RUNTIME_GUARD_AMP autocast left to it"
