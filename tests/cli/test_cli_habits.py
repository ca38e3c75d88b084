"""ruff's CLI habits, checked against ruff's documented behaviour: ``--statistics`` (a count per
code), ``--add-noqa`` (adds or merges ``# noqa: CODE``, keeps other comments, idempotent, exit 0,
"Added N noqa directives." on stderr), ``--show-fixes`` (each fix as a diff, nothing written), the
formats json-lines, junit, gitlab (Code Quality) and pylint, and JSON's rule name and severity."""

import json
import os
import stat

from _cli_helpers import DATA_PARALLEL, FIXABLE, UNSAFE
from _diagnostics import CPU_CREATION_TEMPLATE, DATA_PARALLEL_MESSAGE as MSG_DP

MSG_ARANGE = CPU_CREATION_TEMPLATE.format(factory="arange")
MSG_FULL = MSG_ARANGE.replace("torch.arange", "torch.full")
MSG_TENSOR = MSG_ARANGE.replace("torch.arange", "torch.tensor")
MSG_RAND = MSG_ARANGE.replace("torch.arange", "torch.rand")


def three_files(project):
    project.write("a.py", FIXABLE)
    project.write("c.py", DATA_PARALLEL)
    project.write("u.py", UNSAFE)


# ---- --statistics -------------------------------------------------------------------------------

def test_statistics_counts_per_code(project):
    three_files(project)
    assert project.run("--statistics") == (1, (
        "4\tTPL101\t[~] cpu-then-device\n"  # 3 of 4 fixable: the random factory's fix is unsafe
        "1\tTPL201\t[ ] data-parallel\n"), "")
    assert project.run("--statistics", "--unsafe-fixes") == (1, (
        "4\tTPL101\t[*] cpu-then-device\n"
        "1\tTPL201\t[ ] data-parallel\n"), "")
    code, out, err = project.run("--statistics", "--output-format", "json")
    assert (code, err) == (1, "")
    assert json.loads(out) == [
        {"code": "TPL101", "name": "cpu-then-device", "count": 4, "fixable_count": 3},
        {"code": "TPL201", "name": "data-parallel", "count": 1, "fixable_count": 0},
    ]


def test_statistics_of_a_clean_tree(project):
    project.write("a.py", "import torch\n")
    assert project.run("--statistics") == (0, "", "")
    assert project.run("--statistics", "--output-format", "json") == (0, "[]\n", "")


# ---- --add-noqa ---------------------------------------------------------------------------------

def test_add_noqa_adds_merges_and_keeps_comments(project):
    path = project.write("a.py", (
        "import torch\n"
        "\n"
        "def make(device):\n"
        "    a = torch.arange(6).to(device)  # keep this comment\n"
        "    b = torch.full((2, 3), 7.0).to(device)  # noqa: E501\n"
        "    s = '# not a comment'; c = torch.ones(2).to(device)\n"
        "    d = torch.zeros(2).to(device)  # type: ignore  # noqa:E731\n"
        "    e = torch.eye(2).to(device)  # noqa: E501 with a trailing reason\n"
        "    return a, b, c, d, e\n"))
    project.write("c.py", DATA_PARALLEL)
    os.chmod(path, 0o640)
    assert project.run("--add-noqa") == (0, "", "Added 6 noqa directives.\n")
    assert path.read_text() == (
        "import torch\n"
        "\n"
        "def make(device):\n"
        "    a = torch.arange(6).to(device)  # noqa: TPL101 # keep this comment\n"
        "    b = torch.full((2, 3), 7.0).to(device)  # noqa: E501, TPL101\n"
        "    s = '# not a comment'; c = torch.ones(2).to(device)  # noqa: TPL101\n"
        "    d = torch.zeros(2).to(device)  # type: ignore  # noqa:E731, TPL101\n"
        "    e = torch.eye(2).to(device)  # noqa: E501, TPL101 with a trailing reason\n"  # ruff #26287 kept too
        "    return a, b, c, d, e\n")
    assert (project.root / "c.py").read_text() == DATA_PARALLEL.replace(
        "nn.Linear(2, 2))\n", "nn.Linear(2, 2))  # noqa: TPL201\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert sorted(p.name for p in project.root.iterdir()) == ["a.py", "c.py", "pyproject.toml"]  # no temp file left
    # idempotent: the findings it silenced are gone, so a second run adds nothing
    before = path.read_bytes()
    assert project.run("--add-noqa") == (0, "", "Added 0 noqa directives.\n")
    assert path.read_bytes() == before
    assert project.run() == (0, "All checks passed!\n", "")


def test_add_noqa_one_comment_per_line_with_every_code(project):
    path = project.write("a.py", "import torch\nm = torch.nn.DataParallel(torch.zeros(2).to('cuda'))\n")
    assert project.run("--add-noqa") == (0, "", "Added 1 noqa directive.\n")
    assert path.read_text() == (
        "import torch\nm = torch.nn.DataParallel(torch.zeros(2).to('cuda'))  # noqa: TPL101, TPL201\n")


def test_add_noqa_on_the_line_flake8_reads_and_with_the_files_line_ends(project):
    path = project.write_bytes("a.py", (
        b"import torch\r\n"
        b"x = torch.zeros(2).to('cuda'); doc = '''\r\n"
        b"text'''\r\n"))
    assert project.run("--add-noqa") == (0, "", "Added 1 noqa directive.\n")
    assert path.read_bytes() == (
        b"import torch\r\n"
        b"x = torch.zeros(2).to('cuda'); doc = '''\r\n"
        b"text'''  # noqa: TPL101\r\n")
    assert project.run()[0] == 0


def test_add_noqa_keeps_the_encoding(project):
    source = "# -*- coding: latin-1 -*-\nimport torch\nname = 'café'; x = torch.zeros(2).to('cuda')\n"
    path = project.write("a.py", source, encoding="latin-1")
    assert project.run("--add-noqa") == (0, "", "Added 1 noqa directive.\n")
    assert path.read_bytes() == source.replace("('cuda')\n", "('cuda')  # noqa: TPL101\n").encode("latin-1")


def test_add_noqa_is_not_combined_with_fixes(project):
    project.write("a.py", FIXABLE)
    assert project.run("--add-noqa", "--fix") == (2, "", "torchperf-lint: error: --add-noqa cannot be combined "
                                                  "with --fix, --fix-only, --diff or `-` (standard input)\n")
    assert (project.root / "a.py").read_text() == FIXABLE


# ---- --show-fixes -------------------------------------------------------------------------------

def test_show_fixes_shows_each_fix_and_writes_nothing(project):
    project.write("a.py", FIXABLE)
    project.write("u.py", UNSAFE)
    assert project.run("--show-fixes") == (1, (
        f"a.py:4:9: TPL101 [*] {MSG_ARANGE}\n"
        "    Fix: create the tensor with device=device\n"
        "    @@ -3,3 +3,3 @@\n"
        "     def make(device):\n"
        "    -    a = torch.arange(6, dtype=torch.float32).to(device)\n"
        "    +    a = torch.arange(6, dtype=torch.float32, device=device)\n"
        "         b = torch.full((2, 3), 7.0).to(device, non_blocking=True)\n"
        f"a.py:5:9: TPL101 [*] {MSG_FULL}\n"
        "    Fix: create the tensor with device=device\n"
        "    @@ -4,3 +4,3 @@\n"
        "         a = torch.arange(6, dtype=torch.float32).to(device)\n"
        "    -    b = torch.full((2, 3), 7.0).to(device, non_blocking=True)\n"
        "    +    b = torch.full((2, 3), 7.0, device=device)\n"
        "         c = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).to(device=device)\n"
        f"a.py:6:9: TPL101 [*] {MSG_TENSOR}\n"
        "    Fix: create the tensor with device=device\n"
        "    @@ -5,3 +5,3 @@\n"
        "         b = torch.full((2, 3), 7.0).to(device, non_blocking=True)\n"
        "    -    c = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).to(device=device)\n"
        "    +    c = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)\n"
        "         return a, b, c\n"
        f"u.py:4:12: TPL101 {MSG_RAND}\n"
        "    Unsafe fix: create the tensor with device=device\n"
        "    @@ -3,2 +3,2 @@\n"
        "     def noise(device):\n"
        "    -    return torch.rand(3).to(device)\n"
        "    +    return torch.rand(3, device=device)\n"
        "Found 4 findings (3 fixable with --fix; 1 more with --unsafe-fixes).\n"), "")
    assert (project.root / "a.py").read_text() == FIXABLE
    assert (project.root / "u.py").read_text() == UNSAFE


# ---- formats ------------------------------------------------------------------------------------

def test_pylint_format(project):
    three_files(project)
    assert project.run("--output-format", "pylint") == (1, (
        f"a.py:4: [TPL101] {MSG_ARANGE}\n"
        f"a.py:5: [TPL101] {MSG_FULL}\n"
        f"a.py:6: [TPL101] {MSG_TENSOR}\n"
        f"c.py:3: [TPL201] {MSG_DP}\n"
        f"u.py:4: [TPL101] {MSG_RAND}\n"), "")


def test_json_lines_format(project):
    project.write("c.py", DATA_PARALLEL)
    project.write("u.py", UNSAFE)
    code, out, err = project.run("--output-format", "json-lines")
    assert (code, err) == (1, "")
    assert [json.loads(line) for line in out.splitlines()] == [
        {"code": "TPL201", "name": "data-parallel", "severity": "warning", "message": MSG_DP,
         "filename": str(project.root / "c.py"), "location": {"row": 3, "column": 9},
         "end_location": {"row": 3, "column": 53}, "fix": None,
         "url": "https://github.com/torchperf-lint/torchperf-lint/blob/main/docs/rules/TPL201.md", "noqa_row": 3},
        {"code": "TPL101", "name": "cpu-then-device", "severity": "warning", "message": MSG_RAND,
         "filename": str(project.root / "u.py"), "location": {"row": 4, "column": 12},
         "end_location": {"row": 4, "column": 25},
         "fix": {"applicability": "unsafe", "message": "create the tensor with device=device",
                 "edits": [{"content": ", device=", "location": {"row": 4, "column": 24},  # ").to(" -> ", device="
                            "end_location": {"row": 4, "column": 29}}]},
         "url": "https://github.com/torchperf-lint/torchperf-lint/blob/main/docs/rules/TPL101.md", "noqa_row": 4},
    ]
    assert project.run("--output-format", "json-lines", "--select", "TPL6") == (0, "", "")


def test_junit_format(project):
    project.write("c.py", DATA_PARALLEL)
    project.write("d.py", "import torch\nm = torch.nn.DataParallel(net)  # 'a' & <b>\n")
    assert project.run("--output-format", "junit") == (1, (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="torchperf-lint" tests="2" failures="2" errors="0">\n'
        '    <testsuite name="c.py" tests="1" disabled="0" errors="0" failures="1" package="torchperf-lint">\n'
        '        <testcase name="torchperf-lint.TPL201" classname="c" line="3" column="9">\n'
        f'            <failure message="{MSG_DP}">line 3, col 9, TPL201 {MSG_DP}</failure>\n'
        '        </testcase>\n'
        '    </testsuite>\n'
        '    <testsuite name="d.py" tests="1" disabled="0" errors="0" failures="1" package="torchperf-lint">\n'
        '        <testcase name="torchperf-lint.TPL201" classname="d" line="2" column="5">\n'
        f'            <failure message="{MSG_DP}">line 2, col 5, TPL201 {MSG_DP}</failure>\n'
        '        </testcase>\n'
        '    </testsuite>\n'
        '</testsuites>\n'), "")
    (project.root / "c.py").unlink()
    (project.root / "d.py").unlink()
    assert project.run("--output-format", "junit") == (0, (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="torchperf-lint" tests="0" failures="0" errors="0">\n'
        '    <testsuite name="torchperf-lint" tests="1" disabled="0" errors="0" failures="0" package="torchperf-lint">\n'
        '        <testcase name="torchperf-lint" classname="torchperf-lint"/>\n'
        '    </testsuite>\n'
        '</testsuites>\n'), "torchperf-lint: warning: No Python files found under .\n")


def test_junit_escapes_messages(project):
    import xml.etree.ElementTree as ET

    project.write("x.py", "import torch\nx = torch.cuda.amp.autocast(dtype=d)\n")
    code, out, _ = project.run("--output-format", "junit")
    failure = ET.fromstring(out).find("testsuite/testcase/failure")
    assert failure.get("message") == ('`torch.cuda.amp.autocast` is deprecated (FutureWarning since torch 2.4); '
                                      'use `torch.amp.autocast("cuda", ...)`')


def test_gitlab_format_and_stable_fingerprints(project):
    project.write("c.py", DATA_PARALLEL + "other = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n")
    project.write("u.py", UNSAFE)
    code, out, err = project.run("--output-format", "gitlab")
    assert (code, err) == (1, "")
    items = json.loads(out)
    fingerprints = [item.pop("fingerprint") for item in items]
    assert items == [
        {"check_name": "TPL201", "description": f"TPL201 (data-parallel): {MSG_DP}", "severity": "major",
         "location": {"path": "c.py", "lines": {"begin": 3, "end": 3}}},
        {"check_name": "TPL201", "description": f"TPL201 (data-parallel): {MSG_DP}", "severity": "major",
         "location": {"path": "c.py", "lines": {"begin": 4, "end": 4}}},
        {"check_name": "TPL101", "description": f"TPL101 (cpu-then-device): {MSG_RAND}", "severity": "major",
         "location": {"path": "u.py", "lines": {"begin": 4, "end": 4}}},
    ]
    assert len(set(fingerprints)) == 3 and all(len(f) == 16 for f in fingerprints)
    # A line added above moves the findings but keeps their fingerprints (GitLab matches them by it).
    project.write("c.py", "# a new first line\n" + DATA_PARALLEL + "other = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n")
    moved = json.loads(project.run("--output-format", "gitlab")[1])
    assert [item["fingerprint"] for item in moved] == fingerprints
    assert [item["location"]["lines"]["begin"] for item in moved] == [4, 5, 4]


def test_gitlab_severity_of_a_file_that_could_not_be_checked(project):
    project.write("bad.py", "import torch\ndef f(:\n")
    items = json.loads(project.run("--output-format", "gitlab")[1])
    assert [(i["check_name"], i["severity"], i["location"]) for i in items] == [
        ("TPL900", "critical", {"path": "bad.py", "lines": {"begin": 2, "end": 2}})]
