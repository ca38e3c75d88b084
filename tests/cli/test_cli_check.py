"""Exit codes, noqa, selection, configuration, exclusion and bad input."""

from _cli_helpers import CLEAN, DATA_PARALLEL, FIXABLE

from torchperf_lint.catalog import CATALOG, OPT_IN_CODES
from torchperf_lint.frontends.config import resolve_codes


def codes_in(out: str):
    return [line.split(": ", 1)[1].split()[0] for line in out.splitlines() if ": TPL" in line]


# ---- exit status --------------------------------------------------------------------------------

def test_clean_tree_exits_0(project):
    project.write("a.py", CLEAN)
    project.write("notorch.py", "import os\nx = (\n")  # no torch: no finding at all, even broken
    code, out, _ = project.run()
    assert code == 0
    assert "All checks passed!" in out


def test_findings_exit_1_with_locations(project):
    project.write("pkg/a.py", DATA_PARALLEL)
    code, out, _ = project.run()
    assert code == 1
    assert "pkg/a.py:3:9: TPL201 " in out
    assert "Found 1 finding." in out


def test_exit_zero(project):
    project.write("a.py", DATA_PARALLEL)
    assert project.run("--exit-zero")[0] == 0


def test_usage_errors_exit_2(project):
    project.write("a.py", DATA_PARALLEL)
    assert project.run("--select", "NOPE")[0] == 2
    assert project.run("--output-format", "xml")[0] == 2
    code, out, err = project.run("missing.py", "a.py")
    assert code == 2 and "missing.py" in err and "TPL201" in out  # the others are still checked
    project.config("select = 3\n")
    assert project.run()[0] == 2
    project.config("colour = true\n")
    code, _, err = project.run()
    assert code == 2 and "colour" in err


def test_without_subcommand_means_check(project):
    project.write("a.py", DATA_PARALLEL)
    code, out, _ = project.raw("--jobs", "1", "a.py")
    assert code == 1 and "TPL201" in out
    code, out, _ = project.raw("a.py", "-j", "1")
    assert code == 1 and "TPL201" in out


def test_version(project):
    code, out, _ = project.raw("--version")
    assert code == 0 and out.startswith("torchperf-lint ")


# ---- noqa ---------------------------------------------------------------------------------------

def test_noqa_as_flake8(project):
    project.write("a.py", """\
        import torch
        a = torch.nn.DataParallel(m)  # noqa
        b = torch.nn.DataParallel(m)  # noqa: TPL201
        c = torch.nn.DataParallel(m)  # NOQA:TPL201,TPL101
        d = torch.nn.DataParallel(m)  # noqa: TPL2
        e = torch.nn.DataParallel(m)  # noqa: TPL101
        f = torch.nn.DataParallel(m)  # noqa : TPL101
        g = torch.nn.DataParallel(m)
        h = torch.nn.DataParallel(m, device_ids=[
            0])  # noqa: TPL201
        i = torch.nn.DataParallel(m, device_ids=\"\"\"
        \"\"\")  # noqa: TPL201
        """)
    code, out, _ = project.run()
    lines = sorted(int(line.split(":")[1]) for line in out.splitlines() if "TPL201" in line)
    # e: other code; g: none; h: the comment is on another physical line of a bracketed call.
    # f: "# noqa : X" is a bare noqa for flake8 (the codes part does not match). i: a multi-line
    # string joins its lines, as in flake8.
    assert lines == [6, 8, 9]
    assert code == 1


def test_flake8_file_noqa(project):
    project.write("a.py", "# flake8: noqa\nimport torch\nm = torch.nn.DataParallel(m)\n")
    assert project.run()[0] == 0


def test_noqa_matches_flake8_plugin(project):
    """The CLI and the flake8 plugin silence exactly the same findings."""
    from flake8.main.cli import main as flake8_main  # noqa: F401  (flake8 is a dependency)
    import subprocess
    import sys

    source = """\
        import torch
        a = torch.nn.DataParallel(m)  # noqa: TPL201
        b = torch.nn.DataParallel(m)  # noqa:E501
        c = torch.nn.DataParallel(m, x=\"\"\"
        \"\"\")  # noqa
        d = torch.nn.DataParallel(m, x=[
            1])  # noqa
        """
    path = project.write("a.py", source)
    _, out, _ = project.run()
    ours = sorted(int(line.split(":")[1]) for line in out.splitlines() if "TPL" in line)
    done = subprocess.run([sys.executable, "-m", "flake8", "--select", "TPL", str(path)],
                          capture_output=True, text=True)
    theirs = sorted(int(line.split(":")[1]) for line in done.stdout.splitlines() if "TPL" in line)
    assert ours == theirs == [3, 6]


# ---- selection ----------------------------------------------------------------------------------

def test_select_ignore_prefixes(project):
    project.write("a.py", DATA_PARALLEL + FIXABLE.replace("import torch\n", ""))
    assert set(codes_in(project.run()[1])) == {"TPL101", "TPL201"}
    assert set(codes_in(project.run("--select", "TPL2")[1])) == {"TPL201"}
    assert set(codes_in(project.run("--ignore", "TPL1")[1])) == {"TPL201"}
    assert set(codes_in(project.run("--select", "TPL1", "--extend-select", "TPL201")[1])) == {"TPL101", "TPL201"}
    assert set(codes_in(project.run("--select", "TPL101,TPL201", "--ignore", "TPL201")[1])) == {"TPL101"}
    # the more specific selector wins
    assert set(codes_in(project.run("--select", "TPL201", "--ignore", "TPL2")[1])) == {"TPL201"}


def test_opt_in_rules_need_their_exact_code():
    assert not OPT_IN_CODES & resolve_codes(["TPL"], [], [])
    assert not OPT_IN_CODES & resolve_codes(["ALL"], [], [])
    assert not OPT_IN_CODES & resolve_codes(["TPL3", "TPL5"], [], [])
    assert "TPL305" in resolve_codes(["TPL"], ["TPL305"], [])
    assert "TPL503" in resolve_codes(["TPL503"], [], [])
    assert resolve_codes(["TPL"], [], []) == {c for c, e in CATALOG.items() if e.default_on}


def test_opt_in_codes_reach_the_engine(project, monkeypatch):
    from torchperf_lint import engine

    seen = []
    real = engine.lint_source

    def spy(source, filename="<string>", tree=None, codes=None, lines=None, **options):
        seen.append(set(codes))
        return real(source, filename, tree, codes, lines, **options)

    monkeypatch.setattr(engine, "lint_source", spy)
    project.write("a.py", DATA_PARALLEL)
    project.run("--no-cache")
    assert not seen[-1] & OPT_IN_CODES
    project.run("--no-cache", "--extend-select", "TPL503")
    assert "TPL503" in seen[-1] and "TPL305" not in seen[-1]
    project.config('extend-select = ["TPL305"]\n')
    project.run("--no-cache")
    assert "TPL305" in seen[-1]


def test_config_select_and_cli_override(project):
    project.write("a.py", DATA_PARALLEL + FIXABLE.replace("import torch\n", ""))
    project.config('select = ["TPL1"]\n')
    assert set(codes_in(project.run()[1])) == {"TPL101"}
    assert set(codes_in(project.run("--select", "TPL2")[1])) == {"TPL201"}
    project.config('ignore = ["TPL101"]\n')
    assert set(codes_in(project.run()[1])) == {"TPL201"}


def test_per_file_ignores(project):
    project.write("tests/test_a.py", DATA_PARALLEL)
    project.write("src/a.py", DATA_PARALLEL)
    project.write("scripts/legacy.py", DATA_PARALLEL)
    project.config("""\
        include-tests = true
        [tool.torchperf-lint.per-file-ignores]
        "tests/*" = ["TPL201"]
        "legacy.py" = ["TPL2"]
        """)
    _, out, _ = project.run()
    assert [line.split(":")[0] for line in out.splitlines() if "TPL201" in line] == ["src/a.py"]


def test_exclude_defaults_and_config(project):
    for directory in (".venv/lib", "venv", "build", "dist", "__pycache__", "node_modules", ".tox",
                      "x/site-packages", ".git"):
        project.write(f"{directory}/m.py", DATA_PARALLEL)
    project.write("src/m.py", DATA_PARALLEL)
    project.write("gen/m_pb2.py", DATA_PARALLEL)
    _, out, _ = project.run()
    assert [line.split(":")[0] for line in out.splitlines() if "TPL" in line] == ["gen/m_pb2.py", "src/m.py"]
    project.config('extend-exclude = ["*_pb2.py"]\n')
    _, out, _ = project.run()
    assert [line.split(":")[0] for line in out.splitlines() if "TPL" in line] == ["src/m.py"]
    # a file named on the command line is checked unless --force-exclude (pre-commit's case)
    assert project.run("gen/m_pb2.py")[0] == 1
    assert project.run("--force-exclude", "gen/m_pb2.py", "build/m.py")[0] == 0
    project.config('exclude = ["src"]\n')  # replaces the defaults
    _, out, _ = project.run()
    assert "build/m.py" in out and "src/m.py" not in out


def test_config_found_from_first_path(project, tmp_path, monkeypatch):
    project.write("sub/a.py", DATA_PARALLEL)
    project.config('ignore = ["TPL201"]\n')
    monkeypatch.chdir(tmp_path)
    assert project.run(str(project.root / "sub"))[0] == 0


# ---- bad input ----------------------------------------------------------------------------------

def test_bad_input_never_stops_a_run(project):
    project.write("good.py", DATA_PARALLEL)
    project.write("syntax.py", "import torch\nx = (\n")
    project.write_bytes("nul.py", b"import torch\nx = 1\x00\n")
    project.write_bytes("undecodable.py", b"import torch\nx = '\xff\xfe'\n")
    project.write_bytes("badcookie.py", b"# -*- coding: klingon -*-\nimport torch\n")
    project.write_bytes("latin.py", "# -*- coding: latin-1 -*-\nimport torch\ns = 'é'\n"
                        "m = torch.nn.DataParallel(m)\n".encode("latin-1"))
    project.write_bytes("bom.py", b"\xef\xbb\xbf" + DATA_PARALLEL.encode())
    unreadable = project.write("unreadable.py", DATA_PARALLEL)
    unreadable.chmod(0)
    import os
    can_read_anyway = os.access(unreadable, os.R_OK)  # root
    code, out, _ = project.run()
    assert code == 1
    by_file = {}
    for line in out.splitlines():
        if ": TPL" in line:
            by_file.setdefault(line.split(":")[0], []).append(line)
    assert "TPL201" in by_file["good.py"][0]
    assert "syntax error" in by_file["syntax.py"][0] and "TPL900" in by_file["syntax.py"][0]
    assert "NUL" in by_file["nul.py"][0]
    assert "not valid utf-8" in by_file["undecodable.py"][0]
    assert "encoding" in by_file["badcookie.py"][0]
    assert "TPL201" in by_file["latin.py"][0] and ":4:5:" in by_file["latin.py"][0]
    assert by_file["bom.py"][0].startswith("bom.py:3:9: TPL201")
    if not can_read_anyway:
        assert "cannot read" in by_file["unreadable.py"][0]
    unreadable.chmod(0o644)


def test_tpl900_can_be_ignored(project):
    project.write("syntax.py", "import torch\nx = (\n")
    assert project.run()[0] == 1
    assert project.run("--ignore", "TPL900")[0] == 0


def test_parallel_matches_serial(project):
    for i in range(6):
        project.write(f"m{i}.py", DATA_PARALLEL if i % 2 else FIXABLE)
    project.write("syntax.py", "import torch\nx = (\n")
    serial = project.run("--no-cache")
    parallel = project.raw("check", "--no-cache", "--jobs", "3")
    assert serial == parallel
    assert serial[0] == 1


def test_file_noqa_with_codes_turns_off_those_codes_only(project):
    """``# flake8: noqa: E501`` names the codes it turns off for the file: the CLI reads them as ruff
    does (flake8 7.5 skips the whole file on that line, a trap its documentation warns of), so the
    training step's findings stay; codes of ours named there are off in the whole file, and anything
    after the colon that is no list of codes turns off the whole file, as in flake8."""
    body = "import torch\nm = torch.nn.DataParallel(m)\nfor x in loader:\n    x = torch.zeros(3).cuda()\n"
    project.write("a.py", "# flake8: noqa: E501\n" + body)
    code, out, _ = project.run()
    assert (code, sorted(codes_in(out))) == (1, ["TPL101", "TPL201"])
    project.write("a.py", "# flake8: noqa: TPL201, E501  # long lines\n" + body)
    assert sorted(codes_in(project.run()[1])) == ["TPL101"]
    project.write("a.py", "# FLAKE8=noqa:TPL1\n" + body)
    assert sorted(codes_in(project.run()[1])) == ["TPL201"]
    project.write("a.py", "# flake8: noqa: generated by a tool\n" + body)
    assert project.run()[0] == 0
    project.write("a.py", "x = 1  # flake8: noqa: TPL201\n" + body)  # not on a line of its own: nothing
    assert sorted(codes_in(project.run()[1])) == ["TPL101", "TPL201"]
