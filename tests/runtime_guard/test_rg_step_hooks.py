"""The guard's optimizer step hooks (patches.StepHooks): one pair of torch hooks for every fix,
subscribers only while they have work, the step count kept once, and subscribing during a step."""
import torch
from torch import nn
from torch.optim.optimizer import _global_optimizer_post_hooks, _global_optimizer_pre_hooks


def _step(model, opt):
    model(torch.randn(4, 8)).pow(2).mean().backward()
    opt.step()
    opt.zero_grad()


def test_one_pair_of_torch_hooks_and_loss_scaling_subscribed_at_float16(guard):
    guard.install(mode="fix", device="cpu")
    hooks = guard.GUARD.registry.step_hooks
    amp = guard.GUARD.fix("amp")
    anomaly = guard.GUARD.fix("anomaly_mode")
    assert len(_global_optimizer_pre_hooks) == 1 and len(_global_optimizer_post_hooks) == 1
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(3):
        _step(model, opt)
    # A float32 script: nothing to do before a step, only the anomaly-mode timer after it.
    assert hooks.before == () and len(hooks.after) == 1 and not amp.armed
    assert hooks.steps == 3 and guard.GUARD.fix("sync_report").steps == 3
    assert anomaly.steps_off == 3
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(torch.randn(4, 8)).float().pow(2).mean()
    assert amp.armed and amp.fp16_seen
    assert hooks.before == (amp._pre_step,) and hooks.after[1:] == (amp._post_step,)
    loss.backward()
    opt.step()
    assert hooks.steps == 4 and amp.state.backwards == 1  # the backward after it was scaled
    guard.uninstall()
    assert hooks.before == () and hooks.after == ()
    assert not _global_optimizer_pre_hooks and not _global_optimizer_post_hooks
    assert guard.GUARD.fix("sync_report") is None


def test_a_script_s_grad_scaler_subscribes_loss_scaling_for_its_misuse_report(guard):
    guard.install(mode="fix", device="cpu")
    hooks = guard.GUARD.registry.step_hooks
    amp = guard.GUARD.fix("amp")
    scaler = torch.amp.GradScaler("cpu")
    assert not amp.armed  # building a scaler scales nothing yet
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler.scale(model(torch.randn(4, 8)).pow(2).mean()).backward()
    assert amp.armed and hooks.before == (amp._pre_step,)
    opt.step()  # directly, not through the scaler: TPL302
    (event,) = [e for e in guard.report() if e.code == "TPL302"]
    assert event.action == "observed" and "optimizer.step() called directly" in event.detail


def test_subscribing_while_a_step_runs_its_hooks(guard):
    guard.install(mode="fix", device="cpu")
    registry = guard.GUARD.registry
    calls = []

    def second(optimizer, args, kwargs):
        calls.append("second")

    def first(optimizer, args, kwargs):
        calls.append("first")
        if calls == ["first"]:
            registry.step_hook("test", "after", second)  # torch's own dict would raise here

    remove = registry.step_hook("test", "after", first)
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    _step(model, opt)
    _step(model, opt)
    assert calls == ["first", "first", "second"]  # the new one from the next step on
    remove()
    _step(model, opt)
    assert calls == ["first", "first", "second", "second"]
    registry.restore("test")
    _step(model, opt)
    assert calls == ["first", "first", "second", "second"]


def test_a_pre_hook_may_change_the_step_arguments(guard):
    guard.install(mode="fix", device="cpu")
    registry = guard.GUARD.registry
    seen = []

    def swap(optimizer, args, kwargs):
        return args, {"closure": lambda: seen.append("closure") or torch.tensor(0.0)}

    registry.step_hook("test", "before", swap)
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    _step(model, opt)
    assert seen == ["closure"]  # torch ran the step with the arguments the subscriber returned
