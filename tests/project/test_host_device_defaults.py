"""R72: ``.to(device)`` where ``device`` is a parameter defaulting to ``"cpu"`` that every visible call
of the function leaves at its default moves nothing to an accelerator (PINNacle's ``err_fft(...,
device='cpu')``, I2SB's mixtures: judged false five times). The calls must be visible and none may
hand a device; another module that imports this one and names the function keeps the finding. A
``None`` default is not read so (the vendored Hugging Face rotary embedding is labelled in most sets)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import CPU_CREATION_TEMPLATE
from _project_files import findings_without_col, write

METRICS = """
    import torch


    def err_fft(pred, target, i_low=4, device='cpu'):
        err = torch.zeros([3, 4]).to(device)
        err += (pred - target).abs().mean()
        return err


    def report(pred, target):
        return err_fft(pred, target{more})
"""
ROTARY = """
    import torch


    class RotaryEmbedding(torch.nn.Module):
        def __init__(self, dim, base=10000, device=None):
            super().__init__()
            self.register_buffer("inv_freq", 1.0 / (base ** (torch.arange(0, dim, 2).float().to(device) / dim)))


    class Attention(torch.nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.rotary = RotaryEmbedding(dim{more})
"""
ZEROS = [("TPL101", 5, CPU_CREATION_TEMPLATE.format(factory="zeros"))]
ARANGE = [("TPL101", 7, CPU_CREATION_TEMPLATE.format(factory="arange"))]


def _lint(root: Path, name: str, source: str, more: str, extra: dict = None) -> list:
    files = {"setup.py": "", "pkg/__init__.py": "", f"pkg/{name}": source.replace("{more}", more)}
    files.update(extra or {})
    write(root, files)
    return findings_without_col(root, f"pkg/{name}", codes=("TPL101",))


def test_a_cpu_default_every_call_leaves_is_no_move(tmp_path):
    assert _lint(tmp_path, "metrics.py", METRICS, "") == []
    assert _lint(tmp_path / "kw", "metrics.py", METRICS, ", i_low=2") == []


def test_a_cpu_default_of_a_constructor_every_call_leaves_is_no_move(tmp_path):
    rotary = ROTARY.replace("device=None", "device='cpu'")
    assert _lint(tmp_path, "layers.py", rotary, "") == []
    assert _lint(tmp_path / "base", "layers.py", rotary, ", 500") == []


def test_a_none_default_keeps_the_finding(tmp_path):
    assert _lint(tmp_path, "layers.py", ROTARY, "") == ARANGE


def test_a_call_that_hands_a_device_keeps_the_finding(tmp_path):
    assert _lint(tmp_path, "metrics.py", METRICS, ", device=pred.device") == ZEROS
    assert _lint(tmp_path / "pos", "metrics.py", METRICS, ", 4, pred.device") == ZEROS
    assert _lint(tmp_path / "splat", "metrics.py", METRICS, ", **options") == ZEROS
    assert _lint(tmp_path / "rot", "layers.py", ROTARY, ", device=torch.device('cuda')") == ARANGE


def test_no_visible_call_or_a_caller_in_another_module_keeps_the_finding(tmp_path):
    """A function nobody in the file calls is called by someone else (a library's users); a module
    that imports this one and names the function may hand it a device."""
    alone = METRICS.split("def report")[0]
    assert _lint(tmp_path, "metrics.py", alone, "") == ZEROS
    caller = {"pkg/train.py": "from pkg.metrics import err_fft\n\nprint(err_fft)\n"}
    assert _lint(tmp_path / "other", "metrics.py", METRICS, "", caller) == ZEROS


def test_a_default_bound_again_in_the_function_keeps_the_finding(tmp_path):
    source = METRICS.replace("        err = torch.zeros", "        device = device or 'cuda'\n        err = torch.zeros")
    assert _lint(tmp_path, "metrics.py", source, "") == [("TPL101", 6, CPU_CREATION_TEMPLATE.format(factory="zeros"))]


def test_an_accelerator_default_every_call_leaves_keeps_the_finding(tmp_path):
    """Only a CPU default says the tensor stays on the host: ``device='cuda'`` left at its default
    is the move TPL101 reports."""
    assert _lint(tmp_path, "metrics.py", METRICS.replace("device='cpu'", "device='cuda'"), "") == ZEROS
