"""TPL603 at run time: autograd anomaly detection observed during optimizer steps, never turned off."""
import torch
from torch import nn

from _rg_helpers import events


def _steps(model, opt, n):
    for _ in range(n):
        model(torch.randn(4, 8)).pow(2).mean().backward()
        opt.step()
        opt.zero_grad()


def test_anomaly_mode_during_steps_is_reported(guard):
    guard.install(mode="fix", device="cpu")
    model = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    try:
        _steps(model, opt, 3)
        from torch.autograd import set_detect_anomaly  # any spelling goes through the guard
        set_detect_anomaly(True)
        _steps(model, opt, 5)
        assert torch.is_anomaly_enabled()  # left on: the guard never switches it off
    finally:
        torch.autograd.set_detect_anomaly(False)
    (event,) = events(guard, "TPL603")
    assert event.action == "observed"
    assert event.count == 5
    assert event.location.endswith("test_rg_anomaly_mode.py:22")
    assert "on during 5 of 8 optimizer steps" in event.detail
    import re
    times = re.search(r"median step time ([0-9.e+-]+) ms with it, ([0-9.e+-]+) ms without "
                      r"\(([0-9.e+-]+)x\)", event.detail)
    with_it, without, ratio = (float(v) for v in times.groups())
    assert 0.001 < without < 1000 and 0.001 < with_it < 1000  # milliseconds, not seconds
    assert abs(with_it / without - ratio) <= 0.1 * ratio


def test_detect_anomaly_context_and_no_event_without_it(guard):
    guard.install(mode="warn", device="cpu")
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    _steps(model, opt, 2)
    assert events(guard, "TPL603") == []
    with torch.autograd.detect_anomaly():
        _steps(model, opt, 2)
    assert not torch.is_anomaly_enabled()
    (event,) = events(guard, "TPL603")
    assert event.count == 2 and event.location.endswith("test_rg_anomaly_mode.py:46")
    assert "(no steps without it to compare)" not in event.detail  # two steps ran without it first


def test_uninstall_restores_torch(guard):
    original = torch.set_anomaly_enabled
    guard.install(mode="fix", device="cpu")
    assert torch.set_anomaly_enabled is not original
    guard.uninstall()
    assert torch.set_anomaly_enabled is original
    from torch.optim.optimizer import _global_optimizer_post_hooks
    assert not _global_optimizer_post_hooks  # the step hook went too


def test_anomaly_mode_on_before_install(guard):
    torch.autograd.set_detect_anomaly(True)
    try:
        guard.install(mode="fix", device="cpu")
        model = nn.Linear(8, 1)
        _steps(model, torch.optim.SGD(model.parameters(), lr=0.01), 2)
    finally:
        torch.autograd.set_detect_anomaly(False)
    (event,) = events(guard, "TPL603")
    assert event.location == "<turned on before runtime_guard was installed>" and event.count == 2
    assert "on during 2 of 2 optimizer steps" in event.detail


def test_step_times_are_printed_in_milliseconds_exactly(guard, monkeypatch):
    """A clock that ticks 2.004 ms per step without anomaly mode and 5.004 ms with it: the
    report gives both medians in ms and their ratio, to the three digits it prints (the times
    sit 0.02 % below a rounding step, so a factor off by 0.1 % shows: 2.006 prints as 2.01)."""
    import itertools

    from runtime_guard.fixes import anomaly_mode

    ticks = iter(itertools.accumulate([0.0] + [0.002004] * 3 + [0.005004] * 3))

    class Clock:
        @staticmethod
        def perf_counter():
            return next(ticks)

    monkeypatch.setattr(anomaly_mode, "time", Clock)
    guard.install(mode="fix", device="cpu")
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    try:
        _steps(model, opt, 4)  # three intervals of 2.004 ms (the first step has none)
        torch.autograd.set_detect_anomaly(True)
        _steps(model, opt, 3)  # three of 5.004 ms
    finally:
        torch.autograd.set_detect_anomaly(False)
    (event,) = events(guard, "TPL603")
    assert event.detail == (
        "autograd anomaly detection was on during 3 of 7 optimizer steps: it records a stack "
        "trace for every autograd node and checks every gradient for NaN; median step time 5 ms "
        "with it, 2 ms without (2.5x); left on (the guard never turns it off): remove it or put "
        "it behind a debug flag")


def test_a_disabled_fix_stops_counting_steps(guard):
    """After an internal failure the fix is off: the steps after it are neither counted nor
    reported, though its step hook stays registered until uninstall."""
    guard.install(mode="fix", device="cpu")
    fix = guard.GUARD.fix("anomaly_mode")
    fix.fail(RuntimeError("boom"), "test")
    model = nn.Linear(8, 1)
    torch.autograd.set_detect_anomaly(True)
    try:
        _steps(model, torch.optim.SGD(model.parameters(), lr=0.01), 3)
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert [e.action for e in events(guard, "TPL603")] == ["left alone"]
