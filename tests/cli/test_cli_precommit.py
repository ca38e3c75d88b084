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


def readme_local_config() -> str:
    """The `repo: local` .pre-commit-config.yaml block of the README, as written there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("\n```", 1)[0] for b in text.split("```yaml\n")[1:]]
    local = [b for b in blocks if "repo: local" in b]
    assert len(local) == 1, "the README shows one `repo: local` pre-commit configuration"
    return local[0] + "\n"


def test_readme_local_hooks(tmp_path):
    """The README's `repo: local` hooks, run by pre-commit with torchperf-lint installed (this
    interpreter's bin folder first on PATH): no package index needed."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(readme_local_config())
    (repo / "train.py").write_text(BAD)
    (repo / "model.py").write_text("import torch\nm = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n")
    (repo / "build").mkdir()
    (repo / "build" / "generated.py").write_text(EXCLUDED)  # excluded by default, even when named
    git("add", ".", cwd=repo)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "home"), PRE_COMMIT_COLOR="never",
               PATH=os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))))

    def run():
        done = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=300)
        return done.returncode, done.stdout + done.stderr

    code, out = run()
    assert code == 1, out
    assert "torchperf-lint (fix)" in out and "files were modified by this hook" in out, out
    assert (repo / "train.py").read_text() == BAD.replace("torch.zeros(3).to(device)", "torch.zeros(3, device=device)")
    assert "model.py:2:5: TPL201" in out, out  # no fix: the check hook reports it
    assert "generated.py" not in out, out
    (repo / "model.py").write_text("import torch\n")
    code, out = run()
    assert code == 0, out
