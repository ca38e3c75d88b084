"""--fix, --unsafe-fixes, --diff, --fix-only: files change only as they should, and still run."""

import ast

import torch
from _cli_helpers import DATA_PARALLEL, FIXABLE, UNSAFE


def run_make(source: str):
    namespace = {}
    exec(compile(source, "<fixed>", "exec"), namespace)
    return namespace


def test_fix_applies_safe_fixes_and_keeps_results(project):
    path = project.write("a.py", FIXABLE)
    before = run_make(path.read_text())["make"]("cpu")
    code, out, _ = project.run("--fix")
    assert code == 0
    assert "Fixed 3 findings." in out and "All checks passed!" in out
    fixed = path.read_text()
    assert ".to(" not in fixed and fixed.count("device=device") == 3
    ast.parse(fixed)
    after = run_make(fixed)["make"]("cpu")
    for old, new in zip(before, after):
        assert old.device == new.device and old.dtype == new.dtype
        assert torch.equal(old, new)
    # idempotent: nothing more to do, file untouched
    mtime = path.stat().st_mtime_ns
    code, out, _ = project.run("--fix")
    assert code == 0 and "Fixed" not in out
    assert path.stat().st_mtime_ns == mtime and path.read_text() == fixed


def test_unsafe_fixes_only_when_asked(project):
    path = project.write("b.py", UNSAFE)
    code, out, _ = project.run("--fix")
    assert code == 1 and path.read_text() == UNSAFE
    assert "1 more with --unsafe-fixes" in out
    code, out, _ = project.run("--fix", "--unsafe-fixes")
    assert code == 0 and "Fixed 1 finding." in out
    assert "torch.rand(3, device=device)" in path.read_text()
    noise = run_make(path.read_text())["noise"]("cpu")
    assert noise.shape == (3,) and noise.device.type == "cpu"


def test_unsafe_fixes_from_config(project):
    path = project.write("b.py", UNSAFE)
    project.config("unsafe-fixes = true\n")
    assert project.run("--fix")[0] == 0
    assert "device=device" in path.read_text()


def test_fix_leaves_unfixable_and_silenced(project):
    source = FIXABLE.replace(".to(device)\n", ".to(device)  # noqa: TPL101\n", 1) + DATA_PARALLEL
    path = project.write("a.py", source)
    code, out, _ = project.run("--fix")
    assert code == 1
    text = path.read_text()
    assert "torch.arange(6, dtype=torch.float32).to(device)  # noqa: TPL101" in text  # silenced: not fixed
    assert "Fixed 2 findings." in out and "TPL201" in out


def test_diff_writes_nothing(project):
    path = project.write("a.py", FIXABLE)
    code, out, err = project.run("--diff")
    assert code == 1
    assert path.read_text() == FIXABLE
    assert out.startswith("--- a.py\n+++ a.py\n@@")
    assert "-    a = torch.arange(6, dtype=torch.float32).to(device)" in out
    assert "+    a = torch.arange(6, dtype=torch.float32, device=device)" in out
    assert "Would fix 3 findings." in err
    project.write("c.py", DATA_PARALLEL)
    code, out, _ = project.run("--diff", "c.py")
    assert code == 0 and out == ""  # findings without fixes: no diff


def test_fix_only_and_exit_non_zero_on_fix(project):
    path = project.write("a.py", FIXABLE + DATA_PARALLEL.replace("import torch\n", ""))
    code, out, _ = project.run("--fix-only", "--exit-non-zero-on-fix")
    assert code == 1 and "Fixed 3 findings." in out and "TPL201" not in out
    assert ".to(device" not in path.read_text()
    code, out, _ = project.run("--fix-only", "--exit-non-zero-on-fix")
    assert code == 0  # nothing changed; TPL201 left is not this mode's business


def test_fix_keeps_encoding_and_newlines(project):
    source = "# -*- coding: latin-1 -*-\r\nimport torch\r\ns = 'é'\r\nx = torch.zeros(3).to(device)\r\n"
    path = project.write_bytes("w.py", source.encode("latin-1"))
    assert project.run("--fix")[0] == 0
    assert path.read_bytes() == source.replace(".to(device)", "").replace(
        "zeros(3)", "zeros(3, device=device)").encode("latin-1")


def test_fix_that_does_not_parse_is_not_written(project, monkeypatch):
    from torchperf_lint.fixing import fixer

    path = project.write("a.py", FIXABLE)
    monkeypatch.setattr(fixer, "apply_fixes", lambda source, fixes: (source + "\n)(\n", list(range(len(fixes)))))
    code, out, err = project.run("--fix")
    assert code == 2
    assert path.read_text() == FIXABLE
    assert "does not parse" in err and "nothing was written" in err
