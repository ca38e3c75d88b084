"""The pre-commit hooks, end to end: ``pre-commit try-repo`` of this repository in a scratch git repo.

pre-commit installs the package from the repository's committed HEAD into its own virtualenv (pip
fetches libcst and flake8), so this takes a minute and needs the package index.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = shutil.which("pre-commit") or (
    str(Path(sys.executable).parent / "pre-commit") if (Path(sys.executable).parent / "pre-commit").exists() else None
)

pytestmark = pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (pip install pre-commit)")

BAD = "import torch\n\ndef make(device):\n    return torch.zeros(3).to(device)\n"
EXCLUDED = "import torch\nm = torch.nn.DataParallel(m)\n"


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def try_repo(hook: str, repo: Path, ref: str, home: Path):
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [PRE_COMMIT, "try-repo", str(ROOT), hook, "--ref", ref, "--all-files", "--verbose"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=900,
    )
    return done.returncode, done.stdout + done.stderr


def test_pre_commit_hooks(tmp_path):
    # The hooks as committed: HEAD of this repository (`--ref` makes pre-commit use it as is).
    ref = git("rev-parse", "HEAD", cwd=ROOT)
    committed = subprocess.run(["git", "cat-file", "-e", f"{ref}:.pre-commit-hooks.yaml"], cwd=ROOT)
    assert committed.returncode == 0, ".pre-commit-hooks.yaml is not committed"
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "train.py").write_text(BAD)
    (repo / "build").mkdir()
    (repo / "build" / "generated.py").write_text(EXCLUDED)  # excluded by default, even when named
    git("add", ".", cwd=repo)
    home = tmp_path / "pre-commit-home"

    code, out = try_repo("torchperf-lint", repo, ref, home)
    assert code == 1, out
    assert "train.py:4:12: TPL101 [*]" in out, out
    assert "TPL201" not in out, out  # build/generated.py: excluded although pre-commit names it

    code, out = try_repo("torchperf-lint-fix", repo, ref, home)
    assert code == 1, out  # it changed a file
    assert "files were modified by this hook" in out, out
    assert "torch.zeros(3, device=device)" in (repo / "train.py").read_text()

    code, out = try_repo("torchperf-lint-fix", repo, ref, home)
    assert code == 0, out
    code, out = try_repo("torchperf-lint", repo, ref, home)
    assert code == 0, out
    assert "TPL201" not in out
