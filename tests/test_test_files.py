"""Unit-test files get no finding by default (flake8 and CLI); a setting turns them on."""

import subprocess
import sys
import textwrap

import pytest

from torchperf_lint.frontends.test_files import is_test_file

DATA_PARALLEL = "import torch\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n"


@pytest.mark.parametrize("path", [
    "test_train.py", "train_test.py", "conftest.py", "tests/helpers.py", "test/model.py",
    "pkg/tests/unit/data.py", "src/test/test.py",
])
def test_test_files(path, tmp_path):
    assert is_test_file(str(tmp_path / path), str(tmp_path))


@pytest.mark.parametrize("path", [
    "test.py",  # the evaluation script of many research repositories
    "train.py", "testing/train.py", "latest_model.py", "contest.py", "tests.py", "my_tests/train.py",
])
def test_files_that_are_linted(path, tmp_path):
    assert not is_test_file(str(tmp_path / path), str(tmp_path))


def test_directories_above_the_root_do_not_count(tmp_path):
    root = tmp_path / "tests" / "project"
    assert not is_test_file(str(root / "train.py"), str(root))
    assert is_test_file(str(root / "tests" / "train.py"), str(root))


def flake8(cwd, *args):
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=TPL", *args],
                            cwd=cwd, capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    return sorted(line.split(":")[0] for line in result.stdout.splitlines())


@pytest.fixture
def tree(tmp_path):
    for name in ("tests/test_model.py", "tests/helpers.py", "test_train.py", "conftest.py", "test.py", "train.py"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(DATA_PARALLEL)
    return tmp_path


def test_flake8_skips_test_files_by_default(tree):
    assert flake8(tree, "--isolated", ".") == ["./test.py", "./train.py"]


def test_flake8_option_turns_them_on(tree):
    assert flake8(tree, "--isolated", "--tpl-include-tests", ".") == [
        "./conftest.py", "./test.py", "./test_train.py", "./tests/helpers.py", "./tests/test_model.py", "./train.py",
    ]


def test_flake8_config_file_turns_them_on(tree):
    (tree / "setup.cfg").write_text(textwrap.dedent("""\
        [flake8]
        tpl-include-tests = true
        """))
    assert len(flake8(tree, ".")) == 6
    (tree / "setup.cfg").write_text("[flake8]\ntpl-include-tests = false\n")
    assert flake8(tree, ".") == ["./test.py", "./train.py"]


# ---- "tests" is judged from the project root down, by both front ends ---------------------------

def cli_reported(cwd, *args):
    result = subprocess.run([sys.executable, "-m", "torchperf_lint.frontends.cli", "check", "--no-cache",
                             "--jobs", "1", *args], cwd=cwd, capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    return sorted(line.split(":")[0] for line in result.stdout.splitlines() if "TPL201" in line)


@pytest.fixture(params=["pyproject.toml", "setup.cfg", "setup.py", ".git"])
def nested_project(tmp_path, request):
    """A project whose parent folders are named tests/ (/tmp/x/tests/proj/), marked by each kind of
    project file in turn."""
    root = tmp_path / "x" / "tests" / "proj"
    for name in ("train.py", "tests/test_model.py", "tests/helpers.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(DATA_PARALLEL)
    marker = root / request.param
    if request.param == ".git":
        marker.mkdir()
    else:
        marker.write_text("")
    return root


def test_flake8_judges_tests_from_the_project_root(nested_project):
    above = nested_project.parent.parent  # /tmp/x: flake8 started above the project
    assert flake8(above, "--isolated", "tests/proj") == ["tests/proj/train.py"]
    assert flake8(nested_project, "--isolated", ".") == ["./train.py"]


def test_cli_judges_tests_from_the_project_root(nested_project):
    above = nested_project.parent.parent
    assert cli_reported(above, "tests/proj") == ["tests/proj/train.py"]
    assert cli_reported(nested_project, ".") == ["train.py"]
    assert cli_reported(nested_project, "train.py", "tests/helpers.py") == ["train.py"]
