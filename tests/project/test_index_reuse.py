"""What the engine and the project index compute once, or not at all, within a run (issue 20,
"Speed"): a file's step bodies are made only when one of its units could use them; a linted file
that an importer walk later reads from the disk with the same text keeps the facts derived from
it; index entries are stored in the form a process keeps. These tests check what is computed and
what is reported, never how long it takes (benchmarks/ measure that)."""

from __future__ import annotations

import ast
import os

import pytest

from torchperf_lint import engine
from torchperf_lint.analysis import project_index

from _diagnostics import ITEM_SYNC as SYNC


HELPER = """\
import torch


def helper(x):
    return x.item()
"""
TRAIN = """\
import torch
import helper


def main(model, loader, opt):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        helper.helper(loss)
"""
CONSTANTS = """\
import torch

SIZE = 3
"""


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for name, text in (("helper.py", HELPER), ("train.py", TRAIN), ("constants.py", CONSTANTS)):
        (root / name).write_text(text)
    monkeypatch.chdir(root)
    monkeypatch.setenv(project_index.CACHE_ENV, str(tmp_path / "cache"))
    # The process-wide settings an in-process CLI run (--no-cache) or flake8 run of another test
    # may have left behind: these tests read the disk cache as a default run has it.
    monkeypatch.setitem(project_index._DISK_CACHE, "enabled", True)
    monkeypatch.setitem(project_index._DISK_CACHE, "directory", None)
    monkeypatch.setitem(project_index._ROOTS, "memo", None)
    project_index._PROJECTS.clear()
    yield root
    project_index._PROJECTS.clear()


@pytest.fixture
def made(monkeypatch):
    """The files whose step bodies the engine made, in order."""
    files = []
    real = engine.step_bodies_for

    def counting(filename, *args, **kwargs):
        files.append(os.path.basename(filename))
        return real(filename, *args, **kwargs)

    monkeypatch.setattr(engine, "step_bodies_for", counting)
    return files


def _lint(root, name, text=None):
    path = str(root / name)
    return engine.lint_source((root / name).read_text() if text is None else text, path), path


def test_step_bodies_are_made_only_for_a_file_with_a_unit_that_could_use_them(root, made):
    findings, path = _lint(root, "constants.py")
    assert findings == []
    assert made == []  # no unit passes a prefilter even read as a step body: nothing to walk
    assert engine.dependencies_of(path) == frozenset()
    # ... and its summary is still made from the engine's tree, for the importer walks of others
    project = project_index.project_for(path)
    assert project.module_from_tree(path, CONSTANTS, ast.parse(CONSTANTS)).name == "constants"
    assert project.parsed == 0

    findings, path = _lint(root, "helper.py")
    assert made == ["helper.py"]
    (finding,) = findings
    assert (finding.code, finding.line, finding.col, finding.end_line, finding.end_col) == ("TPL102", 5, 11, 5, 19)
    assert finding.message == SYNC + " (called every step from train.py:10)"
    assert finding.related == ((str(root / "train.py"), 10, "called every step from here (in main)"),)
    assert finding.fix is None
    train = root / "train.py"
    stat = train.stat()
    assert engine.dependencies_of(path) == frozenset(
        {(str(train), stat.st_size, stat.st_mtime_ns, project_index.content_digest(TRAIN))})


def test_the_same_findings_with_and_without_step_bodies_on_demand(root, monkeypatch):
    """Every file of the project, linted with the bodies made eagerly for each (as before) and
    on demand: the same findings, whole."""
    def whole(found):
        return [(f.code, f.line, f.col, f.end_line, f.end_col, f.message, f.related, f.fix) for f in found]

    on_demand = {name: whole(_lint(root, name)[0]) for name in ("constants.py", "helper.py", "train.py")}
    project_index._PROJECTS.clear()
    real = engine._StepBodiesOnDemand.__init__

    def eager(self, *args):
        real(self, *args)
        self.make()

    monkeypatch.setattr(engine._StepBodiesOnDemand, "__init__", eager)
    eagerly = {name: whole(_lint(root, name)[0]) for name in ("constants.py", "helper.py", "train.py")}
    assert on_demand == eagerly
    assert len(on_demand["helper.py"]) == 1


def test_a_linted_file_read_back_with_the_same_text_keeps_what_was_derived(root):
    _, path = _lint(root, "helper.py")
    project = project_index.project_for(path)
    linted = project._modules[path]
    assert linted.stamp == (-1, -1)  # the engine's text: not read from the disk yet
    project.memo[("derived",)] = "kept"
    parsed = project.parsed  # train.py, which imports it: parsed by the index for its step bodies
    read = project.module(path)
    stat = (root / "helper.py").stat()
    assert read is linted and read.stamp == (stat.st_size, stat.st_mtime_ns)
    assert project.memo.get(("derived",)) == "kept"
    assert project.parsed == parsed  # not parsed again


def test_a_linted_text_that_differs_from_the_disk_is_replaced_and_the_facts_dropped(root):
    edited = HELPER.replace("x.item()", "x.sum().item()")  # an editor's buffer, not saved
    _, path = _lint(root, "helper.py", edited)
    project = project_index.project_for(path)
    linted = project._modules[path]
    project.memo[("derived",)] = "stale"
    read = project.module(path)
    assert read is not linted
    assert read.digest == project_index.content_digest(HELPER) != linted.digest
    assert ("derived",) not in project.memo


def test_index_entries_are_stored_as_a_process_keeps_them(root):
    _lint(root, "train.py")
    project = project_index.project_for(str(root / "train.py"))
    stored = project._cached(project_index.content_digest(TRAIN))
    expected = project_index._frozen_summary(project_index.summarize(ast.parse(TRAIN)))
    assert stored == expected
    calls = stored["functions"]["main"]["calls"]
    assert type(calls) is tuple and all(type(call[3]) is tuple for call in calls)
    module = project_index.Module("train", str(root / "train.py"), stored, "d", (1, 1), kept=True)
    assert module.data is stored  # read as stored: not converted again


def test_an_entry_made_by_other_code_of_any_analysis_module_is_not_read(monkeypatch):
    # The summariser reads helpers from several analysis modules (interval gates, throttles,
    # budgets, step loops...): a change to any of them must change the entries' names, or an old
    # summary would be read as today's.
    import builtins
    import io

    monkeypatch.setitem(project_index._CODE_DIGEST, "value", None)
    today = project_index._code_digest()
    real_open = builtins.open

    def edited_open(path, mode="r", *args, **kwargs):
        if str(path).endswith(os.path.join("analysis", "interval_gates.py")) and "b" in mode:
            with real_open(path, mode, *args, **kwargs) as handle:
                return io.BytesIO(handle.read() + b"\n# edited\n")
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", edited_open)
    monkeypatch.setitem(project_index._CODE_DIGEST, "value", None)
    assert project_index._code_digest() != today
    monkeypatch.setattr(builtins, "open", real_open)
    monkeypatch.setitem(project_index._CODE_DIGEST, "value", None)
    assert project_index._code_digest() == today  # the same code, the same name


def test_a_tree_the_index_parsed_is_linted_with_the_table_and_step_loops_its_summary_built(root, monkeypatch):
    """helper.py's step bodies make the index parse train.py (it imports helper): the engine then
    lints train.py from that tree, with the import table and step loops the summary built from it
    (none built again), and reports what a lint that parses train.py itself reports."""
    from torchperf_lint.analysis import names, step_loops

    def whole(found):
        return [(f.code, f.line, f.col, f.end_line, f.end_col, f.message, f.related, f.fix) for f in found]

    (root / "train.py").write_text(TRAIN.replace("        opt.step()\n", "        opt.step()\n        print(loss.item())\n"))
    alone = whole(_lint(root, "train.py")[0])  # no tree kept: the engine parses it
    assert [(code, line) for code, line, *_ in alone] == [("TPL102", 10)]
    project_index._PROJECTS.clear()
    monkeypatch.setenv(project_index.CACHE_ENV, str(root.parent / "cache-2"))  # no entry of train.py

    _lint(root, "helper.py")
    project = project_index.project_for(str(root / "train.py"))
    assert project.parsed == 1 and str(root / "train.py") in project._trees
    built = []
    real_steps, real_table = step_loops.ModuleSteps.__init__, names.ImportTable.from_ast.__func__

    def counting_steps(self, *args, **kwargs):
        built.append("steps")
        real_steps(self, *args, **kwargs)

    def counting_table(cls, tree):
        built.append("table")
        return real_table(cls, tree)

    monkeypatch.setattr(step_loops.ModuleSteps, "__init__", counting_steps)
    monkeypatch.setattr(names.ImportTable, "from_ast", classmethod(counting_table))
    parses, real_parse = [], ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parses.append(1) or real_parse(*a, **k))
    assert whole(_lint(root, "train.py")[0]) == alone
    assert built == [] and parses == []
    assert str(root / "train.py") not in project._trees  # handed over once


def test_a_kept_tree_of_another_text_is_not_used(root, monkeypatch):
    """The file changed (an editor's buffer, stdin) after the index parsed it: the engine parses
    the text it was given, and the kept tree, table and step loops are dropped."""
    _lint(root, "helper.py")  # (a fresh cache: train.py parsed by the index)
    project = project_index.project_for(str(root / "train.py"))
    assert str(root / "train.py") in project._trees
    edited = TRAIN.replace("helper.helper(loss)", "print(loss.item())")
    findings, _ = _lint(root, "train.py", edited)
    assert [(f.code, f.line) for f in findings if f.code == "TPL102"] == [("TPL102", 10)]
    assert str(root / "train.py") not in project._trees


def test_the_project_is_listed_again_after_a_time_that_grows_with_what_its_listing_costs(root, monkeypatch):
    """A long-lived process lists the project's files again to see new and changed ones: after
    IMPORTERS_FRESH_FOR seconds, or LISTING_COST_FACTOR times what the last listing took if that is
    longer; a change it is told of (files_changed) at once."""
    import time

    project = project_index.project_for(str(root / "helper.py"))
    listings = []
    real = project_index.Project._list_disk_import_words

    def counting(self):
        listings.append(1)
        real(self)

    monkeypatch.setattr(project_index.Project, "_list_disk_import_words", counting)
    assert project.importers("helper") == [str(root / "train.py")]
    assert len(listings) == 1

    def asked_after(seconds, listing_cost):
        project._listing_cost = listing_cost
        project._import_words_at = time.monotonic() - seconds
        project.importers("helper")
        return len(listings)

    assert asked_after(4, 0.01) == 1  # fresh: within IMPORTERS_FRESH_FOR
    assert asked_after(6, 0.01) == 2  # listed again: the time it costs is small
    assert asked_after(6, 1.0) == 2  # a listing that took a second is fresh for 50
    assert asked_after(49, 1.0) == 2
    assert asked_after(51, 1.0) == 3
    project._listing_cost = 1.0
    (root / "other.py").write_text("import helper\n")
    project.files_changed()
    assert project.importers("helper") == [str(root / "other.py"), str(root / "train.py")]
    assert len(listings) == 4


def test_the_summary_walk_hands_on_every_child_node_in_order():
    """The summary's expression walk reads each node type's child fields from its ASDL signature
    (project_index._CHILD_FIELDS): over every node of the package's own source, and of forms the
    package does not use (match, walrus, starred, async, f-strings, lambdas, slices), those fields
    give exactly the child nodes ``ast.iter_child_nodes`` gives, in its order, but the operator and
    context singletons."""
    from pathlib import Path

    import torchperf_lint

    singletons = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    extra = """
match point:
    case [x, *rest] if (n := len(rest)) > 1:
        pass
    case {"k": v, **others} | Point(x=0, y=_) as p:
        pass
async def f(a, /, b=1, *args, c, d=2, **kw):
    async with g() as h, i():
        async for j in k:
            yield [l async for l in m if l]
    return lambda q=1: q[1:2, ::3], f"{a!r:>{b}}", {**kw}, (*args,)
global_name: int = 0
del a[0], b.c
try:
    pass
except* ValueError as e:
    raise
"""
    sources = [path.read_text() for path in Path(torchperf_lint.__file__).parent.rglob("*.py")] + [extra]
    checked = 0
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            fields = project_index._CHILD_FIELDS.get(type(node))
            if fields is None:
                continue
            expected = [child for child in ast.iter_child_nodes(node) if not isinstance(child, singletons)]
            found = []
            for name, many in fields:
                value = getattr(node, name)
                found.extend((item for item in value if item is not None) if many else [value] if value else [])
            assert found == expected, (type(node).__name__, ast.dump(node)[:200])
            checked += 1
    assert checked > 50000


PROBE = """\
import torch


def probe(net, x):
    net(x).sum().backward()
    return x.item()
"""
RUN_ONCE = """\
import torch
import probe

model = torch.nn.Linear(2, 2).cuda()
probe.probe(model, torch.ones(2).cuda())
"""


def test_the_callers_index_of_a_module_is_its_own_and_follows_its_edits(root, monkeypatch):
    """R2 reads the callers of a function with its own backward from every module the walk read;
    each module's calls are indexed by callee name once (run_once.module_call_sites, kept on the
    module). An edit of the caller's file makes a new module with its own index: the call now in a
    loop makes ``probe`` a step body again."""
    from torchperf_lint.analysis import run_once

    (root / "probe.py").write_text(PROBE)
    (root / "setup_run.py").write_text(RUN_ONCE)
    findings, path = _lint(root, "probe.py")
    assert findings == []  # its only visible caller runs it once, at module level (R2)
    project = project_index.project_for(path)
    caller = project.module(str(root / "setup_run.py"))
    sites = caller.derived["call_sites"]
    assert [(qual, call[0], call[1]) for qual, _, call in sites["probe"]] == [
        ("<module>", ("dotted", "probe.probe"), 5)]
    assert run_once.module_call_sites(caller) is sites  # indexed once per module

    monkeypatch.setattr(project_index, "IMPORTERS_FRESH_FOR", 0.0)  # see the edit at once
    (root / "setup_run.py").write_text(RUN_ONCE.replace(
        "probe.probe(model,", "for _ in range(3):\n    probe.probe(model,"))
    findings, _ = _lint(root, "probe.py")
    assert [(f.code, f.line, f.col, f.end_line, f.end_col) for f in findings] == [("TPL102", 6, 11, 6, 19)]
    assert findings[0].message == SYNC
    edited = project.module(str(root / "setup_run.py"))
    assert edited is not caller and "probe" in edited.derived["call_sites"]
