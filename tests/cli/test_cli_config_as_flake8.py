"""The CLI reads flake8's configuration as flake8 itself does: each quirk is checked by running
flake8 (with this plugin) and the CLI on the same tree and comparing what each reports."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _cli_helpers import DATA_PARALLEL

from torchperf_lint.frontends import cli


def _flake8(root: Path):
    """(path, line, code) of the TPL findings flake8 reports for the tree, run from its root."""
    done = subprocess.run([sys.executable, "-m", "flake8", "--format=%(path)s|%(row)d|%(code)s", "."],
                          cwd=root, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    found = set()
    for line in done.stdout.splitlines():
        path, row, code = line.split("|")
        if code.startswith("TPL"):
            found.add((path[2:] if path.startswith("./") else path, int(row), code))
    return found


def _cli(project):
    code, out, err = project.run("--no-cache", "--output-format", "json", ".")
    assert code in (0, 1), err
    return {(Path(item["filename"]).relative_to(project.root).as_posix(), item["location"]["row"], item["code"])
            for item in json.loads(out)}


def _tree(project, config_name: str, config: str, files):
    (project.root / config_name).write_text(textwrap.dedent(config))
    for name in files:
        project.write(name, DATA_PARALLEL)


@pytest.fixture
def flake8_project(project):
    (project.root / "pyproject.toml").unlink()
    return project


def _same(project, expected):
    flake8 = _flake8(project.root)
    assert flake8 == expected  # the test's premise: what flake8 itself reports
    assert _cli(project) == expected


def test_dot_slash_exclude(flake8_project):
    _tree(flake8_project, "setup.cfg", "[flake8]\nexclude = ./vendor, ./build/gen/\n",
          ["a.py", "vendor/v.py", "sub/vendor/w.py", "build/gen/g.py"])
    # ./vendor is the folder next to setup.cfg only; sub/vendor is not excluded
    _same(flake8_project, {("a.py", 3, "TPL201"), ("sub/vendor/w.py", 3, "TPL201")})


def test_relative_exclude_with_a_slash_is_from_the_config_folder(flake8_project):
    _tree(flake8_project, "tox.ini", "[flake8]\nextend-exclude = pkg/generated\n",
          ["pkg/generated/g.py", "pkg/real.py", "other/pkg/generated/h.py"])
    _same(flake8_project, {("pkg/real.py", 3, "TPL201"), ("other/pkg/generated/h.py", 3, "TPL201")})


def test_dot_slash_per_file_ignores(flake8_project):
    _tree(flake8_project, ".flake8", "[flake8]\nper-file-ignores = ./src/*:TPL201\n",
          ["src/a.py", "src/deep/b.py", "lib/src/c.py"])
    # fnmatch's * crosses folders: src/deep is covered too; lib/src is not
    _same(flake8_project, {("lib/src/c.py", 3, "TPL201")})


def test_per_file_ignores_only_the_longest_matching_pattern_counts(flake8_project):
    _tree(flake8_project, "setup.cfg", textwrap.dedent("""\
        [flake8]
        per-file-ignores =
            src/*: TPL201
            src/special/*: E501
    """), ["src/a.py", "src/special/b.py"])
    # flake8 applies one per-file entry, the longest that matches: src/special/b.py keeps TPL201
    _same(flake8_project, {("src/special/b.py", 3, "TPL201")})


def test_tpl_include_tests_in_setup_cfg(flake8_project):
    _tree(flake8_project, "setup.cfg", "[flake8]\ntpl-include-tests = true\n", ["tests/test_a.py", "b.py"])
    _same(flake8_project, {("tests/test_a.py", 3, "TPL201"), ("b.py", 3, "TPL201")})


def test_flake8_exclusion_holds_next_to_our_own_table(project):
    # A [tool.torchperf-lint] table without `exclude` does not undo what flake8 excludes: --fix must
    # not rewrite files flake8 never checks.
    project.config('ignore = ["TPL3"]\n')
    _tree(project, "setup.cfg", "[flake8]\nexclude = ./third_party\n", ["a.py", "third_party/t.py"])
    _same(project, {("a.py", 3, "TPL201")})


def test_a_dot_slash_pattern_in_our_own_table(project):
    project.config('exclude = ["./vendor"]\n[tool.torchperf-lint.per-file-ignores]\n"./src/*" = ["TPL201"]\n')
    for name in ("a.py", "vendor/v.py", "src/s.py"):
        project.write(name, DATA_PARALLEL)
    assert _cli(project) == {("a.py", 3, "TPL201")}


LONG_FIX = """\
import torch


def make(device):
    value = torch.arange(6, dtype=torch.float32).to(device)
    return value
"""


def test_the_cache_follows_the_line_length(project):
    # The same file, unchanged, under another max-line-length: the fix's layout follows the setting
    # (before, the cache served the edits laid out for the old one).
    project.write("a.py", LONG_FIX)
    cache = ["--cache-dir", str(project.root / "cache"), "--output-format", "json"]

    def edits():
        code, out, err = project.run(*cache)
        assert code == 1, err
        (item,) = json.loads(out)
        return [edit["content"] for edit in item["fix"]["edits"]]

    (project.root / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n")
    wide = edits()
    (project.root / "setup.cfg").write_text("[flake8]\nmax-line-length = 60\n")
    narrow = edits()
    assert all("\n" not in content for content in wide)
    assert narrow != wide and any("\n" in content for content in narrow)  # one argument per line
    (project.root / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n")
    assert edits() == wide


def test_cache_key_has_the_settings_that_change_findings(tmp_path):
    from torchperf_lint.frontends.cache import cache_key
    from torchperf_lint.frontends.config import Config

    def key(codes=("TPL101",), line_length=88, **fields):
        return cache_key(codes, cli.cache_settings(Config(**fields), line_length))

    assert key() == key(path=tmp_path / "setup.cfg", root=tmp_path)  # where it was read: not a setting
    assert key() != key(line_length=100)
    assert key() != key(include_tests=True)
    assert key() != key(codes=("TPL101", "TPL102"))


def _git(root: Path, *args: str):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "protocol.file.allow=always",
                    *args], cwd=root, check=True, capture_output=True)


def test_gitignore_holds_in_a_tree_with_a_submodule(project, tmp_path):
    library = tmp_path / "library"
    library.mkdir()
    (library / ".gitignore").write_text("generated_*.py\n")
    (library / "lib.py").write_text(DATA_PARALLEL)
    _git(library, "init", "-q")
    _git(library, "add", ".")
    _git(library, "commit", "-qm", "library")
    root = project.root
    (root / ".gitignore").write_text("scratch/\n")
    project.write("a.py", DATA_PARALLEL)
    project.write("scratch/s.py", DATA_PARALLEL)
    _git(root, "init", "-q")
    _git(root, "submodule", "add", "-q", str(library), "lib")
    project.write("lib/generated_x.py", DATA_PARALLEL)
    # the outer repository's .gitignore still holds (scratch/), the submodule's holds for its files
    assert _cli(project) == {("a.py", 3, "TPL201"), ("lib/lib.py", 3, "TPL201")}


def test_gitignore_of_the_outer_repository_covers_a_nested_clone(project, tmp_path):
    root = project.root
    (root / ".gitignore").write_text("third_party/\n")
    project.write("a.py", DATA_PARALLEL)
    project.write("third_party/dep/d.py", DATA_PARALLEL)
    _git(root, "init", "-q")
    _git(root / "third_party" / "dep", "init", "-q")
    assert _cli(project) == {("a.py", 3, "TPL201")}


def test_extend_exclude_on_the_command_line(flake8_project):
    for name in ("a.py", "vendor/v.py", "sub/vendor/w.py", "gen/g.py"):
        flake8_project.write(name, DATA_PARALLEL)
    args = ["--extend-exclude", "./vendor,gen/"]
    done = subprocess.run([sys.executable, "-m", "flake8", "--format=%(path)s", *args, "."],
                          cwd=flake8_project.root, capture_output=True, text=True)
    assert sorted(set(done.stdout.split())) == ["./a.py", "./sub/vendor/w.py"]
    code, out, err = flake8_project.run("--no-cache", "--output-format", "json", *args, ".")
    assert sorted({Path(item["filename"]).relative_to(flake8_project.root).as_posix()
                   for item in json.loads(out)}) == ["a.py", "sub/vendor/w.py"]
