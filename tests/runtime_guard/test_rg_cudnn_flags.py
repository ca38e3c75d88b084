"""TPL401: benchmark and determinism reconciled, in either order and through any alias."""
import torch
import torch.backends.cudnn
from torch.backends import cudnn as aliased

from _rg_helpers import events


def _reset():
    torch.use_deterministic_algorithms(False)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = False


def test_deterministic_then_benchmark(guard):
    _reset()
    guard.install(mode="fix", device="cpu")
    try:
        aliased.deterministic = True
        aliased.benchmark = True
        assert torch.backends.cudnn.benchmark is False
        ev = events(guard, "TPL401", "fixed")
        assert len(ev) == 1 and ev[0].location.endswith("test_rg_cudnn_flags.py:20")
    finally:
        guard.uninstall()
        _reset()


def test_benchmark_then_use_deterministic_algorithms(guard):
    _reset()
    from torch import use_deterministic_algorithms as uda  # bound before install
    guard.install(mode="fix", device="cpu")
    try:
        torch.backends.cudnn.benchmark = True
        assert torch.backends.cudnn.benchmark is True  # alone: untouched
        uda(True)
        assert torch.backends.cudnn.benchmark is False
        assert torch.are_deterministic_algorithms_enabled()
        assert [e.action for e in events(guard, "TPL401")] == ["fixed"]
    finally:
        guard.uninstall()
        _reset()


def test_flags_already_set_before_install(guard):
    _reset()
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    try:
        guard.install(mode="fix", device="cpu")
        assert torch.backends.cudnn.benchmark is False
        assert events(guard, "TPL401", "fixed")
    finally:
        guard.uninstall()
        _reset()


def test_benchmark_alone_and_warn_mode(guard):
    _reset()
    guard.install(mode="warn", device="cpu")
    try:
        torch.backends.cudnn.benchmark = True
        assert not events(guard)
        torch.backends.cudnn.deterministic = True
        assert torch.backends.cudnn.benchmark is True
        assert [e.action for e in events(guard, "TPL401")] == ["suggested"]
    finally:
        guard.uninstall()
        _reset()
