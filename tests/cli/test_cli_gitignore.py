"""Files git ignores are skipped, as in ruff; without git or outside a repository nothing changes."""

import shutil
import subprocess

import pytest
from _cli_helpers import DATA_PARALLEL

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _files(project):
    project.write("a.py", DATA_PARALLEL)
    project.write("secret.py", DATA_PARALLEL)
    project.write("scratch/b.py", DATA_PARALLEL)
    (project.root / ".gitignore").write_text("scratch/\nsecret.py\n")


def _reported(out):
    return sorted({line.split(":")[0] for line in out.splitlines() if ": TPL" in line})


@needs_git
def test_gitignored_files_are_skipped(project):
    subprocess.run(["git", "init", "-q", "."], cwd=project.root, check=True)
    _files(project)
    assert _reported(project.run("--no-cache")[1]) == ["a.py"]
    assert _reported(project.run("--no-cache", "--no-respect-gitignore")[1]) == ["a.py", "scratch/b.py", "secret.py"]
    # a file named on the command line is checked (ruff's rule), unless --force-exclude
    assert _reported(project.run("--no-cache", "secret.py")[1]) == ["secret.py"]
    assert _reported(project.run("--no-cache", "--force-exclude", "secret.py")[1]) == []
    project.config("respect-gitignore = false\n")
    assert len(_reported(project.run("--no-cache")[1])) == 3


def test_outside_a_repository_nothing_is_skipped(project):
    _files(project)  # a .gitignore, but no repository
    assert len(_reported(project.run("--no-cache")[1])) == 3


def test_without_git_nothing_is_skipped(project, monkeypatch):
    _files(project)
    monkeypatch.setenv("PATH", "")  # git cannot be found
    code, out, err = project.run("--no-cache")
    assert len(_reported(out)) == 3 and "Traceback" not in err
