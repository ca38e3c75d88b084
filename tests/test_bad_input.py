"""A file the linter cannot analyse gets one TPL900 naming the reason; nothing raises."""

import subprocess
import sys

from torchperf_lint import engine
from torchperf_lint.engine import lint_source

TORCH_LOOP = "import torch\nfor x in loader:\n    print(x.item())\n"


def only_tpl900(findings, line=1, col=None):
    """The message of the one TPL900 finding, which must be at ``line`` (and ``col``, 0-based)."""
    assert [f.code for f in findings] == ["TPL900"], findings
    assert findings[0].line == line, findings
    if col is not None:
        assert findings[0].col == col, findings
    return findings[0].message


def test_syntax_error_points_at_the_error():
    assert "syntax error" in only_tpl900(lint_source("import torch\ndef f(:\n"), line=2, col=6)


def test_python_312_syntax_on_an_older_parser():
    # PEP 695 type aliases do not parse on Python 3.11: a clear TPL900, not a crash.
    source = "import torch\ntype Batch = list[torch.Tensor]\n"
    if sys.version_info < (3, 12):
        assert "syntax error" in only_tpl900(lint_source(source), line=2)
    else:
        assert all(f.code != "TPL900" or "parse" in f.message for f in lint_source(source))


def test_a_byte_order_mark_left_in_the_text_is_not_an_error():
    # flake8 and the CLI decode with utf-8-sig; a caller of lint_source may not.
    source = "import torch\nx = torch.zeros(3).cuda()\n"
    expected = [(f.code, f.line, f.col) for f in lint_source(source)]
    assert expected == [("TPL101", 2, 4)]
    assert [(f.code, f.line, f.col) for f in lint_source("\ufeff" + source)] == expected


def test_nul_bytes_point_at_the_first_one():
    assert "NUL" in only_tpl900(lint_source("import torch\nx = 1\x00\n"), line=2, col=5)


def test_deeply_nested_call_is_still_analysed():
    # A 190-deep call parses with ast but needs more than Python's default recursion limit in libcst.
    depth = 190
    source = "import torch\nfor i in range(3):\n    x = model(i)\n    y = " + "f(" * depth + "x.item()" + ")" * depth + "\n"
    assert [(f.code, f.line) for f in lint_source(source)] == [("TPL102", 4)]
    assert sys.getrecursionlimit() < engine.RECURSION_LIMIT  # restored afterwards


def test_recursion_limit_gives_tpl900():
    # 5000 operands of ``+`` nest 5000 deep: past even the raised limit.
    source = "import torch\nfor x in loader:\n    y = " + " + ".join(["a"] * 5000) + " + x.item()\n"
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
    assert codes == [("TPL102", 7), ("TPL900", 2)]  # at the line libcst could not parse


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

    source = "import torch\nfor x in loader:\n    y = x" + ".b" * 1500 + ".item()\n"
    findings = lint_source(source, tree=ast.parse(source))
    assert "nested" in only_tpl900(findings, line=3) and "too deep for libcst" in findings[0].message


def _lint_in_subprocess(source: str):
    """lint_source in a child process: a crash of libcst's native parser fails the test, not pytest."""
    code = (
        "import ast, sys\n"
        "from torchperf_lint.engine import lint_source\n"
        "source = sys.stdin.read()\n"
        "for f in lint_source(source, tree=ast.parse(source)):\n"
        "    print(f.code, f.line, f.message)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], input=source, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    return result.stdout.splitlines()


def test_long_and_chain_is_reported_not_crashed():
    # 8,000 operands: libcst's native parser overflows its stack (SIGSEGV) on this; ast is flat,
    # so only the width guard stands between it and a dead flake8 worker.
    source = ("import torch\nfor x in loader:\n    x.item()\n"
              "ok = " + " and ".join(["a"] * 8000) + "\n")
    lines = _lint_in_subprocess(source)
    assert len(lines) == 1 and lines[0].startswith("TPL900 4 "), lines
    assert "`and`/`or` chain of 8000 operands" in lines[0]


def test_long_and_chain_in_a_unit_no_rule_can_match_is_left_alone():
    # The ast prefilters run before the width guard: a unit no rule can report in (this loop runs
    # no step) is never given to libcst, so there is nothing to fail on and nothing to say.
    source = ("import torch\nfor i in range(3):\n    x.item()\n"
              "ok = " + " and ".join(["a"] * 8000) + "\n")
    assert _lint_in_subprocess(source) == []


def test_wide_but_flat_expressions_are_still_analysed():
    # Literals, calls and comparison chains stay flat in libcst: thousands of items are fine.
    source = ("import torch\nfor x in loader:\n    y = model(x).item()\n"
              "table = [" + ", ".join(["1"] * 5000) + "]\n"
              "ok = f(" + ", ".join(["a"] * 3000) + ")\n"
              "chain = " + " < ".join(["a"] * 3000) + "\n"
              "short = " + " or ".join(["a"] * 500) + "\n")
    assert [line.split()[:2] for line in _lint_in_subprocess(source)] == [["TPL102", "3"]]


def test_flake8_parallel_run_survives_a_long_and_chain(tmp_path):
    # Without the width guard this file kills a flake8 worker (SIGSEGV in libcst's parser) and
    # `flake8 -j2` hangs; now it gets TPL900 at the chain's line and the other files are checked.
    (tmp_path / "a_chain.py").write_text(
        "import torch\nfor x in loader:\n    x.item()\nok = " + " and ".join(["a"] * 8000) + "\n")
    for i in range(3):
        (tmp_path / f"b_good_{i}.py").write_text("import torch\nm = torch.nn.DataParallel(net)\n")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "-j2", "--select=TPL,E999", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert "a_chain.py:4:1: TPL900" in result.stdout and "`and`/`or` chain of 8000 operands" in result.stdout
    assert all(f"b_good_{i}.py:2:5: TPL201" in result.stdout for i in range(3))
