"""Fixes read as if a careful person had typed them: the exact text of fixed code, the edits
limited to what changed, and the project's line length respected."""

import ast
import textwrap

import libcst as cst
import pytest

from torchperf_lint.fixing.edits import add_keyword, drop_keyword
from torchperf_lint.engine import lint_source
from torchperf_lint.findings import Edit, Fix
from torchperf_lint.engine import fix_source
from torchperf_lint.fixing.fixer import apply_fixes
from torchperf_lint.frontends.line_length import DEFAULT_LINE_LENGTH, configured_line_length


def fixed(source: str, codes=None, **options) -> str:
    source = textwrap.dedent(source)
    result, count = fix_source(source, codes=codes, unsafe=True, **options)
    assert count >= 1
    ast.parse(result)
    assert fix_source(result, codes=codes, unsafe=True, **options) == (result, 0), "fixing twice changes nothing"
    return result


def call(text: str) -> cst.Call:
    return cst.parse_expression(text)


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


# ---- add_keyword ------------------------------------------------------------------------------------

@pytest.mark.parametrize("before,after", [
    ("f(a, b)", "f(a, b, k=True)"),
    ("f(a, b,)", "f(a, b, k=True,)"),
    ("f()", "f(k=True)"),
    # one argument per line, with and without a trailing comma; comments stay on their argument
    ("f(\n    a,\n    b,  # about b\n)", "f(\n    a,\n    b,  # about b\n    k=True,\n)"),
    ("f(\n    a,\n    b  # about b\n)", "f(\n    a,\n    b,  # about b\n    k=True\n)"),
    ("f(\n    a, b,\n)", "f(\n    a, b,\n    k=True,\n)"),
    # hanging indentation, aligned with the opening bracket
    ("f(a, b,\n  c)", "f(a, b,\n  c,\n  k=True)"),
    ("f(a,\n  b)", "f(a,\n  b,\n  k=True)"),
])
def test_add_keyword_layout(before, after):
    assert code(add_keyword(call(before), "k", cst.Name("True"))) == after


@pytest.mark.parametrize("before,after", [
    ("f(a, k=1, b=2)", "f(a, b=2)"),
    ("f(a, k=1)", "f(a)"),
    ("f(k=1, b=2)", "f(b=2)"),
    ("f(a, k=1,)", "f(a,)"),
    ("f(\n    a,\n    k=1,  # why\n    b=2,\n)", "f(\n    a,\n    # why\n    b=2,\n)"),
    ("f(\n    a,  # about a\n    k=1,\n)", "f(\n    a,  # about a\n)"),
    ("f(\n    a,\n    k=1  # why\n)", "f(\n    a\n    # why\n)"),
    ("f(a, k=1,  # why\n  b=2)", "f(a,  # why\n  b=2)"),
])
def test_drop_keyword_layout(before, after):
    result = code(drop_keyword(call(before), "k"))
    assert result == after
    ast.parse(result)


# ---- the rules' fixes, end to end ---------------------------------------------------------------

def test_keyword_added_to_a_multiline_loader_gets_its_own_line():
    result = fixed("""\
        import torch
        from torch.utils.data import DataLoader
        loader = DataLoader(
            ds,
            batch_size=4,
            sampler=sampler,  # was here before the sampler
        )
        for x in loader:
            x = x.cuda(non_blocking=True)
    """, codes=["TPL502"])
    assert result.endswith(
        "    sampler=sampler,  # was here before the sampler\n"
        "    pin_memory=True,\n"
        ")\nfor x in loader:\n    x = x.cuda(non_blocking=True)\n")


def test_tpl101_on_a_multiline_factory():
    result = fixed("""\
        import torch
        x = torch.zeros(
            8, 8,  # the size
        ).to(device)
    """)
    assert result == "import torch\nx = torch.zeros(\n    8, 8,  # the size\n    device=device,\n)\n"


def test_tpl101_comments_of_the_move_go_to_the_device_line():
    result = fixed("""\
        import torch
        def f():
            if a:
                x = torch.zeros(3, 4).to(  # move
                    device,  # the GPU
                )
    """)
    assert result.endswith(
        "        x = torch.zeros(\n"
        "            3,\n"
        "            4,\n"
        "            device=device,  # move\n"
        "            # the GPU\n"
        "        )\n")


def test_code_outside_the_fix_is_never_reformatted():
    source = textwrap.dedent("""\
        import torch
        try:
            import apex
        except ImportError :
            apex = None
        x = torch.zeros(3).to(device)
        y = ( 1 ,2 )
        class Trainer:
            def run(self):
                try:
                    pass
                except (ValueError, KeyError) :
                    pass
                return torch.ones(2).cuda()
    """)
    result = fixed(source)
    assert result == (
        source.replace("torch.zeros(3).to(device)", "torch.zeros(3, device=device)")
        .replace("torch.ones(2).cuda()", 'torch.ones(2, device="cuda")')
    )


def test_edits_cover_only_what_changes():
    source = "import torch\ntry:\n    pass\nexcept ValueError :\n    pass\nx = torch.zeros(3).to(device)\n"
    (finding,) = lint_source(source)
    # ``torch.zeros(3).to(device)`` -> ``torch.zeros(3, device=device)``: only ``).to(`` is replaced
    assert finding.fix.edits == (Edit(6, 17, 6, 22, ", device="),)
    method = "import torch\nclass A:\n    def f(self):\n        return torch.zeros(3).to(device)\n"
    (finding,) = lint_source(method)
    assert finding.fix.edits == (Edit(4, 28, 4, 33, ", device="),)


def test_tpl303_inserted_line_keeps_comments_and_blank_lines_in_place():
    result = fixed("""\
        import torch

        def step(scaler, loss, opt, model):
            scaler.scale(loss).backward()

            # clip, then step
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # max norm
            scaler.step(opt)
            scaler.update()
    """)
    assert ("    scaler.scale(loss).backward()\n\n    # clip, then step\n    scaler.unscale_(opt)\n"
            "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # max norm\n") in result


# ---- line length --------------------------------------------------------------------------------

LONG = """\
import torch
def make(device):
    if True:
        mask = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]).to(device)
"""


def test_fix_that_pushes_a_line_past_the_limit_wraps_the_call():
    assert len(LONG.splitlines()[3]) <= DEFAULT_LINE_LENGTH
    result = fixed(LONG)
    assert result.endswith(
        "        mask = torch.tensor(\n"
        "            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],\n"
        "            device=device,\n"
        "        )\n")
    assert all(len(line) <= DEFAULT_LINE_LENGTH for line in result.splitlines())


def test_longer_configured_limit_keeps_one_line():
    result = fixed(LONG, max_line_length=120)
    assert "mask = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], device=device)\n" in result


def test_line_that_was_already_too_long_is_not_wrapped():
    result = fixed(LONG, max_line_length=60)
    assert "], device=device)\n" in result


def test_project_line_length(tmp_path):
    assert configured_line_length(tmp_path) == DEFAULT_LINE_LENGTH
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n")
    assert configured_line_length(tmp_path) == DEFAULT_LINE_LENGTH
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 120  # wide screens\n")
    assert configured_line_length(tmp_path) == 120
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    assert configured_line_length(tmp_path) == 100  # the smallest of the tools' limits
    sub = tmp_path / "pkg" / "sub"
    sub.mkdir(parents=True)
    assert configured_line_length(sub / "train.py") == 100  # found upward from a file
    (sub / ".flake8").write_text("[flake8]\nmax_line_length = 79\n")
    assert configured_line_length(sub) == 79  # the nearest directory with a setting decides


@pytest.mark.parametrize("name,text,expected", [
    ("pyproject.toml", "[tool.ruff]\nline-length = 110\n", 110),
    ("pyproject.toml", "[tool.ruff]\nline-length = 110\n[tool.ruff.lint.pycodestyle]\nmax-line-length = 100\n", 100),
    ("ruff.toml", "line-length = 99\n", 99),
    ("tox.ini", "[flake8]\nmax-line-length=101\n", 101),
    ("pyproject.toml", "[tool.black\nline-length = 1\n", DEFAULT_LINE_LENGTH),  # malformed: skipped
    ("setup.cfg", "[flake8]\nmax-line-length = wide\n", DEFAULT_LINE_LENGTH),
    ("setup.cfg", "not an ini file [\n", DEFAULT_LINE_LENGTH),
])
def test_line_length_sources(tmp_path, name, text, expected):
    (tmp_path / name).write_text(text)
    assert configured_line_length(tmp_path) == expected


# ---- applying fixes -------------------------------------------------------------------------------

def test_a_fix_is_applied_whole_or_not_at_all():
    source = "aaaa\nbbbb\ncccc\n"
    first = Fix("safe", "1", (Edit(1, 0, 1, 4, "AAAA"), Edit(3, 0, 3, 4, "CCCC")))
    overlapping = Fix("safe", "2", (Edit(2, 0, 2, 4, "BBBB"), Edit(3, 1, 3, 2, "x")))
    same = Fix("safe", "3", first.edits)
    result, applied = apply_fixes(source, [first, overlapping, same])
    assert result == "AAAA\nbbbb\nCCCC\n"
    assert applied == [0, 2]


def test_two_insertions_at_one_place_do_not_both_apply():
    source = "x\n"
    first = Fix("safe", "a", (Edit(1, 0, 1, 0, "a\n"),))
    second = Fix("safe", "b", (Edit(1, 0, 1, 0, "b\n"),))
    result, applied = apply_fixes(source, [first, second])
    assert result == "a\nx\n" and applied == [0]
