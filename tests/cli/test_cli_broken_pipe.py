"""`torchperf-lint ... | head`: a reader that closes the pipe early ends the run quietly.

The CLI runs in a child process whose stdout is a real pipe, as under a shell; the test closes its
end before (or while) the CLI writes, as `head` does once it has its lines."""

import subprocess
import sys

from _cli_helpers import DATA_PARALLEL

# Enough findings (about 100 KiB of report) that writing them fills a pipe buffer (64 KiB on Linux)
# and meets the closed end even if the reader read some lines first.
MANY_FINDINGS = "import torch\n\n" + "".join(
    f"model_{i} = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n" for i in range(800)
)


def _run_and_close_early(args, cwd, read_lines):
    child = subprocess.Popen(
        [sys.executable, "-m", "torchperf_lint.frontends.cli", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    head = [child.stdout.readline() for _ in range(read_lines)]
    child.stdout.close()  # what `head -n N` does after N lines
    _, err = child.communicate(timeout=120)
    return child.returncode, head, err.decode()


def test_check_into_closed_pipe_exits_quietly_with_the_findings_status(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    (tmp_path / "many.py").write_text(MANY_FINDINGS)
    (tmp_path / "dp.py").write_text(DATA_PARALLEL)
    code, head, err = _run_and_close_early(["check", "--jobs", "1", "--no-cache", "."], tmp_path, 2)
    assert [line.split(b" ")[1] for line in head] == [b"TPL201", b"TPL201"]  # the lines head wanted came
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code == 1  # findings: the status is kept although the report was cut short


def test_rule_listing_into_closed_pipe_exits_quietly(tmp_path):
    # Closed before the CLI writes anything: the small listing meets the closed pipe at the flush.
    code, _, err = _run_and_close_early(["rule", "--all"], tmp_path, 0)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    # 2: the command could not write its output (0 only if the listing reached the pipe first)
    assert code in (0, 2)
