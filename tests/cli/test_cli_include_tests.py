"""The CLI skips unit-test files unless ``include-tests`` (pyproject) or ``--include-tests``."""

from _cli_helpers import DATA_PARALLEL

NAMES = ("tests/test_model.py", "tests/helpers.py", "test_train.py", "pkg/conftest.py", "test.py", "train.py")


def reported(out):
    return sorted({line.split(":")[0] for line in out.splitlines() if "TPL201" in line})


def test_test_files_are_skipped_by_default(project):
    for name in NAMES:
        project.write(name, DATA_PARALLEL)
    code, out, _ = project.run("--no-cache")
    assert code == 1
    assert reported(out) == ["test.py", "train.py"]


def test_include_tests_flag(project):
    for name in NAMES:
        project.write(name, DATA_PARALLEL)
    code, out, _ = project.run("--no-cache", "--include-tests")
    assert reported(out) == sorted(NAMES)


def test_include_tests_in_pyproject(project):
    for name in NAMES:
        project.write(name, DATA_PARALLEL)
    project.config("include-tests = true\n")
    code, out, _ = project.run()
    assert reported(out) == sorted(NAMES)


def test_cached_results_follow_the_setting(project):
    project.write("tests/test_model.py", DATA_PARALLEL)
    assert project.run()[0] == 0
    assert project.run("--include-tests")[0] == 1
    assert project.run()[0] == 0


def test_a_test_file_named_on_the_command_line_is_still_skipped(project):
    project.write("tests/test_model.py", DATA_PARALLEL)
    assert project.run("tests/test_model.py")[0] == 0
    assert project.run("--include-tests", "tests/test_model.py")[0] == 1


def test_include_tests_must_be_a_boolean(project):
    project.config('include-tests = "yes"\n')
    code, _, err = project.run()
    assert code == 2 and "include-tests" in err
