"""A file whose analysis kills its worker process (a native parser crash) is reported as TPL900 and
every other file is still checked: the process pool breaking must not lose the run."""

import subprocess
import sys
import textwrap

# Runs the real CLI with the engine patched to die by SIGSEGV on a marker, as libcst's native parser
# does on some inputs. Worker processes are forked, so they inherit the patch.
DRIVER = textwrap.dedent("""
    import os, signal, sys
    from torchperf_lint.frontends import runner, cli

    real_analyse = runner.analyse

    def analyse(source, filename, codes, *args):
        if "CRASH_THE_WORKER" in source:
            os.kill(os.getpid(), signal.SIGSEGV)
        return real_analyse(source, filename, codes, *args)

    runner.analyse = analyse
    sys.exit(cli.main(sys.argv[1:]))
""")


def test_a_crashing_file_is_reported_and_the_rest_checked(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for i in range(12):
        (project / f"good_{i:02d}.py").write_text("import torch\nmodel = torch.nn.DataParallel(net)\n")
    (project / "crash.py").write_text("import torch\n# CRASH_THE_WORKER\nmodel = torch.nn.DataParallel(net)\n")
    (tmp_path / "driver.py").write_text(DRIVER)
    result = subprocess.run(
        [sys.executable, str(tmp_path / "driver.py"), "check", "--no-cache", "--jobs", "2", "."],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    for i in range(12):
        assert f"good_{i:02d}.py:2:9: TPL201 `nn.DataParallel` runs one Python thread" in result.stdout
    crash = [line for line in lines if line.startswith("crash.py:")]
    assert crash == ["crash.py:1:1: TPL900 could not analyse this file: the analysis crashed its "
                     "process (signal 11); the other files were checked"], lines
