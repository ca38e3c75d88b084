"""Paths and files a new user throws at the CLI: a clear message and the right exit status, never a
hang or a traceback."""

import json
import os
import subprocess
import sys
import threading

import pytest
from _cli_helpers import DATA_PARALLEL, FIXABLE

from torchperf_lint.frontends import cache as cache_module
from torchperf_lint.catalog import fix_safety


def test_missing_file_is_an_error_not_a_pass(project):
    code, out, err = project.run("nope.py")
    assert code == 2
    assert "nope.py: no such file or directory" in err
    assert "All checks passed!" not in out


def test_missing_file_next_to_a_real_one(project):
    project.write("c.py", DATA_PARALLEL)
    code, out, err = project.run("c.py", "nope.py")
    assert code == 2 and "c.py:3:9: TPL201" in out and "nope.py: no such file" in err


def test_symlink_loop_is_a_clear_error(project):
    os.symlink("loop_b", project.root / "loop_a")
    os.symlink("loop_a", project.root / "loop_b")
    code, out, err = project.run("loop_a")
    assert code == 2
    assert "loop_a: a symbolic link loop" in err and "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_py_is_skipped_not_waited_for(project):
    os.mkfifo(project.root / "pipe.py")
    project.write("c.py", DATA_PARALLEL)
    outcome = {}

    def run():
        outcome["result"] = project.run("--no-cache", ".")

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # unblock the reader so the test process can end, then fail
        with open(project.root / "pipe.py", "w"):
            pass
        pytest.fail("the run waited for a writer to the FIFO")
    code, out, err = outcome["result"]
    assert code == 1 and "c.py:3:9: TPL201" in out
    assert "pipe.py: not a regular file, skipped" in err


def test_no_python_files_says_so(project):
    (project.root / "empty").mkdir()
    (project.root / "empty" / "notes.txt").write_text("nothing to lint\n")
    code, out, err = project.run("empty")
    assert code == 0  # as ruff: a warning, not a failure
    assert "No Python files found under empty" in err


def test_malformed_cache_entry_is_a_miss(project, tmp_path):
    path = project.write("c.py", DATA_PARALLEL)
    assert project.run()[0] == 1
    cache_dir = tmp_path / "cache"
    (cache_file,) = list(cache_dir.glob("*.marshal"))
    entries = cache_module.marshal.loads(cache_file.read_bytes())
    key = str(path)
    size, mtime, digest, codes, findings, rows, fixes, dependencies = entries[key]
    for broken in (
        (size, mtime, digest, codes, (("TPL201", "three"),), rows, fixes, dependencies),  # a finding of the wrong shape
        (size, mtime, digest, codes, findings, (), fixes, dependencies),  # rows missing
        (size, mtime, digest, codes, findings, rows, fixes, (("/nowhere.py", "size"),)),  # a dependency of the wrong shape
        (size, mtime),  # an entry cut short
        "not a tuple",
    ):
        entries[key] = broken
        cache_file.write_bytes(cache_module.marshal.dumps(entries))
        code, out, err = project.run()
        assert "Traceback" not in err
        assert code == 1 and "c.py:3:9: TPL201" in out, (broken, out, err)


def test_fix_safety_has_one_wording(project):
    """`rule`, SARIF and the docs say the same about TPL101's fix, random factories included."""
    wording = fix_safety("TPL101")
    assert "unsafe for random factories" in wording
    code, out, _ = project.raw("rule", "TPL101")
    assert code == 0 and wording in out
    project.write("a.py", FIXABLE)
    code, out, _ = project.run("--output-format", "sarif")
    rules = {rule["id"]: rule for rule in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["TPL101"]["properties"]["fixSafety"] == wording
    assert rules["TPL104"]["properties"]["fixSafety"] == fix_safety("TPL104") == "safe (applied by `--fix`)"


def test_flake8_reports_syntax_errors_with_e999(tmp_path):
    # flake8 never hands a file it cannot parse to a plugin: E999 (recommended with TPL) reports it.
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n")
    (tmp_path / "nul.py").write_bytes(b"import torch\nx = 1\x00\n")
    result = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TPL,E999", "."],
                            cwd=tmp_path, capture_output=True, text=True)
    assert "broken.py:2:8: E999 SyntaxError" in result.stdout
    assert "nul.py:1:1: E999" in result.stdout


def test_tpl900_points_at_the_bad_byte_and_the_syntax_error(project):
    project.write_bytes("bad_byte.py", b"import torch\nx = 1\ns = '\xff'\n")
    project.write_bytes("bad_syntax.py", b"import torch\r\nx = 1\r\ndef f(:\r\n")
    code, out, _ = project.run("--no-cache")
    assert "bad_byte.py:3:6: TPL900 could not analyse this file: the file is not valid utf-8" in out
    assert "bad_syntax.py:3:7: TPL900 could not analyse this file: syntax error at line 3" in out
