"""TPL306 at run time: the opt-in TF32 setting (RUNTIME_GUARD_TF32=1)."""
import torch

from _rg_helpers import events, run_python


def _reset():
    torch.set_float32_matmul_precision("highest")


def test_not_requested_does_nothing(guard):
    _reset()
    guard.install(mode="fix", device="cuda")
    assert torch.get_float32_matmul_precision() == "highest"
    assert events(guard, "TPL306") == []


def test_cpu_is_left_alone_with_the_reason(guard, monkeypatch):
    _reset()
    monkeypatch.setenv("RUNTIME_GUARD_TF32", "1")
    guard.install(mode="fix", device="cpu")
    assert torch.get_float32_matmul_precision() == "highest"
    (event,) = events(guard, "TPL306")
    assert event.action == "left alone"
    assert "left alone" in event.detail and "'cpu'" in event.detail


def _fake_gpu(monkeypatch, capability):
    monkeypatch.setenv("RUNTIME_GUARD_TF32", "1")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index=None: capability)


def test_old_gpu_is_left_alone(guard, monkeypatch):
    _reset()
    _fake_gpu(monkeypatch, (7, 0))
    guard.install(mode="fix", device="cuda")
    assert torch.get_float32_matmul_precision() == "highest"
    (event,) = events(guard, "TPL306")
    assert event.action == "left alone" and "compute capability 7.0" in event.detail


def test_ampere_gets_tf32_and_uninstall_restores(guard, monkeypatch):
    _reset()
    _fake_gpu(monkeypatch, (8, 0))
    try:
        guard.install(mode="fix", device="cuda")
        assert torch.get_float32_matmul_precision() == "high"
        (event,) = events(guard, "TPL306")
        assert event.action == "fixed" and "set_float32_matmul_precision" in event.detail
        guard.uninstall()
        assert torch.get_float32_matmul_precision() == "highest"
    finally:
        _reset()


def test_warn_mode_only_suggests(guard, monkeypatch):
    _reset()
    _fake_gpu(monkeypatch, (9, 0))
    guard.install(mode="warn", device="cuda")
    assert torch.get_float32_matmul_precision() == "highest"
    assert [e.action for e in events(guard, "TPL306")] == ["observed"]


def test_the_scripts_own_setting_wins_and_leaves_a_consistent_state():
    # A fresh interpreter: TF32 flags are process-global, and mixing torch's legacy and new TF32
    # APIs makes reading them raise. With the guard's "high" still set, the script's
    # ``fp32_precision = "ieee"`` would leave exactly that state; the guard steps back first.
    proc = run_python("""
        import torch
        torch.cuda.is_available = lambda: True
        torch.cuda.get_device_capability = lambda index=None: (8, 6)
        import runtime_guard
        runtime_guard.install(mode="fix", device="cuda")
        assert torch.get_float32_matmul_precision() == "high"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        print("allow_tf32", torch.backends.cuda.matmul.allow_tf32)
        print("precision", torch.get_float32_matmul_precision())
        for e in runtime_guard.report():
            if e.code == "TPL306":
                print("event", e.action, e.location.rsplit(":", 1)[-1])
        runtime_guard.uninstall()
        print("after", torch.get_float32_matmul_precision())
    """, RUNTIME_GUARD="off", RUNTIME_GUARD_TF32="1")
    out = proc.stdout.splitlines()
    assert "allow_tf32 False" in out and "precision highest" in out and "after highest" in out
    assert "event fixed 6" in out and "event left alone 8" in out


def test_rocm_gpu_is_left_alone(guard, monkeypatch):
    _reset()
    _fake_gpu(monkeypatch, (9, 4))  # an MI300's capability: new enough by the number alone
    monkeypatch.setattr(torch.version, "hip", "6.2.0", raising=False)
    guard.install(mode="fix", device="cuda")
    assert torch.get_float32_matmul_precision() == "highest"
    (event,) = events(guard, "TPL306")
    assert (event.action, event.detail) == (
        "left alone", "RUNTIME_GUARD_TF32=1: left alone: ROCm GPUs have no TF32 mode")
