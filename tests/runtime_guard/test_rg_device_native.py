"""TPL101 device-native creation, with the meta device standing in for an accelerator.

The speed it buys is measured by benchmarks/runtime_gpu.py (creation row), never asserted here:
these tests check the mechanism (the call site learned, the tensor then created on the target).
"""
import torch

from _rg_helpers import events, run_python


def _spy_factory(monkeypatch, name):
    """Record the device= each call of torch.<name> receives, below the guard's wrapper."""
    seen = []
    original = getattr(torch, name)

    def spy(*args, **kwargs):
        seen.append(kwargs.get("device"))
        return original(*args, **kwargs)

    monkeypatch.setattr(torch, name, spy)
    return seen


def _build(n):
    for _ in range(n):
        x = torch.zeros(64, 64).to("meta")
    return x


def test_site_learned_then_created_on_the_target(guard, monkeypatch):
    seen = _spy_factory(monkeypatch, "zeros")
    guard.install(mode="fix", device="meta")
    x = _build(5)
    assert x.device.type == "meta"
    # The first call ran on the CPU and taught the site; the next four were built on meta.
    assert seen == [None] + [torch.device("meta")] * 4
    (ev,) = events(guard, "TPL101", "fixed")
    assert ev.location.endswith("test_rg_device_native.py:%d" % (_build.__code__.co_firstlineno + 2))
    assert ev.count == 4


def test_random_factories_only_suggested_by_default(guard, monkeypatch):
    seen = _spy_factory(monkeypatch, "randn")
    guard.install(mode="fix", device="meta")
    torch.manual_seed(0)
    for _ in range(3):
        torch.randn(4).to("meta")
    after = torch.rand(1)
    assert seen == [None] * 3  # never redirected: the CPU generator advanced as without the guard
    torch.manual_seed(0)
    for _ in range(3):
        torch.randn(4)
    assert torch.equal(after, torch.rand(1))
    (ev,) = events(guard, "TPL101", "suggested")
    assert "RUNTIME_GUARD_UNSAFE=random_on_device" in ev.apply and ev.count == 2


def test_random_factories_on_the_device_on_opt_in(guard, monkeypatch):
    seen = _spy_factory(monkeypatch, "randn")
    guard.install(mode="fix", device="meta", unsafe="random_on_device")
    for _ in range(3):
        y = torch.randn(4).to("meta")
    assert y.device.type == "meta" and seen == [None] + [torch.device("meta")] * 2
    assert events(guard, "TPL101", "fixed")[0].count == 2


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
    guard.install(mode="fix", device="meta", unsafe="random_on_device")
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
        assert events(guard, "TPL101", "left alone")
    finally:
        torch.use_deterministic_algorithms(False)


def test_a_random_site_kept_for_determinism_says_so_even_if_first_kept_as_unsafe(guard):
    # Not opted in: kept on the CPU as unsafe; then the script requests determinism, the stronger
    # reason (an opt-in would not move it either), which the report must give.
    def noise():
        return torch.randn(4).to("meta")  # one site for both phases

    guard.install(mode="fix", device="meta")
    for _ in range(3):
        noise()
    torch.use_deterministic_algorithms(True)
    try:
        for _ in range(2):
            noise()
    finally:
        torch.use_deterministic_algorithms(False)
    (event,) = events(guard, "TPL101")
    assert event.action == "left alone" and event.count == 4, event
    assert event.detail == ("random factory kept on the CPU: determinism was requested and "
                            "another device draws other numbers")


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


def test_only_a_move_that_changes_nothing_but_the_device_is_a_target():
    from runtime_guard.fixes.device_native import _target

    cuda = torch.device("cuda", 0)
    assert _target(("cuda:0",), {}) == cuda
    assert _target(("cuda:0", True), {}) == cuda  # non_blocking
    assert _target((), {"device": "cuda:0", "non_blocking": True}) == cuda
    assert _target((0,), {}) == cuda
    assert _target(("cuda:0", torch.float16), {}) is None  # a dtype change too
    assert _target(("cuda:0",), {"dtype": torch.float16}) is None
    assert _target(("cpu",), {}) is None
    assert _target(("cuda:0", True, False), {}) is None


def _zeros():
    return torch.zeros(8)  # the factory's line: its result leaves this function


def test_a_factory_moved_on_another_line_is_not_learned(guard):
    """The result is moved in the caller, not where it was made: the factory's line serves other
    callers too (here one that keeps the tensor on the CPU), so it is never redirected."""
    guard.install(mode="fix", device="meta")
    for _ in range(3):
        moved = _zeros().to("meta")
    kept = _zeros()
    assert moved.device.type == "meta" and kept.device.type == "cpu"
    assert not events(guard, "TPL101")


def test_a_disabled_fix_builds_as_the_script_says(guard, monkeypatch):
    seen = _spy_factory(monkeypatch, "zeros")
    guard.install(mode="fix", device="meta")
    _build(2)  # the site learned, then built on meta once
    guard.GUARD.fix("device_native").fail(RuntimeError("boom"), "test")
    x = _build(3)
    assert x.device.type == "meta"  # moved by the script's own .to
    assert seen == [None, torch.device("meta"), None, None, None]
