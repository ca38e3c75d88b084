"""Lines are counted as Python counts them (only \\n, \\r\\n and \\r end a line): the CLI reports what
flake8 reports, at the same positions, and fixes land where the finding is, once."""

import ast
import re
import subprocess
import sys

import pytest

from torchperf_lint.fixing.lines import split_lines

# Characters str.splitlines breaks at but Python does not; valid in strings and comments.
ODD = {"ff": "\x0c", "vt": "\x0b", "fs": "\x1c", "gs": "\x1d", "rs": "\x1e", "nel": "\x85",
       "ls": "\u2028", "ps": "\u2029"}


def odd_source(ch: str) -> str:
    return (
        "import torch\n"
        f"# a comment with {ch} inside\n"
        f"s = 'text {ch} more'\n"
        "def make(device):\n"
        f"    label = 'x{ch}y'\n"
        "    a = torch.zeros(3).to(device)\n"
        f"    b = torch.ones(2).to(device)  # noqa: TPL101 {ch}\n"
        "    return a, b, label\n"
        "model = torch.nn.DataParallel(net)\n"
    )


FILES = {f"odd_{name}.py": odd_source(ch) for name, ch in ODD.items()}
# ^L page breaks between statements and in a method's indentation (Python resets the indent count).
FILES["page_breaks.py"] = (
    "import torch\nx = 1\n\x0c\ndef make(device):\n    return torch.zeros(3).to(device)\n"
    "class A:\n    y = 2\n\x0c    def make(self, device):\n        return torch.ones(3).to(device)\n"
    "model = torch.nn.DataParallel(net)\n"
)
FILES["cr_only.py"] = (
    "import torch\rdef make(device):\r    a = torch.zeros(3).to(device)\r    return a\r"
    "model = torch.nn.DataParallel(net)\r"
)
FILES["crlf.py"] = FILES["cr_only.py"].replace("\r", "\r\n")

FINDING = re.compile(r"^(?:\./)?(\S+?):(\d+):(\d+): (TPL\d+)", re.M)


def test_split_lines_follows_the_tokenizer():
    text = "a\x0cb\nc\x85d\u2028e\r\nf\rg"
    assert split_lines(text) == ["a\x0cb\n", "c\x85d\u2028e\r\n", "f\r", "g"]
    assert split_lines("plain\ntext\n") == ["plain\n", "text\n"]


def test_same_findings_and_positions_as_flake8(project):
    for name, text in FILES.items():
        project.write_bytes(name, text.encode("utf-8"))
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=TPL,E999", "."],
        cwd=project.root, capture_output=True, text=True,
    )
    assert "Traceback" not in flake8.stderr, flake8.stderr
    expected = sorted(FINDING.findall(flake8.stdout))
    code, out, err = project.run("--no-cache")
    assert code == 1, err
    got = sorted(FINDING.findall(out))
    assert got == expected
    assert not [f for f in got if f[3] == "TPL900"]
    # Every file has its TPL201 on its last line, and the TPL101 that is not silenced.
    for name, text in FILES.items():
        rows = {(code, int(line)) for file, line, _, code in got if file == name}
        assert ("TPL201", len(split_lines(text))) in rows, (name, rows)
        assert any(code == "TPL101" for code, _ in rows), (name, rows)


@pytest.mark.parametrize("name", sorted(FILES))
def test_safe_fix_lands_on_the_finding_and_is_idempotent(project, name):
    text = FILES[name]
    path = project.write_bytes(name, text.encode("utf-8"))
    code, out, err = project.run("--no-cache", "--fix")
    fixed = path.read_bytes().decode("utf-8")
    ast.parse(fixed)
    assert fixed != text
    old_lines, new_lines = split_lines(text), split_lines(fixed)
    assert len(old_lines) == len(new_lines)
    for old, new in zip(old_lines, new_lines):
        if old != new:
            # only the calls moved to the device change, and nothing lands in a string or comment
            assert ".to(device)" in old and "noqa" not in old, (old, new)
            assert re.sub(r"torch\.(zeros|ones)\((\d)\)\.to\(device\)", r"torch.\1(\2, device=device)", old) == new
        # line ends are kept: a \r file stays a \r file
        assert old[len(old.rstrip("\r\n")):] == new[len(new.rstrip("\r\n")):]
    code, out, err = project.run("--no-cache", "--fix")
    assert path.read_bytes().decode("utf-8") == fixed
    assert "Fixed" not in out
