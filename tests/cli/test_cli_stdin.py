"""`torchperf-lint check -` reads standard input, checked as --stdin-filename; with --fix the fixed
text goes to stdout (as ruff), the report to stderr."""

import subprocess
import sys

SOURCE = (
    "import torch\n"
    "def f(device):\n"
    "    return torch.zeros(3).to(device)\n"
    "m = torch.nn.DataParallel(n)\n"
)


def run(cwd, *args, data=SOURCE):
    return subprocess.run(
        [sys.executable, "-m", "torchperf_lint.frontends.cli", "check", *args],
        input=data.encode(), cwd=cwd, capture_output=True, timeout=300,
    )


def test_stdin_is_checked_under_its_name_and_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchperf-lint]\n[tool.torchperf-lint.per-file-ignores]\n"legacy/*" = ["TPL201"]\n'
    )
    result = run(tmp_path, "-", "--stdin-filename", "src/train.py")
    out = result.stdout.decode()
    assert result.returncode == 1
    assert "src/train.py:3:12: TPL101" in out and "src/train.py:4:5: TPL201" in out
    # per-file-ignores follow the name given
    out = run(tmp_path, "-", "--stdin-filename", "legacy/old.py").stdout.decode()
    assert "TPL201" not in out and "legacy/old.py:3:12: TPL101" in out
    # without a name: reported as "-"
    assert "-:4:5: TPL201" in run(tmp_path, "-").stdout.decode()


def test_stdin_fix_writes_the_fixed_text_to_stdout(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    result = run(tmp_path, "--fix", "-", "--stdin-filename", "train.py")
    assert result.stdout.decode() == SOURCE.replace("torch.zeros(3).to(device)", "torch.zeros(3, device=device)")
    err = result.stderr.decode()
    assert "Fixed 1 finding." in err and "train.py:4:5: TPL201" in err
    assert result.returncode == 1  # TPL201 is left
    assert not (tmp_path / "train.py").exists()  # nothing written
    # a clean input comes back unchanged
    clean = "import torch\nx = torch.zeros(3)\n"
    result = run(tmp_path, "--fix", "-", "--stdin-filename", "ok.py", data=clean)
    assert result.returncode == 0 and result.stdout.decode() == clean


def test_dash_with_other_paths_is_a_usage_error(tmp_path):
    result = run(tmp_path, "-", "other.py")
    assert result.returncode == 2 and b"standard input" in result.stderr
