"""``python -m runtime_guard script.py`` behaves as ``python script.py`` with the guard installed first.

Every comparison runs the same target both ways in fresh interpreters and compares what a user
sees: stdout, the exit status, and stderr up to the guard's own report table (the one thing the
runner adds). Under torchrun: two CPU processes (gloo) running a DataParallel script.
"""
import os
import re
import subprocess
import sys
import textwrap

import pytest

from _rg_helpers import ROOT, SCRIPTS, guard_env, run_until_clean_shutdown

SAMPLES = os.path.join(ROOT, "samples")
REPORT_HEADER = "runtime_guard report"

# A script that cannot start with `import runtime_guard`: the __future__ import must come first.
FUTURE_SCRIPT = """\
from __future__ import annotations

import sys

import __main__
from sibling import greeting  # found through sys.path[0], the script's directory


def scale(x: Tensor, factor: float = 2.0) -> Tensor:  # noqa: F821  (annotations stay strings)
    return x


print("name", __name__, "main module is this one", __main__.__dict__ is globals())
print("argv", sys.argv)
print("path0", sys.path[0])
print("file", __file__, "spec", __spec__, "package", __package__)
print("annotations", scale.__annotations__)
print("sibling", greeting())

if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "exit3":
        sys.exit(3)
    if command == "raise":
        def inner():
            raise ValueError("raised by the user's line")
        inner()
    print("main block ran")
"""

# No __future__ import: the runner's compiler flags must not leak in (annotations evaluated).
TRACEBACK_SCRIPT = """\
def check(x: int) -> int:
    return x


print("annotations", check.__annotations__)


def load(path):
    return open(path).read()


load("/nonexistent/file/of/the/user")
"""

SYNTAX_ERROR_SCRIPT = "x = (1,\nprint(x)\n"


def _run(args, cwd, timeout=240, **env):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=guard_env(**env),
                          capture_output=True, text=True, timeout=timeout)


def _before_report(stderr):
    """stderr without the guard's table (printed at exit, after anything the script wrote)."""
    head, _, _ = stderr.partition(REPORT_HEADER)
    return head


def _assert_same(plain, guarded):
    assert guarded.returncode == plain.returncode, (plain.stderr, guarded.stderr)
    assert guarded.stdout == plain.stdout
    assert _before_report(guarded.stderr) == _before_report(plain.stderr)


@pytest.fixture
def future_dir(tmp_path):
    (tmp_path / "train.py").write_text(FUTURE_SCRIPT)
    (tmp_path / "sibling.py").write_text("def greeting():\n    return 'hello from sibling'\n")
    return tmp_path


@pytest.mark.parametrize("command", ["", "exit3", "raise"])
def test_future_script_runs_as_under_python(future_dir, tmp_path, command):
    # Started from another directory: sys.path[0] must be the script's, not the current one.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = os.path.relpath(future_dir / "train.py", elsewhere)
    args = [command] if command else []
    plain = _run([script, *args], cwd=elsewhere)
    guarded = _run(["-m", "runtime_guard", script, *args], cwd=elsewhere)
    _assert_same(plain, guarded)
    assert f"argv ['{script}'" in guarded.stdout  # the path as given, not made absolute
    assert f"path0 {future_dir}" in guarded.stdout
    assert "spec None" in guarded.stdout and "main module is this one True" in guarded.stdout
    assert "annotations {'x': 'Tensor', 'factor': 'float', 'return': 'Tensor'}" in guarded.stdout
    if command == "exit3":
        assert guarded.returncode == 3 and "main block ran" not in guarded.stdout
    elif command == "raise":
        assert guarded.returncode == 1
        lines = guarded.stderr.splitlines()
        assert lines[0] == "Traceback (most recent call last):"
        assert lines[1].startswith(f'  File "{elsewhere / script}", line ')
        assert "runtime_guard" not in _before_report(guarded.stderr)  # no runner frame at all
        assert 'raise ValueError("raised by the user\'s line")' in lines[-2]
    else:
        assert guarded.returncode == 0 and "main block ran" in guarded.stdout


def test_uncaught_exception_and_syntax_error_point_at_the_users_lines(tmp_path):
    (tmp_path / "crash.py").write_text(TRACEBACK_SCRIPT)
    (tmp_path / "broken.py").write_text(SYNTAX_ERROR_SCRIPT)
    guarded = {}
    for name in ("crash.py", "broken.py"):
        plain = _run([name], cwd=tmp_path)
        guarded[name] = _run(["-m", "runtime_guard", name], cwd=tmp_path)
        _assert_same(plain, guarded[name])
        assert guarded[name].returncode == 1
        assert "runtime_guard" not in _before_report(guarded[name].stderr)
    crash = guarded["crash.py"]
    assert "annotations {'x': <class 'int'>, 'return': <class 'int'>}" in crash.stdout
    frames = [line for line in crash.stderr.splitlines() if line.startswith("  File ")]
    assert frames == [f'  File "{tmp_path / "crash.py"}", line 12, in <module>',
                      f'  File "{tmp_path / "crash.py"}", line 9, in load']
    assert crash.stderr.rstrip().endswith(
        "FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/file/of/the/user'")


def test_missing_script_fails_as_the_interpreter_does(tmp_path):
    plain = _run(["missing.py"], cwd=tmp_path)
    guarded = _run(["-m", "runtime_guard", "missing.py"], cwd=tmp_path)
    _assert_same(plain, guarded)
    assert guarded.returncode == 2 and "can't open file" in guarded.stderr


@pytest.mark.parametrize("sample", ["data_movement.py", "input_pipeline.py"])
def test_samples_run_as_under_python(sample, tmp_path):
    # data_movement.py runs on a CPU; input_pipeline.py stops at its first .to("cuda") on a
    # machine without CUDA: the same error from the same line of the sample either way. (The guard's
    # own wrapper of Tensor.to may show between the sample's frame and torch's, as it does with
    # `import runtime_guard`; the runner adds none.)
    path = os.path.join(SAMPLES, sample)
    plain = _run([path], cwd=tmp_path)
    guarded = _run(["-m", "runtime_guard", path], cwd=tmp_path)
    assert guarded.returncode == plain.returncode
    assert guarded.stdout == plain.stdout
    plain_err, guarded_err = _before_report(plain.stderr), _before_report(guarded.stderr)
    assert guarded_err.splitlines()[-1:] == plain_err.splitlines()[-1:]
    assert _frames(guarded_err, SAMPLES) == _frames(plain_err, SAMPLES)
    assert "runtime_guard/runner.py" not in guarded_err
    if plain.returncode:
        assert _frames(guarded_err, SAMPLES)[0].startswith(f'  File "{path}", line ')


def _frames(stderr, under):
    return [line for line in stderr.splitlines() if line.startswith(f'  File "{under}')]


def test_module_mode_runs_as_python_dash_m(tmp_path):
    package = tmp_path / "toolkit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "cli.py").write_text(textwrap.dedent("""\
        import sys
        print("name", __name__, "spec", __spec__.name, "package", __package__)
        print("argv", sys.argv, "path0", sys.path[0])
        from . import __name__ as parent  # relative imports work: __package__ is set
        print("parent", parent)
        if __name__ == "__main__":
            sys.exit(int(sys.argv[1]))
        """))
    plain = _run(["-m", "toolkit.cli", "4", "x"], cwd=tmp_path)
    guarded = _run(["-m", "runtime_guard", "-m", "toolkit.cli", "4", "x"], cwd=tmp_path)
    _assert_same(plain, guarded)
    assert guarded.returncode == 4
    assert "name __main__ spec toolkit.cli package toolkit" in guarded.stdout
    assert f"argv ['{package / 'cli.py'}', '4', 'x'] path0 {tmp_path}" in guarded.stdout
    missing = _run(["-m", "runtime_guard", "-m", "toolkit.nothing"], cwd=tmp_path)
    assert missing.returncode == 1 and "No module named toolkit.nothing" in missing.stderr
    # A directory with a __main__.py, as `python app` runs it.
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text(
        "import sys\nprint(__name__, __spec__.name, sys.argv, sys.path[0])\n")
    plain = _run(["app", "y"], cwd=tmp_path)
    guarded = _run(["-m", "runtime_guard", "app", "y"], cwd=tmp_path)
    _assert_same(plain, guarded)
    assert guarded.stdout == f"__main__ __main__ ['app', 'y'] {tmp_path / 'app'}\n"


LOADER_SCRIPT = """\
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):  # defined in __main__: workers must find it there
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([float(i * i)])


if __name__ == "__main__":
    for context in (None, "spawn"):
        loader = DataLoader(Squares(), batch_size=4, num_workers=2, multiprocessing_context=context)
        print(context, [batch.flatten().tolist() for batch in loader])
"""


def test_dataloader_workers_fork_and_spawn(tmp_path):
    # Spawned workers re-import __main__ by its path (multiprocessing reads __main__.__file__):
    # with the runner's module as __main__ they would not find Squares.
    (tmp_path / "loaders.py").write_text(LOADER_SCRIPT)
    proc = _run(["-m", "runtime_guard", "loaders.py"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    expected = "[[0.0, 1.0, 4.0, 9.0], [16.0, 25.0, 36.0, 49.0]]"
    assert proc.stdout.splitlines() == [f"None {expected}", f"spawn {expected}"]
    assert REPORT_HEADER in proc.stderr  # the guard was installed (it counted the .tolist() syncs)


def test_options_reinstall_the_guard(tmp_path):
    (tmp_path / "probe.py").write_text(textwrap.dedent("""\
        import runtime_guard
        config = runtime_guard.GUARD.config
        print(runtime_guard.GUARD.installed, config.mode, sorted(runtime_guard.GUARD.fixes))
        print(runtime_guard.GUARD.relaunch_target)  # handed down to the DDP fix
        """))
    proc = _run(["-m", "runtime_guard", "--mode", "warn", "--fixes=TPL401,sync_report", "probe.py", "a"],
                cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "True warn ['cudnn_flags', 'sync_report']",
        # What a relaunch under torchrun puts in place of the script (sys.argv[1:] follows).
        "['-m', 'runtime_guard', '--mode', 'warn', '--fixes=TPL401,sync_report', 'probe.py']"]
    off = _run(["-m", "runtime_guard", "--mode", "off", "probe.py"], cwd=tmp_path)
    assert off.stdout.splitlines()[0] == "False off []"
    bad = _run(["-m", "runtime_guard", "--nope", "probe.py"], cwd=tmp_path)
    assert bad.returncode == 2 and "unknown option --nope" in bad.stderr and bad.stdout == ""


def test_parse_stops_at_the_target(guard):  # guard: imported without installing it here
    from runtime_guard.runner import UsageError, parse

    assert parse(["--mode", "warn", "train.py", "--mode", "x"]) == (
        {"--mode": "warn"}, "train.py", False, ["--mode", "x"])
    assert parse(["--report=r.json", "-m", "pkg.mod", "-m", "y"]) == (
        {"--report": "r.json"}, "pkg.mod", True, ["-m", "y"])
    assert parse(["--", "--odd-name.py", "a"]) == ({}, "--odd-name.py", False, ["a"])
    for bad in ([], ["--mode"], ["-m"], ["--what", "x.py"], ["-x", "x.py"]):
        with pytest.raises(UsageError):
            parse(bad)


def _torchrun(args, cwd, **env):
    """torchrun with 2 CPU processes, run again while it died only of the gloo shutdown SIGABRT."""
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    return run_until_clean_shutdown([torchrun, "--standalone", "--nproc_per_node=2", *args],
                                    env=guard_env(**env), cwd=cwd)


def test_torchrun_runs_the_script_through_the_runner(tmp_path, capsys):
    script = os.path.join(SCRIPTS, "runner_dp_train.py")
    report = tmp_path / "report.json"
    proc = _torchrun(["-m", "runtime_guard", "--report", str(report), script, "--epochs", "2"],
                     cwd=tmp_path)
    # Found anywhere in the shared stdout, so another rank's output on the same line cannot hide one.
    lines = sorted(re.findall(r"rank=\d name=.*? checksum=-?\d+\.\d{12}", proc.stdout))
    assert len(lines) == 2, (proc.returncode, proc.stdout, proc.stderr)
    for rank, line in enumerate(lines):
        assert line.startswith(f"rank={rank} name=__main__ argv=['{script}', '--epochs', '2'] "
                               "file=runner_dp_train.py type=DataParallelDDP")  # a DDP that is also a DataParallel
        # 32 samples, batch 4, sharded over 2 ranks by the guard.
        assert " batches=4 " in line
    # Different seeds per rank, equal parameters at the end: DDP synchronised the gradients.
    assert lines[0].split("checksum=")[1] == lines[1].split("checksum=")[1]
    # One report per rank, the rank in the name.
    import json

    for rank in (0, 1):
        items = json.loads((tmp_path / f"report.rank{rank}.json").read_text())
        assert {item["rank"] for item in items} == {rank}
        ddp = [item for item in items if item["code"] == "TPL201" and item["action"] == "fixed"]
        assert any(item["location"]["row"] == 27 and item["filename"] == script for item in ddp)
        assert {item["steps"] for item in items} == {8}  # 4 sharded batches x 2 epochs
    # The linter reads both files when given the name the run was given.
    from torchperf_lint.frontends import cli

    capsys.readouterr()
    # The script lives under tests/, which the linter skips unless asked.
    cli.main(["check", "--no-cache", "--jobs", "1", "--include-tests", "--runtime-report", str(report), script])
    out = capsys.readouterr().out
    assert "runner_dp_train.py:27:13: TPL201 " in out
    assert "(confirmed at run time: fixed 2 times over 2 ranks)" in out
    # The parameter checksum syncs 4 times per rank after training, not at every step: no finding.
    assert "runner_dp_train.py:36:" not in out


def test_relaunch_under_the_runner_keeps_the_guard(monkeypatch):
    """RUNTIME_GUARD_LAUNCH=1 from `python -m runtime_guard train.py` relaunches every rank through
    the runner again, with its options: a plain `torchrun train.py` would run without the guard."""
    from runtime_guard import runner
    from runtime_guard.fixes import ddp

    monkeypatch.setattr(sys, "argv", ["train.py", "--epochs", "2"])
    monkeypatch.setattr(runner, "_invocation", None)
    assert ddp.torchrun_command(2, runner.relaunch_target()) == [
        "torchrun", "--standalone", "--nproc_per_node=2", "train.py", "--epochs", "2"]
    monkeypatch.setattr(runner, "_invocation", ["--mode", "warn", "train.py"])
    assert ddp.torchrun_command(2, runner.relaunch_target()) == [
        "torchrun", "--standalone", "--nproc_per_node=2", "-m", "runtime_guard", "--mode", "warn",
        "train.py", "--epochs", "2"]


def test_help_prints_argparse_usage(tmp_path):
    proc = _run(["-m", "runtime_guard", "--help"], cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == "usage: python -m runtime_guard [OPTIONS] (script.py | -m module) [ARGS...]"
    for option in ("--mode {off,warn,fix}", "--fixes LIST", "--skip LIST", "--device DEVICE",
                   "--amp {bf16,fp16}", "--report PATH", "-m module", "-h, --help"):
        assert any(line.strip().startswith(option) for line in lines), option
    assert "Processes it starts" in proc.stdout  # the help says children are guarded
    assert '"""' not in proc.stdout and "Runs the target as" not in proc.stdout  # not the docstring
