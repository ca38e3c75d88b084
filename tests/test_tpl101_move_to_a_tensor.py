"""TPL101 ``.to(<tensor>)``: ``torch.arange(L).to(x)`` moves the host tensor to ``x``'s device (and
casts it to ``x``'s dtype). The lead's reading of rules.md (docs/precision.md, 2026-11-26 prec3):
the cpu-then-device pitfall, reported when value flow knows ``x`` is a tensor, silent when it
cannot tell ``x`` from a device or a dtype. The fix adds ``device=x.device`` and keeps the
``.to(x)``; the fixed code is run here and compared with the original."""

from __future__ import annotations

import ast
import textwrap

import pytest
import torch

from _diagnostics import rule_diagnostics as diagnostics
from torchperf_lint.catalog import SAFE, UNSAFE
from torchperf_lint.engine import fix_source


def _message(target: str, factory: str) -> str:
    return (f"tensor is created on the CPU and then copied to the device of `{target}`; pass "
            f"`device={target}.device` to `torch.{factory}(...)` to create it there (the `.to({target})` "
            "then only casts)")


def test_a_factory_moved_to_a_tensor_the_function_uses_as_one_is_reported():
    source = """
        import torch
        def vandermonde(v, x, L):
            powers = torch.arange(L).to(x)
            return (v * x.unsqueeze(-1) ** powers).sum(-2)
        def power(A, n):
            eye = torch.eye(A.shape[-1]).to(A)
            return eye, torch.zeros(n).to(A, non_blocking=True)
        def annotated(z: torch.Tensor, n):
            return torch.randn(n).to(z), torch.linspace(0, 1, n).to(z)
        def made_here(n, device):
            ref = torch.ones(n, device=device)
            mask = torch.zeros(n)
            mask = mask.to(ref)
            return torch.ones(n).long().to(ref), torch.ones(n).to(ref.detach()), mask
        class Norm:
            def forward(self, input):
                return torch.ones(input.shape[0]).to(input) * self.scale
        """
    assert diagnostics(source, "TPL101") == [
        (4, 13, _message("x", "arange"), SAFE, "create the tensor with device=x.device"),
        (7, 10, _message("A", "eye"), SAFE, "create the tensor with device=A.device"),
        (8, 16, _message("A", "zeros"), SAFE, "create the tensor with device=A.device"),
        (10, 11, _message("z", "randn"), UNSAFE, "create the tensor with device=z.device"),
        (10, 33, _message("z", "linspace"), UNSAFE, "create the tensor with device=z.device"),
        # a name moved in a second statement, ops between factory and move, a call as the target:
        # reported, no fix (the factory cannot take the move's place; ``ref.detach()`` would run twice)
        (13, 11, _message("ref", "zeros"), None, None),
        (15, 11, _message("ref", "ones"), None, None),
        (15, 41, _message("ref.detach()", "ones"), None, None),
        (18, 15, _message("input", "ones"), SAFE, "create the tensor with device=input.device"),
    ]


def test_a_factory_moved_to_what_may_be_a_device_or_a_dtype_is_silent():
    """Silent twins: a name the function never uses as a tensor (a device? a dtype?), a CPU tensor
    (no move), a name bound to a tensor's ``dtype`` or ``device`` that is not named like one, a name
    bound outside the function, and a legacy constructor moved to a tensor (reported with its own
    message, below)."""
    source = """
        import torch
        GLOBAL = torch.ones(3, device="cuda")
        def unknown(x, L):
            return torch.arange(L).to(x)
        def host(n):
            base = torch.zeros(n)
            return torch.ones(n).to(base)
        def rebound(x, n):
            x = x.dtype
            other = x
            return torch.zeros(n).to(x), torch.zeros(n).to(other)
        def outside(n):
            return torch.zeros(n).to(GLOBAL)
        def kept(x, n):
            host = torch.zeros(n)
            moved = host.to(x)
            return host, moved, x.shape
        """
    assert diagnostics(source, "TPL101") == []


def test_a_legacy_constructor_moved_to_a_tensor_gets_its_own_message_and_no_fix():
    source = """
        import torch
        def steps(t, x):
            return torch.FloatTensor([t, t]).to(x), x.shape
        """
    assert diagnostics(source, "TPL101") == [(4, 11, (
        "tensor is created on the CPU by the legacy constructor `torch.FloatTensor(...)` and then copied "
        "to the device; create it there with `torch.tensor(..., dtype=torch.float32, device=...)`"),
        None, None)]


FIXABLE = textwrap.dedent("""\
    import torch
    def make(x, n):
        a = torch.arange(n).to(x)
        b = torch.eye(x.shape[-1]).to(x, non_blocking=True)
        c = torch.tensor([1, 2, 3]).to(x)
        d = torch.full((n,), 7).to(x)
        return a, b, c, d
    class Holder:
        def __init__(self, ref):
            self.ref = ref
        def make(self, n):
            return torch.ones(n).to(self.ref), self.ref.shape
    def held(x, n):
        h = Holder(x)
        return h.make(n)[0]
""")


def _fixed(source: str) -> str:
    result, count = fix_source(source, codes=["TPL101"])
    ast.parse(result)
    assert fix_source(result, codes=["TPL101"]) == (result, 0), "fixing twice changes nothing"
    return result, count


def _run(source: str, name: str):
    namespace = {}
    exec(compile(source, "<fixed>", "exec"), namespace)
    return namespace[name]


def test_the_fix_keeps_the_cast_and_writes_the_device():
    result, count = _fixed(FIXABLE)
    # ``self.ref`` is reached only through value flow, which cannot tell what ``self.ref`` is: silent
    assert count == 4
    assert "torch.arange(n, device=x.device).to(x)" in result
    assert "torch.eye(x.shape[-1], device=x.device).to(x, non_blocking=True)" in result
    assert "torch.tensor([1, 2, 3], device=x.device).to(x)" in result
    assert "torch.full((n,), 7, device=x.device).to(x)" in result
    assert "torch.ones(n).to(self.ref)" in result


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.int32, torch.complex64])
def test_the_fixed_code_gives_the_same_tensors_on_the_cpu(dtype):
    result, _ = _fixed(FIXABLE)
    x = torch.ones(4, 4, dtype=dtype)
    before = _run(FIXABLE, "make")(x, 5)
    after = _run(result, "make")(x, 5)
    for old, new in zip(before, after):
        assert (old.dtype, old.device, old.shape) == (new.dtype, new.device, new.shape)
        assert torch.equal(old, new)


def test_the_fixed_code_gives_the_same_tensors_on_the_meta_device():
    """On a device other than the CPU (meta: shapes and dtypes, no values) the tensors land where
    the original's did, with the same dtype and shape."""
    result, _ = _fixed(FIXABLE)
    x = torch.empty(3, 3, dtype=torch.bfloat16, device="meta")
    before = _run(FIXABLE, "make")(x, 5)
    after = _run(result, "make")(x, 5)
    for old, new in zip(before, after):
        assert (old.dtype, old.device, old.shape) == (new.dtype, new.device, new.shape)
        assert new.device.type == "meta"
