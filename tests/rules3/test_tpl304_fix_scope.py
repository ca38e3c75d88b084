"""TPL304's import fix: a module-level ``from torch.cuda.amp import ...`` used inside functions (the
common layout) is rewritten together with every use in the file, or not at all; the fixed code
parses and runs the same (torch is installed in the test environment; CPU only)."""

import ast
import warnings

import pytest

from torchperf_lint.engine import lint_source
from torchperf_lint.engine import fix_source

torch = pytest.importorskip("torch")


def run(source: str, **names):
    """Execute a module's source; return its namespace and the deprecation warnings it raised."""
    namespace: dict = {"__name__": "fixed_module"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(source, "<fixed>", "exec"), namespace)
        result = namespace["main"](**names) if "main" in namespace else None
    deprecations = [str(w.message) for w in caught if "deprecated" in str(w.message)]
    return result, deprecations


LAYOUT = """\
import torch
from torch.cuda.amp import autocast, GradScaler, custom_fwd, custom_bwd


class Double(torch.autograd.Function):
    @staticmethod
    @custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @custom_bwd
    def backward(ctx, grad):
        return grad * 2


def make_scaler():
    return GradScaler(enabled=False)


def step(x):
    with autocast(enabled=False):
        return Double.apply(x)


def main():
    scaler = make_scaler()
    x = torch.ones(3, requires_grad=True)
    step(x).sum().backward()
    return scaler.is_enabled(), x.grad.tolist(), type(scaler).__module__
"""

FIXED_LAYOUT = """\
import torch
from torch.amp import autocast, GradScaler, custom_fwd, custom_bwd


class Double(torch.autograd.Function):
    @staticmethod
    @custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @custom_bwd(device_type="cuda")
    def backward(ctx, grad):
        return grad * 2


def make_scaler():
    return GradScaler("cuda", enabled=False)


def step(x):
    with autocast("cuda", enabled=False):
        return Double.apply(x)


def main():
    scaler = make_scaler()
    x = torch.ones(3, requires_grad=True)
    step(x).sum().backward()
    return scaler.is_enabled(), x.grad.tolist(), type(scaler).__module__
"""


def test_module_level_import_used_in_functions_is_fixed_with_every_call_site():
    findings = lint_source(LAYOUT, codes=["TPL304"])
    assert [f.line for f in findings] == [2]
    assert findings[0].fix is not None and findings[0].fix.applicability == "safe"
    fixed, count = fix_source(LAYOUT, codes=["TPL304"])
    assert (fixed, count) == (FIXED_LAYOUT, 1)
    ast.parse(fixed)
    assert fix_source(fixed, codes=["TPL304"]) == (fixed, 0)
    assert lint_source(fixed, codes=["TPL304"]) == []


def test_fixed_layout_runs_like_the_original_without_deprecation_warnings():
    before, before_warnings = run(LAYOUT)
    after, after_warnings = run(fix_source(LAYOUT, codes=["TPL304"])[0])
    assert before[:2] == after[:2] == (False, [2.0, 2.0, 2.0])
    assert before_warnings and not after_warnings
    assert after[2].startswith("torch.amp")


def test_grad_scaler_cuda_on_a_cpu_machine_disables_itself_as_the_old_one_did():
    if torch.cuda.is_available():
        pytest.skip("checks the CPU-only behaviour")
    source = "import torch\nfrom torch.cuda.amp import GradScaler\ndef main():\n    return GradScaler().is_enabled()\n"
    fixed, count = fix_source(source, codes=["TPL304"])
    assert count == 1 and 'GradScaler("cuda")' in fixed
    assert run(source)[0] is False and run(fixed)[0] is False


def test_dotted_decorators_are_rewritten():
    source = (
        "import torch\n\nclass F(torch.autograd.Function):\n    @staticmethod\n"
        "    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)\n    def forward(ctx, x):\n        return x + 1\n\n"
        "    @staticmethod\n    @torch.cuda.amp.custom_bwd\n    def backward(ctx, g):\n        return g\n\n"
        "def main():\n    x = torch.ones(2, requires_grad=True)\n    F.apply(x).sum().backward()\n    return x.grad.tolist()\n"
    )
    assert [f.line for f in lint_source(source, codes=["TPL304"])] == [5, 10]
    fixed, count = fix_source(source, codes=["TPL304"])
    assert count == 2
    assert '@torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)' in fixed
    assert '@torch.amp.custom_bwd(device_type="cuda")' in fixed
    assert run(fixed) == ([1.0, 1.0], [])


def test_import_fix_inside_a_function_rewrites_its_calls():
    source = (
        "import torch\ndef f(x):\n    from torch.cuda.amp import autocast\n"
        "    with autocast(enabled=True):\n        return x\n"
    )
    fixed, count = fix_source(source, codes=["TPL304"])
    assert count == 1
    assert 'from torch.amp import autocast' in fixed and 'autocast("cuda", enabled=True)' in fixed


def test_import_fix_withheld_for_non_call_uses():
    source = "import torch\nfrom torch.cuda.amp import autocast\nctx = autocast\ndef f():\n    with autocast():\n        pass\n"
    findings = lint_source(source, codes=["TPL304"])
    assert [f.line for f in findings] == [2] and findings[0].fix is None


def test_import_fix_withheld_for_positional_autocast_arguments():
    # torch.cuda.amp.autocast(True) is enabled=True; torch.amp.autocast("cuda", True) is dtype=True
    source = "import torch\nfrom torch.cuda.amp import autocast\ndef f():\n    with autocast(True):\n        pass\n"
    assert lint_source(source, codes=["TPL304"])[0].fix is None


def test_positional_grad_scaler_arguments_keep_their_meaning():
    source = "import torch\nfrom torch.cuda.amp import GradScaler\ndef main():\n    return GradScaler(1024.0).get_scale()\n"
    fixed, count = fix_source(source, codes=["TPL304"])
    assert 'GradScaler("cuda", 1024.0)' in fixed
    # the positional argument still lands on init_scale: the device goes before it
    import inspect

    old = inspect.signature(torch.cuda.amp.GradScaler).bind(1024.0).arguments
    new = inspect.signature(torch.amp.GradScaler).bind("cuda", 1024.0).arguments
    assert old["init_scale"] == new["init_scale"] == 1024.0 and new["device"] == "cuda"


def test_version_fallback_is_left_alone():
    source = (
        "import torch\ntry:\n    from torch.amp import GradScaler\nexcept ImportError:\n"
        "    from torch.cuda.amp import GradScaler\n"
    )
    assert lint_source(source, codes=["TPL304"]) == []


def test_non_ascii_text_before_a_call_site_keeps_columns_right():
    source = (
        "import torch\nfrom torch.cuda.amp import autocast\n"
        "def f(x):\n    s = 'éé'; c = autocast(enabled=False)\n    return c\n"
    )
    fixed, count = fix_source(source, codes=["TPL304"])
    assert "s = 'éé'; c = autocast(\"cuda\", enabled=False)" in fixed


def test_module_level_import_used_in_a_version_fallback_branch_gets_no_fix():
    source = (
        "import torch\nfrom torch.cuda.amp import GradScaler\n"
        "def make():\n    if TORCH_2_4:\n        return torch.amp.GradScaler(\"cuda\")\n    else:\n        return GradScaler()\n"
    )
    findings = lint_source(source, codes=["TPL304"])
    assert [f.line for f in findings] == [2] and findings[0].fix is None


def test_no_import_fix_when_a_function_rebinds_the_name():
    source = (
        "import torch\nfrom torch.cuda.amp import autocast\n"
        "def run(step, autocast):\n    with autocast():\n        step()\n"
        "def other():\n    with autocast():\n        pass\n"
    )
    findings = lint_source(source, codes=["TPL304"])
    assert [f.line for f in findings] == [2] and findings[0].fix is None
