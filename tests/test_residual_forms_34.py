"""Forms of the thirty-fourth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

import types

import torch

from torchperf_lint.engine import fix_source

from _diagnostics import CPU_CREATION_TEMPLATE, rule_diagnostics

NOISE = """\
import torch


def get_velocity_noise(graph, noise_std, device):
    velocity_sequence = graph.x[:, 1:3]
    noise = torch.normal({args}).to(device)
    noise[graph.x[:, 0] != 0] = 0
    return noise
"""
NORMAL = CPU_CREATION_TEMPLATE.format(factory="normal")


def test_normal_with_a_size_is_a_cpu_factory_whatever_its_mean_and_std_are_named():
    """meshGraphNets' ``torch.normal(std=noise_std, mean=0.0, size=...)`` (holdout205): torch's one
    overload with a size takes numbers (a 0-dim tensor is read with ``.item()``) and draws on the
    default device, so a ``std`` of unknown kind still makes a host tensor (R179). Unsafe fix: a
    random factory moved to another device draws other numbers."""
    for args in ("std=noise_std, mean=0.0, size=velocity_sequence.shape",
                 "0.0, noise_std, velocity_sequence.shape"):
        assert rule_diagnostics(NOISE.format(args=args), "TPL101") == [
            (6, 12, NORMAL, "unsafe", "create the tensor with device=device")], args


def test_the_fixed_normal_with_a_size_runs_and_draws_on_the_device():
    """The unsafe fix writes ``device=device`` into the call; the fixed function runs (here on the
    CPU, and on the ``meta`` device, which stands for a GPU) and its noise lives there."""
    source = NOISE.format(args="std=noise_std, mean=0.0, size=velocity_sequence.shape")
    fixed, count = fix_source(source, codes=["TPL101"], unsafe=True)
    assert count == 1
    assert "torch.normal(std=noise_std, mean=0.0, size=velocity_sequence.shape, device=device)" in fixed
    assert fix_source(fixed, codes=["TPL101"], unsafe=True) == (fixed, 0)
    namespace: dict = {}
    exec(compile(fixed, "fixed.py", "exec"), namespace)
    graph = types.SimpleNamespace(x=torch.zeros(5, 3))
    noise = namespace["get_velocity_noise"](graph, 0.1, torch.device("cpu"))
    assert noise.shape == (5, 2) and noise.device.type == "cpu"
    meta = namespace["get_velocity_noise"](types.SimpleNamespace(x=torch.zeros(5, 3, device="meta")), 0.1, "meta")
    assert meta.device.type == "meta"


def test_normal_of_tensors_or_of_unknown_values_without_a_size_stays_silent():
    """Without a size, ``torch.normal(mean, std)`` of tensors draws where they are; a name of
    unknown kind may be one (lightning-ir, R-reading of holdout 13)."""
    for args in ("velocity_sequence, noise_std", "mean=velocity_sequence, std=noise_std"):
        assert rule_diagnostics(NOISE.format(args=args), "TPL101") == [], args
