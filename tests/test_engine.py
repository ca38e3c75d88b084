"""Engine behaviour shared by every rule: units, name resolution, positions, fixes in methods."""

import textwrap

import pytest

from torchperf_lint.engine import lint_source
from torchperf_lint.engine import fix_source


def found(source, codes=None):
    return [(f.code, f.line, f.col) for f in lint_source(textwrap.dedent(source), codes=codes)]


def test_odd_layouts_keep_lines_and_columns():
    source = """\
    import torch
    class A: x = torch.zeros(3).cuda()
    class B:
        y = 1; z = torch.ones(2).cuda()
        def f(self): return torch.ones(2).cuda()
    x = 1; import os
    def g(): return torch.ones(1).cuda()
    """
    assert found(source) == [("TPL101", 2, 13), ("TPL101", 4, 15), ("TPL101", 5, 24), ("TPL101", 7, 16)]


@pytest.mark.parametrize(
    "imports,call",
    [
        ("import torch", "torch.nn.DataParallel(m)"),
        ("import torch as T", "T.nn.DataParallel(m)"),
        ("from torch import nn", "nn.DataParallel(m)"),
        ("import torch.nn as nn", "nn.DataParallel(m)"),
        ("from torch.nn import DataParallel as DP", "DP(m)"),
        ("from torch.nn.parallel import DataParallel", "DataParallel(m)"),
        ("import torch.nn.parallel as par", "par.DataParallel(m)"),
        ("import torch\nDP = torch.nn.DataParallel", "DP(m)"),
        ("import torch\ntry:\n    import apex\nexcept ImportError:\n    apex = None", "torch.nn.DataParallel(m)"),
    ],
)
def test_names_resolve_through_imports_and_aliases(imports, call):
    source = f"{imports}\ndef wrap(m):\n    return {call}\n"
    assert [c for c, _, _ in found(source)] == ["TPL201"]


@pytest.mark.parametrize(
    "source",
    [
        # a module-level definition shadows the import
        "from torch.nn import DataParallel\nclass DataParallel:\n    pass\nm = DataParallel(net)\n",
        # a parameter shadows the module name
        "import torch\ndef wrap(torch, m):\n    return torch.nn.DataParallel(m)\n",
        # a local assignment shadows it
        "import torch\nfrom torch import nn\ndef wrap(m):\n    nn = my_nn\n    return nn.DataParallel(m)\n",
        # a relative import is the project's own code
        "import torch\nfrom .parallel import DataParallel\nm = DataParallel(net)\n",
        # no torch import at all
        "import nn\nm = nn.DataParallel(net)\n",
    ],
)
def test_shadowed_or_foreign_names_are_not_torch(source):
    assert found(source) == []


def test_function_local_import_counts():
    source = """\
    def wrap(m):
        import torch.nn as nn
        return nn.DataParallel(m)
    """
    assert found(source) == [("TPL201", 3, 11)]


def test_strings_comments_and_annotations_are_not_uses():
    source = '''\
    import torch
    """torch.nn.DataParallel(model) is slow."""
    # torch.nn.DataParallel(model)
    def f(m: "torch.nn.DataParallel") -> torch.nn.DataParallel:
        return "torch.nn.DataParallel(m)"
    '''
    assert found(source) == []


def test_fix_inside_a_method_splices_back_at_its_indentation():
    source = textwrap.dedent(
        """\
        import torch
        class Net(torch.nn.Module):
            def mask(self, n):
                return torch.ones(n, n).to(self.device)  # keep this comment
        """
    )
    fixed, count = fix_source(source)
    assert count == 1
    assert fixed.splitlines()[3] == "        return torch.ones(n, n, device=self.device)  # keep this comment"


def test_only_requested_codes_run():
    source = "import torch\nm = torch.nn.DataParallel(torch.zeros(3).cuda())\n"
    assert [c for c, _, _ in found(source, codes=["TPL101"])] == ["TPL101"]
    assert [c for c, _, _ in found(source, codes=[])] == []
