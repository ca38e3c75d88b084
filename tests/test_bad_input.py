"""A file the linter cannot analyse gets one TPL900 naming the reason; nothing raises."""

import subprocess
import sys

from torchperf_lint import engine
from torchperf_lint.engine import lint_source

TORCH_LOOP = "import torch\nfor x in loader:\n    print(x.item())\n"


def only_tpl900(findings):
    assert [f.code for f in findings] == ["TPL900"], findings
    assert findings[0].line == 1
    return findings[0].message


def test_syntax_error():
    assert "syntax error" in only_tpl900(lint_source("import torch\ndef f(:\n"))


def test_python_312_syntax_on_an_older_parser():
    # PEP 695 type aliases do not parse on Python 3.11: a clear TPL900, not a crash.
    source = "import torch\ntype Batch = list[torch.Tensor]\n"
    if sys.version_info < (3, 12):
        assert "syntax error" in only_tpl900(lint_source(source))
    else:
        assert all(f.code != "TPL900" or "parse" in f.message for f in lint_source(source))


def test_nul_bytes():
    assert "NUL" in only_tpl900(lint_source("import torch\nx = 1\x00\n"))


def test_deeply_nested_call_is_still_analysed():
    # A 190-deep call parses with ast but needs more than Python's default recursion limit in libcst.
    depth = 190
    source = "import torch\nfor i in range(3):\n    x = model(i)\n    y = " + "f(" * depth + "x.item()" + ")" * depth + "\n"
    assert [(f.code, f.line) for f in lint_source(source)] == [("TPL102", 4)]
    assert sys.getrecursionlimit() < engine.RECURSION_LIMIT  # restored afterwards


def test_recursion_limit_gives_tpl900():
    # 5000 operands of ``+`` nest 5000 deep: past even the raised limit.
    source = "import torch\nfor i in range(3):\n    y = " + " + ".join(["a"] * 5000) + " + x.item()\n"
    assert "recursion limit" in only_tpl900(lint_source(source))


def test_huge_file(monkeypatch):
    monkeypatch.setattr(engine, "MAX_FILE_BYTES", 1000)
    assert "larger than" in only_tpl900(lint_source("import torch\n" + "x = 1\n" * 500))


def test_internal_error_is_reported_not_raised(monkeypatch):
    from torchperf_lint.rules import tpl102_host_sync_in_loop as rule

    def boom(self, node):
        raise KeyError("boom")

    monkeypatch.setattr(rule.HostSyncInLoop, "visit_Call", boom)
    assert "internal error" in only_tpl900(lint_source(TORCH_LOOP))


def test_libcst_failure_on_one_unit_keeps_the_others(monkeypatch):
    import libcst

    real_parse = libcst.parse_module

    def parse(code, *args, **kwargs):
        if "broken" in code:
            raise libcst.ParserSyntaxError("unsupported syntax", lines=[code], raw_line=1, raw_column=0)
        return real_parse(code, *args, **kwargs)

    monkeypatch.setattr(engine.cst, "parse_module", parse)
    source = (
        "import torch\n"
        "def broken():\n    for x in xs:\n        model(x).item()\n"
        "def fine():\n    for x in xs:\n        model(x).item()\n"
    )
    codes = sorted((f.code, f.line) for f in lint_source(source))
    assert codes == [("TPL102", 7), ("TPL900", 1)]


def test_flake8_run_continues_past_bad_files(tmp_path):
    (tmp_path / "a_nested.py").write_text(
        "import torch\nfor i in range(3):\n    y = " + "f(" * 190 + "x" + ")" * 190 + "\n"
    )
    (tmp_path / "b_good.py").write_text("import torch\nm = torch.nn.DataParallel(net)\n")
    (tmp_path / "c_latin1.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\ns = '\xe9'\nm = torch.nn.DataParallel(n)\n")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=TPL,E999", "."],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert "b_good.py:2:5: TPL201" in result.stdout
    assert "c_latin1.py:4:5: TPL201" in result.stdout


def test_nesting_too_deep_for_libcst_is_reported_not_crashed():
    # Valid for ast (flake8 hands over the tree) but deep enough to crash libcst's native parser:
    # the engine measures the depth first and reports the unit instead of parsing it.
    import ast

    source = "import torch\nfor i in range(3):\n    y = x" + ".b" * 1500 + ".item()\n"
    findings = lint_source(source, tree=ast.parse(source))
    assert "nested" in only_tpl900(findings) and "too deep for libcst" in findings[0].message
