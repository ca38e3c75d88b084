"""The order of a serial CLI run (frontends/lint_order.py, issue 20 "Speed"): a file whose tree the
project index parsed ahead, for another file's walk, is linted next, while the index holds it, so
that the engine parses each text once; the findings are those of any order. ``--fix`` keeps the
order the files were found in (a fix writes a file that later walks read)."""

from __future__ import annotations

import ast
import json
import os

import pytest

from torchperf_lint.analysis import project_index
from torchperf_lint.frontends import cli

HELPER = """\
import torch


def log(loss):
    return loss.item()
"""
OTHER = """\
import torch


def evaluate(model, loader):
    for x in loader:
        print(model(x.cuda()).sum().item())
"""
TRAIN = """\
import torch
import aa_helper


def main(model, loader, opt):
    for x in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        aa_helper.log(loss)
"""


@pytest.fixture
def checked(project, monkeypatch):
    """The project's files, and the names of the files the CLI checks, in order, and the texts
    ``ast.parse`` is given, with their counts."""
    for name, text in (("aa_helper.py", HELPER), ("bb_other.py", OTHER), ("zz_train.py", TRAIN)):
        project.write(name, text)
    monkeypatch.setitem(project_index._DISK_CACHE, "enabled", True)
    monkeypatch.setitem(project_index._DISK_CACHE, "directory", None)
    project_index._PROJECTS.clear()
    order, parses = [], {}
    real_process, real_parse = cli.process, ast.parse

    def process(task, display):
        order.append(display)
        return real_process(task, display)

    def parse(source, *args, **kwargs):
        if isinstance(source, str):
            parses[source] = parses.get(source, 0) + 1
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(cli, "process", process)
    monkeypatch.setattr(ast, "parse", parse)
    return project, order, parses


def _findings(out: str):
    return sorted((os.path.basename(f["filename"]), f["code"], f["location"]["row"], f["message"])
                  for f in json.loads(out))


def test_a_file_the_index_parsed_ahead_is_linted_next_and_parsed_once(checked):
    project, order, parses = checked
    code, out, _ = project.run("--no-cache", "--output-format", "json", ".")
    assert code == 1
    # aa_helper's walk read zz_train (it imports aa_helper): its tree was linted next.
    assert order == ["aa_helper.py", "zz_train.py", "bb_other.py"]
    assert [parses.get(text) for text in (HELPER, OTHER, TRAIN)] == [1, 1, 1]
    found = _findings(out)
    assert [(name, code_, row) for name, code_, row, _ in found] == [
        ("aa_helper.py", "TPL102", 5), ("bb_other.py", "TPL102", 6)]
    assert "called every step from zz_train.py:10" in found[0][3]


def test_fix_keeps_the_order_the_files_were_found_in(checked, monkeypatch):
    project, order, parses = checked
    project.run("--no-cache", "--fix", ".")
    assert order == ["aa_helper.py", "bb_other.py", "zz_train.py"]


def test_the_order_is_only_a_choice_of_what_comes_next(checked):
    """Any order gives the same findings: the serial run against worker processes (each file in
    the order the pool takes them, each worker with its own index)."""
    project, order, parses = checked
    _, serial_out, _ = project.run("--no-cache", "--output-format", "json", ".")
    project_index._PROJECTS.clear()
    code, pooled_out, _ = project.raw("check", "--jobs", "2", "--no-cache", "--output-format", "json", ".")
    assert _findings(serial_out) == _findings(pooled_out)
