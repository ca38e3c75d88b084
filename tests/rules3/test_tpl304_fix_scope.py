"""TPL304's import fix is offered only when every use of the imported names can be rewritten."""

from torchperf_lint.engine import lint_source
from torchperf_lint.fixer import fix_source


def test_import_fix_withheld_when_uses_live_in_other_functions():
    source = (
        "import torch\nfrom torch.cuda.amp import autocast\n"
        "def f(x):\n    with autocast():\n        return x\n"
    )
    findings = [f for f in lint_source(source, codes=["TPL304"])]
    assert [f.line for f in findings] == [2]
    assert findings[0].fix is None
    assert fix_source(source, codes=["TPL304"]) == (source, 0)


def test_import_fix_inside_a_function_rewrites_its_calls():
    source = (
        "import torch\ndef f(x):\n    from torch.cuda.amp import autocast\n"
        "    with autocast(enabled=True):\n        return x\n"
    )
    fixed, count = fix_source(source, codes=["TPL304"])
    assert count == 1
    assert 'from torch.amp import autocast' in fixed and 'autocast("cuda", enabled=True)' in fixed


def test_import_fix_withheld_for_non_call_uses():
    source = "import torch\nfrom torch.cuda.amp import autocast\nctx = autocast\n"
    findings = lint_source(source, codes=["TPL304"])
    assert [f.line for f in findings] == [2] and findings[0].fix is None
