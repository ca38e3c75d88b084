"""Project facts through the front ends: the finding cache re-lints exactly the files whose facts
changed; flake8 (also with ``-j 4``), the CLI and standard input with ``--stdin-filename`` give the
same findings; JSON and SARIF carry the call chain as related locations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchperf_lint import engine
from torchperf_lint.analysis import project_index
from torchperf_lint.frontends import cli

from _diagnostics import ITEM_SYNC as SYNC


TRAIN = """\
import torch
import utils


def main(model, loader, opt):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
    utils.summarize({"loss": loss})
"""
UTILS = """\
import torch


def log_metrics(losses):
    total = sum(losses.values())
    print(total.item())


def summarize(losses):
    return {k: v.item() for k, v in losses.items()}
"""
OTHER = """\
import torch

model = torch.nn.DataParallel(torch.nn.Linear(2, 2))
"""
LIT = """\
import torch
import lightning.pytorch as pl
import utils


class Lit(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        loss = self.model(batch).sum()
        self.log("loss", loss.item())
        utils.log_metrics({"loss": loss})
        return loss
"""


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for name, text in (("train.py", TRAIN), ("utils.py", UTILS), ("other.py", OTHER), ("lit.py", LIT)):
        (root / name).write_text(text)
    monkeypatch.chdir(root)
    monkeypatch.setenv(cli.CACHE_ENV, str(tmp_path / "cache"))
    project_index._PROJECTS.clear()
    yield root
    project_index._PROJECTS.clear()


def run_cli(capsys, *args):
    capsys.readouterr()
    code = cli.main(["check", "--jobs", "1", *args])
    out, _ = capsys.readouterr()
    return code, out


def cli_findings(capsys, *args):
    _, out = run_cli(capsys, "--output-format", "json", *args)
    return sorted((Path(item["filename"]).name, item["location"]["row"], item["code"], item["message"])
                  for item in json.loads(out))


EXPECTED = [
    ("lit.py", 9, "TPL102", SYNC),
    ("other.py", 3, "TPL201", None),
    ("utils.py", 6, "TPL102", SYNC + " (called every step from lit.py:10 via training_step)"),
]


def test_cli_findings_with_the_chain_in_json_and_sarif(root, capsys):
    found = cli_findings(capsys)
    assert [f[:3] for f in found] == [e[:3] for e in EXPECTED]
    assert found[0][3] == EXPECTED[0][3] and found[2][3] == EXPECTED[2][3]
    _, out = run_cli(capsys, "--output-format", "json", "utils.py")
    (item,) = json.loads(out)
    assert item["related"] == [{"filename": "lit.py", "location": {"row": 10, "column": 1},
                                "message": "called every step from here (in training_step)"}]
    _, out = run_cli(capsys, "--output-format", "sarif", "utils.py")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["relatedLocations"] == [{
        "id": 0, "message": {"text": "called every step from here (in training_step)"},
        "physicalLocation": {"artifactLocation": {"uri": "lit.py", "uriBaseId": "%SRCROOT%"},
                             "region": {"startLine": 10}}}]


@pytest.fixture
def engine_calls(monkeypatch):
    calls = []
    real = engine.lint_source

    def counting(source, filename="<string>", *args, **kwargs):
        calls.append(os.path.basename(filename))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(engine, "lint_source", counting)
    return calls


def test_cache_relints_exactly_the_files_whose_facts_changed(root, capsys, engine_calls):
    first = cli_findings(capsys)
    assert sorted(engine_calls) == ["lit.py", "other.py", "train.py", "utils.py"]
    engine_calls.clear()
    assert cli_findings(capsys) == first
    assert engine_calls == []
    # The step method that calls the helper moves down a line: the helper's finding (its chain)
    # changes although utils.py did not; other.py and train.py depend on neither.
    lit = root / "lit.py"
    lit.write_text(LIT.replace("        loss = self.model", "        # the model\n        loss = self.model"))
    again = cli_findings(capsys)
    assert sorted(engine_calls) == ["lit.py", "utils.py"]
    assert ("utils.py", 6, "TPL102", SYNC + " (called every step from lit.py:11 via training_step)") in again
    engine_calls.clear()
    # Only the helper changes: only the helper is linted again.
    (root / "utils.py").write_text(UTILS.replace("total = sum", "total = 0 + sum"))
    cli_findings(capsys)
    assert engine_calls == ["utils.py"]


def test_warm_index_reparses_only_the_edited_helper(root, capsys):
    cli_findings(capsys)
    project_index._PROJECTS.clear()  # a new process: only the disk cache is left
    (root / "utils.py").write_text(UTILS + "\n")
    cli_findings(capsys)
    (project,) = project_index._PROJECTS.values()
    assert project.parsed == 0  # utils.py: parsed by the engine, its summary made from that tree;
    # lit.py's, which its step bodies need: read from the disk


def test_no_cache_writes_no_index_entry(root, capsys, tmp_path):
    cli_findings(capsys, "--no-cache")
    assert not (tmp_path / "cache").exists() and not (root / ".torchperf_lint_cache").exists()
    cli_findings(capsys)
    assert list((tmp_path / "cache" / "index").rglob("*.marshal"))


def flake8(root, *args, stdin=None):
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=TPL", *args],
        cwd=root, capture_output=True, text=True, input=stdin,
        env={**os.environ, cli.CACHE_ENV: str(root.parent / "cache-flake8")},
    )
    assert result.returncode in (0, 1), result.stderr
    found = []
    for line in result.stdout.splitlines():
        where, text = line.split(": ", 1)
        path, row, _ = where.split(":", 2)
        code, message = text.split(" ", 1)
        found.append((Path(path).name, int(row), code, message))
    return sorted(found)


def test_flake8_in_four_processes_the_cli_and_stdin_agree(root, capsys):
    expected = cli_findings(capsys)
    assert flake8(root, "-j", "4", ".") == expected
    assert flake8(root, "-j", "1", ".") == expected
    utils_only = [f for f in expected if f[0] == "utils.py"]
    assert flake8(root, "--stdin-display-name", "utils.py", "-", stdin=UTILS) == utils_only


def test_stdin_with_its_filename_sees_the_project(root, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(UTILS.encode())))
    found = cli_findings(capsys, "--stdin-filename", "utils.py", "-")
    assert found == [f for f in cli_findings(capsys) if f[0] == "utils.py"]
