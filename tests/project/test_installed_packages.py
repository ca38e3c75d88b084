"""A file installed in a Python environment belongs to its package, not to the repository that holds
the environment (a ``.venv`` inside the project, as uv makes it): its project root is found below
the environment, and the repository's files are never read as its importers."""

from __future__ import annotations

import os
import textwrap

import pytest

from torchperf_lint.analysis import project_index
from torchperf_lint.analysis.project_root import find_project_root, inside_environment
from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC

LOOP = textwrap.dedent("""\
    import torch
    from .metrics import log_metrics


    def fit(model, loader, opt):
        for x in loader:
            loss = model(x).sum()
            loss.backward()
            opt.step()
            log_metrics(loss)
    """)
METRICS = textwrap.dedent("""\
    import torch


    def log_metrics(loss):
        print(loss.item())
    """)
# The repository's own script: its import line names the installed module ``metrics``, so a listing
# of the repository would make it a candidate importer of it (read and summarised to find out).
REPO_TRAIN = textwrap.dedent("""\
    import torch
    from metrics import log_metrics


    def main(model, loader, opt):
        for x in loader:
            loss = model(x).sum()
            loss.backward()
            opt.step()
            log_metrics(loss)
    """)


def _installed(repo, environment: str):
    """Write the repository and a package ``pkg`` installed under ``environment`` inside it."""
    (repo / "pyproject.toml").write_text("")
    (repo / "train.py").write_text(REPO_TRAIN)
    package = repo / environment / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "loop.py").write_text(LOOP)
    (package / "metrics.py").write_text(METRICS)
    return package


@pytest.mark.parametrize("environment,marker", [
    (".venv/lib/python3.11/site-packages", ".venv/pyvenv.cfg"),  # python -m venv, uv
    ("env/lib/python3.11/site-packages", None),  # conda: no pyvenv.cfg, site-packages named
    ("sandbox/lib", "sandbox/pyvenv.cfg"),  # a virtual environment's folder by its marker alone
    ("usr/lib/python3/dist-packages", None),  # Debian's system packages
])
def test_an_installed_file_is_linted_with_its_package_not_the_repository(tmp_path, monkeypatch, environment, marker):
    repo = tmp_path / "repo"
    repo.mkdir()
    package = _installed(repo, environment)
    if marker:
        (repo / marker).write_text("home = /usr/bin\n")
    monkeypatch.chdir(repo)  # flake8 or an editor started in the repository
    metrics = package / "metrics.py"
    assert inside_environment(str(metrics))
    assert not inside_environment(str(repo / "train.py"))
    assert find_project_root(str(metrics)) is None
    assert find_project_root(str(repo / "train.py")) == str(repo)
    found = [(f.code, f.line, f.message) for f in lint_source(metrics.read_text(), str(metrics))]
    # the package's own loop still reaches its helper: facts across the package's files hold
    assert found == [("TPL102", 5, SYNC + " (called every step from loop.py:10)")]
    project = project_index.project_for(str(metrics))
    assert project.root == str(package)
    assert project.parsed == 1  # loop.py; never the repository's train.py
    assert str(repo / "train.py") not in project._modules


def test_a_repository_file_keeps_the_repository_as_its_project(tmp_path, monkeypatch):
    """The boundary is the environment's: a project's own ``env/`` or ``lib/`` folder without a
    ``pyvenv.cfg`` is part of it."""
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("")
    (repo / "lib" / "__init__.py").write_text("")
    (repo / "lib" / "metrics.py").write_text(METRICS)
    (repo / "train.py").write_text(REPO_TRAIN.replace("from metrics import", "from lib.metrics import"))
    monkeypatch.chdir(repo)
    metrics = repo / "lib" / "metrics.py"
    assert not inside_environment(str(metrics))
    found = [(f.code, f.line, f.message) for f in lint_source(metrics.read_text(), str(metrics))]
    assert found == [("TPL102", 5, SYNC + " (called every step from train.py:10)")]
    assert project_index.project_for(str(metrics)).root == str(repo)


def test_a_marker_inside_the_installed_package_still_counts(tmp_path, monkeypatch):
    """An installed folder that carries its own ``pyproject.toml`` (an sdist unpacked there) is
    its own project; the boundary only stops the walk at the environment."""
    repo = tmp_path / "repo"
    repo.mkdir()
    package = _installed(repo, ".venv/lib/python3.11/site-packages")
    (package / "setup.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert find_project_root(str(package / "metrics.py")) == str(package)
    assert project_index.project_for(str(package / "metrics.py")).root == str(package)
    assert os.path.isdir(project_index.project_for(str(package / "metrics.py")).root)


def test_a_run_asks_once_per_folder_whether_it_is_installed(tmp_path, monkeypatch):
    """Without a marker every file of a project (kornia's wheel) asks whether its folder is in an
    environment: a front end's run (its memo of roots) remembers the answer per folder; an
    editor's server (no memo) looks each time, so a virtual environment made later counts."""
    folder = tmp_path / "wheel" / "pkg"
    folder.mkdir(parents=True)
    asked = []
    real = project_index.inside_environment
    monkeypatch.setattr(project_index, "inside_environment", lambda path: asked.append(path) or real(path))
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # (the files' own folder is their project)
    try:
        project_index.configure_root_memo({})
        for name in ("a.py", "b.py", "a.py"):
            assert project_index.find_root(str(folder / name)) == str(folder)
        assert asked == [str(folder)]
        project_index.configure_root_memo(None)
        for name in ("a.py", "b.py"):
            project_index.find_root(str(folder / name))
        assert asked == [str(folder)] * 3
        (tmp_path / "wheel" / "pyvenv.cfg").write_text("")
        assert project_index.find_root(str(folder / "a.py")) == str(folder)
        assert inside_environment(str(folder / "a.py"))
    finally:
        project_index.configure_root_memo(None)
