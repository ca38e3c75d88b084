"""TPL101 device-native creation, with the meta device standing in for an accelerator."""
import time

import torch

from _rg_helpers import events, run_python


def _build(n):
    for _ in range(n):
        x = torch.randn(512, 512).to("meta")
    return x


def _timed(n=40):
    start = time.perf_counter()
    x = _build(n)
    return time.perf_counter() - start, x


def test_randn_then_to_meta_gets_many_times_faster(guard):
    guard.install(mode="fix", device="meta")
    _build(3)  # learn the site; the first meta randn also warms torch's meta path
    fast, x = _timed()
    assert x.device.type == "meta"
    guard.uninstall()
    slow, x = _timed()
    assert x.device.type == "meta"
    assert slow / fast > 4, (slow, fast)
    ev = events(guard, "TPL101", "fixed")
    assert len(ev) == 1 and ev[0].location.endswith("test_rg_device_native.py:11")
    assert ev[0].count >= 40


def test_tensors_the_script_keeps_are_never_moved(guard):
    guard.install(mode="fix", device="meta")
    for _ in range(3):
        e = torch.ones(2); f = e.to("meta")  # noqa: E702  same line, but e is kept
        (w := torch.zeros(3)).to("meta")  # a walrus keeps it too
    assert e.device.type == "cpu" and w.device.type == "cpu" and f.device.type == "meta"
    for _ in range(3):
        d = torch.arange(4).to(torch.float64)  # dtype only: not a move to the device
        c = torch.arange(4).to("cpu")
    assert d.device.type == "cpu" and c.device.type == "cpu"
    assert not events(guard, "TPL101")


def test_values_unchanged_for_deterministic_factories(guard):
    guard.install(mode="fix", device="meta")
    for _ in range(3):
        t = torch.full((2, 3), 7.0).to("meta")
    assert t.device.type == "meta" and t.shape == (2, 3) and t.dtype == torch.float32


def test_random_factories_left_on_cpu_when_determinism_requested(guard):
    guard.install(mode="fix", device="meta")
    torch.use_deterministic_algorithms(True)
    try:
        torch.manual_seed(0)
        for _ in range(3):
            torch.randn(4).to("meta")
        after = torch.rand(1)  # the CPU generator advanced as without the guard
        torch.manual_seed(0)
        for _ in range(3):
            torch.randn(4)
        assert torch.equal(after, torch.rand(1))
        assert events(guard, "TPL101", "skipped")
    finally:
        torch.use_deterministic_algorithms(False)


def test_env_device_meta_at_import():
    code = """
    import runtime_guard, torch
    for _ in range(5):
        y = torch.zeros(8, 8).to("meta")
    assert y.device.type == "meta"
    (ev,) = [e for e in runtime_guard.report() if e.code == "TPL101"]
    assert ev.count == 4 and ev.location == "<string>:4", ev
    """
    run_python(code, RUNTIME_GUARD_DEVICE="meta")
