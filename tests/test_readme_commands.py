"""Every shell block of README.md and docs/*.md runs as written, in a temporary copy of the
repository, and every command in it ends with the exit status the block gives it.

A command's status is 0 unless its trailing comment starts with ``exit N`` (``torchperf-lint
check samples/   # exit 1: findings``): the README explains each non-zero status where it shows
the command. A block that creates a virtual environment, installs packages or needs the network
(or anything else this test cannot give it) is marked on the line before it, with the reason:
``<!-- test: skip (installs) -->``. Commands run one by one with ``bash -c``, from the copy's root,
with this interpreter's ``bin`` folder first on PATH (``torchperf-lint``, ``flake8``, ``python``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHELLS = ("bash", "sh", "shell", "console")
SKIP = re.compile(r"<!--\s*test:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->")
EXPECTED = re.compile(r"\s#\s*exit\s+(\d+)\b")
# Commands that would change the environment the tests run in (an editable install from the
# temporary copy re-points this interpreter's torchperf_lint at a folder that is then deleted):
# never run, whatever the block says; an unmarked block holding one fails instead.
INSTALLS = re.compile(r"\b(?:pip3?|uv)\s+(?:pip\s+)?install\b|\bvenv\b|\bconda\s+(?:install|create)\b")


@dataclass
class Block:
    path: str  # relative to the repository
    line: int  # of the opening fence
    commands: List[str]
    skip: Optional[str]  # the reason, when marked


def shell_blocks(text: str, path: str) -> List[Block]:
    blocks: List[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = re.match(r"^(\s*)```(\w*)\s*$", lines[index])
        if fence is None:
            index += 1
            continue
        start, language = index, fence.group(2)
        end = start + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        if language in SHELLS:
            previous = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
            marker = SKIP.search(previous)
            blocks.append(Block(path, start + 1, commands(lines[start + 1:end]),
                                marker.group("reason") if marker else None))
        index = end + 1
    return blocks


def commands(body: List[str]) -> List[str]:
    """The block's commands: backslash continuations joined, blank lines and comments left out."""
    out: List[str] = []
    pending = ""
    for line in body:
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


def expected_status(command: str) -> int:
    match = EXPECTED.search(command)
    return int(match.group(1)) if match else 0


def run_block(block: Block, cwd: Path) -> List[Tuple[str, int, int, str]]:
    """(command, expected, actual, output) of every command whose status is not the expected one."""
    env = dict(os.environ, PATH=os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))))
    wrong = []
    for command in block.commands:
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=600)
        expected = expected_status(command)
        if done.returncode != expected:
            wrong.append((command, expected, done.returncode, (done.stdout + done.stderr)[-3000:]))
    return wrong


def all_blocks() -> List[Block]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [block for path in files
            for block in shell_blocks(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())]


def copy_of_repository(target: Path) -> Path:
    """The files git tracks (what a fresh clone has), plus the untracked ones not ignored."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            destination = target / os.fsdecode(name)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    return target


BLOCKS = all_blocks()


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.path}:{b.line}" for b in BLOCKS])
def test_shell_block(block, tmp_path):
    if block.skip:
        pytest.skip(f"marked: {block.skip}")
    installing = [c for c in block.commands if INSTALLS.search(c)]
    assert not installing, f"{block.path}:{block.line} installs ({installing[0]}): mark it <!-- test: skip (installs) -->"
    copy = copy_of_repository(tmp_path / "repo")
    wrong = run_block(block, copy)
    assert not wrong, "\n\n".join(f"$ {c}\nexpected exit {e}, got {a}\n{o}" for c, e, a, o in wrong)


def test_the_blocks_are_found_and_every_skip_has_a_reason():
    readme = [b for b in BLOCKS if b.path == "README.md"]
    assert len(readme) >= 8 and sum(len(b.commands) for b in readme if not b.skip) >= 20
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.count("<!-- test: skip") == sum(1 for b in readme if b.skip)  # no marker left unparsed


def test_a_block_that_errors_fails(tmp_path):
    page = ("Intro\n\n```bash\ntrue\nfalse   # exit 0: wrong on purpose\nexit 3   # exit 3\n```\n\n"
            "<!-- test: skip (installs) -->\n```bash\npip install nothing-at-all\n```\n"
            "```python\nraise SystemExit(1)\n```\n")
    first, second = shell_blocks(page, "page.md")
    assert (first.commands, first.skip) == (["true", "false   # exit 0: wrong on purpose", "exit 3   # exit 3"], None)
    assert (second.commands, second.skip) == (["pip install nothing-at-all"], "installs")
    assert run_block(first, tmp_path) == [("false   # exit 0: wrong on purpose", 0, 1, "")]


def test_continuations_and_comments():
    assert commands(["# a comment", "", "python x.py \\", "    --flag  # exit 1", "ls"]) == [
        "python x.py      --flag  # exit 1", "ls"]
    assert expected_status("torchperf-lint check .   # exit 1: findings") == 1
    assert expected_status("torchperf-lint check --exit-zero .   # exits 0 even with findings") == 0


def test_readme_configuration_examples_are_accepted(tmp_path):
    """The README's pyproject table and flake8 section, as written, are read without an error and
    mean what their comments say."""
    from torchperf_lint.frontends.config import load_config

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (toml,) = [b.split("\n```", 1)[0] for b in text.split("```toml\n")[1:]]
    (tmp_path / "pyproject.toml").write_text(toml + "\n")
    config = load_config(tmp_path)
    assert (config.select, config.extend_select, config.ignore, config.target_torch, config.include_tests) == (
        ["TPL"], ["TPL503"], ["TPL102"], "2.1", False)
    assert config.per_file_ignores == {"tests/*": ["TPL101", "TPL5"]}
    ini = [b.split("\n```", 1)[0] for b in text.split("```ini\n")[1:]]
    assert len(ini) == 1
    # the commented settings too, uncommented (each `# key = value` line of the example)
    uncommented = "\n".join(line.lstrip("# ").split("  #")[0] if re.match(r"# (tpl-[\w-]+) = ", line) else line
                            for line in ini[0].splitlines())
    (tmp_path / "setup.cfg").write_text(uncommented + "\n")
    (tmp_path / "train.py").write_text("import torch\nm = torch.nn.DataParallel(net)\n")
    done = subprocess.run([sys.executable, "-m", "flake8", "train.py"], cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.startswith("train.py:2:5: TPL201 ")


def test_install_commands_are_recognised():
    for command in ('pip install -e ".[server]"', "python3 -m venv .venv && . .venv/bin/activate",
                    "pip3 install torch==2.13.0", "uv pip install .", "conda create -n x"):
        assert INSTALLS.search(command), command
    for command in ("torchperf-lint check samples/", "flake8 --select TPL samples/", "python -m pytest -q"):
        assert not INSTALLS.search(command), command
