"""Bad input is one clear line and exit status 2, never a traceback: configuration files that are
not UTF-8 or cannot be read, malformed runtime reports. Odd whitespace Python accepts is analysed."""

from pathlib import Path

from _cli_helpers import DATA_PARALLEL

from torchperf_lint.engine import fix_source, lint_source
from torchperf_lint.frontends.output import Reported, plural, summary
from torchperf_lint.findings import Finding, Fix

from _diagnostics import ITEM_SYNC as SYNC


def test_pyproject_not_utf8_names_the_file_and_the_byte(project):
    project.write("a.py", DATA_PARALLEL)
    config = project.root / "pyproject.toml"
    config.write_bytes(b'[tool.torchperf-lint]\nselect = ["TPL"]  # caf\xe9\n')
    assert config.read_bytes().index(b"\xe9") == 45
    code, out, err = project.run("--no-cache")
    assert (code, out) == (2, "")
    assert err == (f"torchperf-lint: error: {config}: not valid UTF-8 at byte offset 45 "
                   f"(b'\\xe9': invalid continuation byte)\n")


def test_flake8_config_not_utf8_names_the_file_and_the_byte(project):
    (project.root / "pyproject.toml").unlink()
    project.write("a.py", DATA_PARALLEL)
    config = project.root / "setup.cfg"
    config.write_bytes(b"[flake8]\nmax-line-length = 100\n# \xff\n")
    assert config.read_bytes().index(b"\xff") == 33
    code, out, err = project.run("--no-cache")
    assert (code, out) == (2, "")
    assert err == (f"torchperf-lint: error: {config}: not valid UTF-8 at byte offset 33 "
                   f"(b'\\xff': invalid start byte)\n")


def test_a_setup_cfg_that_does_not_configure_flake8_may_be_in_any_encoding(project):
    # flake8 does not read it either: no reason to fail the run
    (project.root / "setup.cfg").write_bytes(b"[metadata]\nauthor = Jos\xe9\n")
    project.write("a.py", DATA_PARALLEL)
    code, out, err = project.run("--no-cache")
    assert code == 1 and err == "" and "a.py:3:9: TPL201" in out


def test_an_unreadable_config_names_the_file(project, monkeypatch):
    config = project.root / "pyproject.toml"
    real = Path.read_bytes

    def read_bytes(self):
        if self == config:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    project.write("a.py", DATA_PARALLEL)
    code, out, err = project.run("--no-cache")
    assert (code, out) == (2, "")
    assert err == f"torchperf-lint: error: {config}: cannot read it: Permission denied\n"


def _report(project, text: str) -> str:
    project.write("train.py", DATA_PARALLEL)
    path = project.root / "report.json"
    path.write_text(text)
    return path


def _item(row) -> str:
    return ('{"code": "TPL102", "filename": "train.py", "location": {"row": ' + row + ', "column": 1}, '
            '"message": "host sync", "count": 3, "action": "observed"}')


def test_runtime_report_with_a_number_past_any_count(project):
    path = _report(project, "[\n" + _item("3") + ",\n" + _item("1e400") + "\n]\n")
    code, out, err = project.run("--no-cache", "--runtime-report", str(path))
    assert (code, out) == (2, "")
    assert err == f"torchperf-lint: error: --runtime-report {path}: line 3: 1e400 is too large a number\n"


def test_runtime_report_with_nan(project):
    path = _report(project, "[\n" + _item("NaN") + "\n]\n")
    code, out, err = project.run("--no-cache", "--runtime-report", str(path))
    assert (code, out) == (2, "")
    assert err == f"torchperf-lint: error: --runtime-report {path}: line 2: NaN is not a number JSON allows\n"


def test_runtime_report_with_a_nul_byte(project):
    path = _report(project, "[\n" + _item("3").replace("train.py", "train\x00.py") + "\n]\n")
    assert path.read_text().splitlines()[1].index("\x00") + 1 == 38
    code, out, err = project.run("--no-cache", "--runtime-report", str(path))
    assert (code, out) == (2, "")
    assert err == (f"torchperf-lint: error: --runtime-report {path}: line 2: not valid JSON: "
                   f"Invalid control character at (column 38)\n")


def test_runtime_report_with_an_escaped_nul(project):
    path = _report(project, "[\n" + _item("3") + ",\n" + _item("4").replace("train.py", "train\\u0000.py") + "\n]\n")
    code, out, err = project.run("--no-cache", "--runtime-report", str(path))
    assert (code, out) == (2, "")
    assert err == (f"torchperf-lint: error: --runtime-report {path}: line 3: a NUL character (\\u0000) "
                   f"in a string\n")


def test_runtime_report_not_utf8(project):
    path = _report(project, "")
    path.write_bytes(b"[\n" + _item("3").encode().replace(b"host", b"h\xf6st") + b"\n]\n")
    assert path.read_bytes().index(b"\xf6") == 95
    code, out, err = project.run("--no-cache", "--runtime-report", str(path))
    assert (code, out) == (2, "")
    assert err == f"torchperf-lint: error: --runtime-report {path}: line 2: not valid UTF-8 at byte offset 95\n"


LOOP = ("import torch\nmodel = torch.nn.Linear(2, 2).cuda()\nfor x in loader:\n    y = model(x.cuda())\n"
        "{}print(y.item())\n")


def test_spaces_then_a_form_feed_in_an_indentation_are_analysed():
    # Python's tokenizer resets the indentation count at a form feed: "  \f    " indents by 4.
    for indentation in ("  \x0c    ", " \x0c\x0c    ", "\t\x0c    ", "        \x0c    "):
        source = LOOP.format(indentation)
        compile(source, "train.py", "exec")  # Python accepts it
        column = len(indentation) + len("print(")
        assert lint_source(source) == [Finding("TPL102", 5, column, SYNC, 5, column + 8)], repr(indentation)


def test_a_fix_on_a_line_indented_with_a_form_feed():
    source = ("import torch\ndef make(device):\n  \x0c  a = torch.arange(6, dtype=torch.float32).to(device)\n"
              "  \x0c  return a\n")
    fixed, count = fix_source(source)
    assert count == 1
    assert fixed == source.replace(".float32).to(device)", ".float32, device=device)")


def test_a_fix_wrapped_below_a_form_feed_in_a_comment():
    # Lines as Python counts them: the form feed in the comment ends no line.
    line = "        aaaa = torch.arange(6, dtype=torch.float32).to(device)"
    source = f"import torch\ndef make(device):\n    s = 1  # page\x0cbreak\n    if device:\n{line}\n    return aaaa\n"
    fixed, count = fix_source(source, max_line_length=len(line))
    assert count == 1
    wrapped = ("        aaaa = torch.arange(\n            6,\n            dtype=torch.float32,\n"
               "            device=device,\n        )")
    assert fixed == source.replace(line, wrapped)


def test_plurals():
    assert [plural(n, "fix") for n in (0, 1, 3)] == ["0 fixes", "1 fix", "3 fixes"]
    assert [plural(n, "finding") for n in (1, 2)] == ["1 finding", "2 findings"]
    fixable = Finding("TPL101", 1, 0, "m", fix=Fix("safe", "d", ()))
    reports = [Reported("a.py", "a.py", fixable, 1)] * 3
    assert summary(reports, False, would_fix=2) == "Found 3 findings (3 fixable with --fix, in 2 fixes)."


def test_unknown_keys_are_counted_right(project):
    config = project.root / "pyproject.toml"
    config.write_text("[tool.torchperf-lint]\nselct = [\"TPL\"]\n")
    assert project.run("--no-cache")[2] == (f"torchperf-lint: error: {config}: unknown key in "
                                            f"[tool.torchperf-lint]: selct\n")
    config.write_text("[tool.torchperf-lint]\nselct = [\"TPL\"]\nignor = []\n")
    assert project.run("--no-cache")[2] == (f"torchperf-lint: error: {config}: unknown keys in [tool.torchperf-lint]: "
                                            f"ignor, selct\n")
