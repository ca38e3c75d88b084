"""The engine's shortcuts (issue 11) keep its results: unvalidated parsing, the level-wise unit
survey, units without a loop skipped for rules that report only inside one, and the ast
prefilters (no step loop possible, no host factory possible) that leave units out of libcst."""

import ast
import os
import textwrap

import libcst as cst
import pytest

from torchperf_lint import engine
from torchperf_lint.engine import lint_source, parse_unvalidated
from torchperf_lint.rules import RULES
from torchperf_lint.analysis.segments import split_units, walk_ast
from torchperf_lint.analysis.step_loops import ModuleSteps

SOURCES = [
    "x = " + "-" * 300 + "y\n",
    "x = " + " + ".join(["a"] * 300) + "\n",
    "f(a and b or c and d and e)\n",
    "def f():\n    for i in range(3):\n        x[i]: int = not -y\n    while x: pass\n",
    "async def g():\n    async for i in it:\n        await i\n",
    "del x\nglobal a\n{1: 2, **x}\nprint(f'{x!r:>{w}}')\n",
    "match x:\n    case [1, {'a': b}] if b:\n        pass\n    case _:\n        pass\n",
    "try:\n    pass\nexcept* E as e:\n    pass\n",
    "lambda *a, b=1, **k: a if b else k\n",
    "class A:\n    x = [i for i in range(3)]\n    def m(self):\n        return 1\n",
]


@pytest.mark.parametrize("source", SOURCES)
def test_survey_matches_shape_and_sees_loops(source):
    for unit in split_units(ast.parse(source)):
        depth, _, width, _ = unit.shape()
        loops = any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) for s in unit.nodes for n in ast.walk(s))
        assert unit.survey() == (depth, width, loops)


@pytest.mark.parametrize("source", SOURCES)
def test_unvalidated_parse_is_the_same_tree_and_validation_comes_back(source):
    tree = parse_unvalidated(source)
    assert tree.code == source
    assert tree.deep_equals(cst.parse_module(source))
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")  # nodes built after the parse are validated again


LOOPLESS = '''
import torch

def log_metrics(loss):
    """Called for every batch; while training it prints the value."""
    print(loss.item())
'''


def test_loop_rules_do_not_parse_units_without_a_loop(monkeypatch):
    parsed = []
    real = engine.parse_unvalidated
    monkeypatch.setattr(engine, "parse_unvalidated", lambda code: parsed.append(code) or real(code))
    assert RULES["TPL102"].may_match(LOOPLESS)  # the docstring's words pass the text prefilter
    assert lint_source(LOOPLESS, codes={"TPL102"}) == []
    assert parsed == []
    looped = LOOPLESS.replace("    print(loss.item())", "    for batch in loader:\n        print(loss.item())")
    findings = lint_source(looped, codes={"TPL102"})
    assert len(parsed) == 1 and [f.code for f in findings] == ["TPL102"]


def test_rules_that_need_a_loop_say_so():
    assert {code for code, rule in RULES.items() if rule.needs_loop} == {"TPL305", "TPL602"}
    assert {code for code, rule in RULES.items() if rule.needs_step_loop} == {
        "TPL102", "TPL103", "TPL104", "TPL207", "TPL604"}


def _parsed_units(monkeypatch):
    parsed = []
    real = engine.parse_unvalidated
    monkeypatch.setattr(engine, "parse_unvalidated", lambda code: parsed.append(code) or real(code))
    return parsed


NO_STEP_LOOP = '''
import torch

def summarize(metrics):
    for name, value in metrics.items():  # a report loop: no loader, no step
        print(name, value.item())

def convert(state_dict):
    for key in list(state_dict):
        if state_dict[key].sum() > 0:
            state_dict[key] = state_dict[key].cpu()
'''

STEP_LOOP_ELSEWHERE = '''
import torch

def log_step(loss):
    for _ in range(1):
        print(loss.item())  # TPL102: called every step from train()

def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        log_step(loss)
'''


NESTED_LOADER_LOOP = '''
import torch

def train(loader, epochs):
    for epoch in range(epochs):  # runs no step itself: the loop inside is tested by what it iterates
        if epoch > 0:
            for batch in loader:
                torch.cuda.synchronize()  # TPL102
'''


def test_a_loader_loop_inside_a_loop_that_runs_no_step_is_still_parsed(monkeypatch):
    parsed = _parsed_units(monkeypatch)
    findings = lint_source(NESTED_LOADER_LOOP, codes={"TPL102"})
    assert [(f.code, f.line) for f in findings] == [("TPL102", 8)] and len(parsed) == 1


def test_units_without_a_possible_step_loop_are_not_parsed_for_step_loop_rules(monkeypatch):
    parsed = _parsed_units(monkeypatch)
    codes = {"TPL102", "TPL103", "TPL104", "TPL207", "TPL604"}
    assert RULES["TPL102"].may_match(NO_STEP_LOOP)  # loops, syncs and tests: the text passes
    assert lint_source(NO_STEP_LOOP, codes=codes) == []
    assert parsed == []
    # A helper's loop is a step loop when a step loop of another unit calls it: parsed, found.
    findings = lint_source(STEP_LOOP_ELSEWHERE, codes=codes)
    assert [(f.code, f.line) for f in findings] == [("TPL102", 6)]
    assert len(parsed) == 1 and "def log_step" in parsed[0]


CPU_THEN_DEVICE_NEGATIVES = '''
import numpy as np
import torch

def make(n, device):
    """torch.zeros(n).cuda() is slow; so is torch.ones(n).to(device)."""
    a = torch.zeros(n, device=device).to(torch.float16)
    b = np.zeros(n)
    c = torch.tensor(b).to(device)
    return a, b, c
'''

CPU_THEN_DEVICE_ALIASES = '''
import torch
from torch import ones

def local_alias(n, device):
    zeros = torch.zeros
    return zeros(n).to(device)  # TPL101

def imported_name(n, device):
    return ones(n).cuda()  # TPL101

def imported_in_function(n):
    from torch import arange
    return arange(n).cuda()  # TPL101
'''


def test_tpl101_parses_only_units_with_a_possible_host_factory(monkeypatch):
    parsed = _parsed_units(monkeypatch)
    assert RULES["TPL101"].may_match(CPU_THEN_DEVICE_NEGATIVES)
    assert lint_source(CPU_THEN_DEVICE_NEGATIVES, codes={"TPL101"}) == []
    assert parsed == []
    findings = lint_source(CPU_THEN_DEVICE_ALIASES, codes={"TPL101"})
    assert [f.line for f in findings] == [7, 10, 14]


CALL_GATED_NEGATIVES = '''
import argparse
import torch
from torch.utils.data import DataLoader

def batches(loader: DataLoader, launcher):
    """Iterates a DataLoader (not nn.DataParallel) built with a DistributedSampler by the caller."""
    lr = launcher.rank
    step = launcher.launch_count
    parser.add_argument(*flags)
    if isinstance(loader.sampler, torch.utils.data.DistributedSampler):
        return iter(loader)
'''

CALL_GATED_POSITIVES = '''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

def make(ds):
    Loader = torch.utils.data.DataLoader
    return Loader(ds, batch_size=8)  # TPL501

def wrap(model):
    wrapper = nn.DataParallel
    return wrapper(model)  # TPL201

def args(parser):
    parser.add_argument("--local_rank", type=int)  # TPL206

def launch():
    import torch.distributed.launch as launcher
    launcher.main()  # TPL206
'''


def test_rules_that_report_at_one_callee_parse_only_units_that_may_call_it(monkeypatch):
    """TPL201/203/204/501/502 report only at calls of one torch callable
    (``Rule.reports_at_calls_to``), TPL206 only at a legacy flag or the launcher: a mention in a
    docstring, an annotation or an ``isinstance`` test is not parsed; a local alias still is."""
    codes = {"TPL201", "TPL203", "TPL204", "TPL206", "TPL501", "TPL502"}
    parsed = _parsed_units(monkeypatch)
    assert all(RULES[c].may_match(CALL_GATED_NEGATIVES) for c in ("TPL201", "TPL204", "TPL206", "TPL501"))
    assert lint_source(CALL_GATED_NEGATIVES, codes=codes) == []
    assert parsed == []
    findings = lint_source(CALL_GATED_POSITIVES, codes=codes)
    assert sorted((f.line, f.code) for f in findings) == [
        (8, "TPL501"), (12, "TPL201"), (15, "TPL206"), (19, "TPL206")]


def _example_sources():
    for rule in RULES.values():
        for source in (*rule.VALID, *rule.INVALID, *(before for before, _ in rule.FIXES)):
            yield textwrap.dedent(source)
    for directory in ("spec_cases", "../samples"):
        folder = os.path.join(os.path.dirname(__file__), directory)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    yield handle.read()


def test_ast_prefilters_never_lose_a_finding(monkeypatch):
    """The ast prefilters may only leave out units where the rules find nothing: every rule
    example, spec case and sample gives the same findings with them switched off."""
    sources = list(_example_sources())
    codes = list(RULES)
    with_gates = [[(f.code, f.line, f.col) for f in lint_source(s, codes=codes)] for s in sources]
    monkeypatch.setattr(ModuleSteps, "may_hold_step_loop", lambda self, statements: True)
    for rule in RULES.values():
        monkeypatch.setattr(rule, "ast_may_match", classmethod(lambda cls, unit: True))
    without = [[(f.code, f.line, f.col) for f in lint_source(s, codes=codes)] for s in sources]
    assert len(sources) > 300 and sum(map(len, without)) > 300
    assert with_gates == without


@pytest.mark.parametrize("source", SOURCES)
def test_walk_ast_visits_what_ast_walk_does(source):
    tree = ast.parse(source)
    leaves = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    expected = sorted(type(n).__name__ for s in tree.body for n in ast.walk(s) if not isinstance(n, leaves))
    assert sorted(type(n).__name__ for n in walk_ast(tree.body) if not isinstance(n, leaves)) == expected


def test_positions_without_the_empty_batched_visit_are_libcsts():
    from libcst.metadata import MetadataWrapper, PositionProvider

    for source in [*SOURCES, *list(_example_sources())[:40]]:
        module = cst.parse_module(source)
        expected = dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))
        assert dict(engine._PositionsOnly(module, unsafe_skip_copy=True).resolve(PositionProvider)) == expected


# An interval gate (interval_gates.py) in a step loop: the project index's summary and the walk
# both ask whether the ``if``/``else`` gates what follows.
GATED_SOURCE = textwrap.dedent("""
    import torch

    def train(model, loader, opt, args):
        for steps, batch in enumerate(loader):
            loss = model(batch)
            loss.backward()
            opt.step()
            if steps == 0:
                if not args.sample_at_first:
                    continue
            else:
                if steps % args.sample_every_n_steps != 0:
                    continue
            print(loss.item())
""")


def _our_garbage(garbage) -> list:
    """Objects of ours among the collector's garbage: instances of our, libcst's or ast's classes,
    and functions defined in our modules (closures that call each other hold each other's cells: a
    cycle of builtin types that only the function's module names)."""
    import types

    return [type(o).__module__ + "." + type(o).__qualname__ + (f" {o.__qualname__}" if isinstance(o, types.FunctionType) else "")
            for o in garbage
            if type(o).__module__.startswith(("torchperf_lint", "libcst", "ast"))
            or (isinstance(o, types.FunctionType) and (o.__module__ or "").startswith("torchperf_lint"))]


def test_the_analysis_leaves_no_reference_cycles():
    """The engine pauses the cyclic garbage collector while it analyses a file; that is only sound
    while the trees it builds are freed by reference counting. A cycle (a frame and its bindings,
    the facts and their step loops, a class made per call, two closures that call each other)
    would keep a file's trees alive, and the CLI freezes what a file leaves (frontends/collector.py)."""
    import gc

    from torchperf_lint.analysis.project_index import summarize

    sources = [*_example_sources(), GATED_SOURCE]
    codes = list(RULES)
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        fixes = 0
        for source in sources:
            for finding in lint_source(source, codes=codes):
                if finding.fix is not None:
                    fixes += bool(finding.fix.edits)  # fixes are computed from the unit's tree
        summary = summarize(ast.parse(GATED_SOURCE))  # the index's summary, gates included
        gc.collect()
        leaked = _our_garbage(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert fixes > 50
    assert "train" in summary["functions"]  # the gated source was summarised
    assert leaked == []


def test_the_collector_is_restored_after_each_file():
    import gc

    source = "import torch\nx = torch.zeros(3).cuda()\n"
    assert gc.isenabled()
    assert lint_source(source)
    assert gc.isenabled()
    gc.disable()
    try:
        assert lint_source(source)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("text", ["", "a.cuda() for", "zeros(3).to(x)", "while 'b'", "x = y\n", "{'a': 1}"])
def test_compiled_text_tests_are_the_tests_they_stand_for(text):
    import re

    from torchperf_lint.analysis.walker import compile_text_tests

    cases = [(), (("a",),), ((".cuda(", ".to("), r"\b(?:for|while)\b"), (r"\bwhile\b", ("'b'", '"b"')),
             (("{'a'",), ("x",))]
    for tests in cases:
        expected = all(any(s in text for s in t) if isinstance(t, tuple) else re.search(t, text) is not None
                       for t in tests)
        assert compile_text_tests(tests)(text) is expected


SYNTAX_RICH = textwrap.dedent("""
    import torch
    from a import (b as c, d)
    global_name: int = 1

    @decorate(x, key=y)
    async def f(p, /, q: int = 2, *args, r, s=3, **kwargs) -> "T":
        global g
        nonlocal_like = lambda z, *w, **v: z
        async with lock as (a, b), other:
            async for i, j in agen():
                yield {**kwargs, "k": [x async for x in y if x], 1: {e for e in s}}
        try:
            del a[1:2:3], b.c
        except (TypeError, ValueError) as err:
            raise RuntimeError(f"{err!r:>{width}}") from err
        else:
            assert q, "message"
        finally:
            print(*args, sep="", **{"end": ""})
        match p:
            case [1, 2, *rest] if rest:
                pass
            case {"k": v, **others}:
                pass
            case Point(x=0, y=yy) | None:
                pass
            case str() as s2:
                pass
        while not (a < b <= c) and -a or ~b:
            x = y if z else w
            x += (yield from g()) @ h
            break
        return await t
""")


def _generic_walk(statements):
    from torchperf_lint.analysis.segments import _push_children

    pending = list(statements)
    while pending:
        node = pending.pop()
        yield node
        _push_children(node, pending.append)


def test_walk_ast_hands_on_the_nodes_of_the_generic_walk_in_its_order():
    """walk_ast reads only the fields that may hold nodes (segments.CHILD_FIELDS); the nodes and
    their order must be those of the generic walk over every field."""
    from torchperf_lint.analysis.segments import CHILD_FIELDS

    root = os.path.join(os.path.dirname(engine.__file__))
    sources = [SYNTAX_RICH, *SOURCES]
    for folder, _, names in os.walk(root):
        sources += [open(os.path.join(folder, n), encoding="utf-8").read() for n in sorted(names) if n.endswith(".py")]
    assert len(CHILD_FIELDS) > 60 and ast.Call in CHILD_FIELDS and ast.Match in CHILD_FIELDS
    for source in sources:
        tree = ast.parse(source)
        assert [id(n) for n in walk_ast(tree.body)] == [id(n) for n in _generic_walk(tree.body)]
        prune = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        expected = []
        pending = list(tree.body)
        while pending:
            node = pending.pop()
            expected.append(id(node))
            if not isinstance(node, prune):
                from torchperf_lint.analysis.segments import _push_children
                _push_children(node, pending.append)
        assert [id(n) for n in walk_ast(tree.body, prune)] == expected
