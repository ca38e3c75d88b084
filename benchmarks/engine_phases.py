"""Where the engine's cold CPU time goes, by phase, without a profiler's distortion.

    python benchmarks/engine_phases.py TREE [TREE...]

Runs ``lint_source`` in-process over the files the CLI would check (as ``engine_profile.py``
does, a fresh index cache directory unless ``TORCHPERF_LINT_CACHE_DIR`` is set) with a few dozen
of the engine's and the index's functions wrapped by a timer that charges **exclusive** CPU time
(``time.process_time``) to a phase: time spent in a wrapped callee is charged to the callee's
phase, not to its caller's, so the rows add up to the engine's total (``lint_source`` of every
file). The timers cost a little themselves (a clock read on entry and exit, about a microsecond;
the most frequently wrapped calls are listed with their counts), so the total reads a few percent
above ``engine_profile.py --no-profile``'s. The ``ast.parse`` floor (the files that import torch,
with the collector paused, as ``engine_profile.py`` times it) is timed in the same run, file by
file before each file's lint. Fixes are computed after each file's lint (not in the engine total),
as the CLI does for its output.
"""

from __future__ import annotations

import argparse
import ast
import functools
import gc
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

if not os.environ.get("TORCHPERF_LINT_CACHE_DIR"):
    os.environ["TORCHPERF_LINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="tpl-phases-")

from engine_profile import load  # noqa: E402
import torchperf_lint.engine as engine  # noqa: E402
from torchperf_lint.analysis import names, project_index as pi, step_bodies as sb, step_loops  # noqa: E402
from torchperf_lint.analysis import walker  # noqa: E402
from torchperf_lint.analysis.names import text_mentions_torch_import  # noqa: E402

clock = time.process_time
spent = defaultdict(float)
calls = defaultdict(int)
stack = [["engine: the rest (lint_source's own work, unit loop, prefilters, frees)", 0.0]]
extra = defaultdict(float)  # counts and sizes


def enter(label):
    now = clock()
    top = stack[-1]
    spent[top[0]] += now - top[1]
    stack.append([label, now])
    calls[label] += 1


def leave():
    now = clock()
    label, start = stack.pop()
    spent[label] += now - start
    stack[-1][1] = now


def wrap(owner, name, label):
    real = getattr(owner, name)

    @functools.wraps(real)
    def timed(*args, **kwargs):
        enter(label)
        try:
            return real(*args, **kwargs)
        finally:
            leave()

    setattr(owner, name, timed)


class _AstProxy:
    """``ast`` for one module, with ``parse`` timed under ``label`` and its characters counted."""

    def __init__(self, label, chars_key, on_parse=None):
        self.label, self.chars_key, self.on_parse = label, chars_key, on_parse

    def __getattr__(self, attr):
        return getattr(ast, attr)

    def parse(self, source, *args, **kwargs):
        enter(self.label)
        try:
            return ast.parse(source, *args, **kwargs)
        finally:
            leave()
            extra[self.chars_key] += len(source)
            if self.on_parse is not None:
                self.on_parse(source)


def instrument():
    index_parsed = set()
    engine_parsed = []

    def index_parse(source):
        index_parsed.add(hash(source))
        if text_mentions_torch_import(source):
            extra["index parses of torch files"] += 1
            extra["index parse chars, torch files"] += len(source)

    def engine_parse(source):
        engine_parsed.append(hash(source))

    pi.ast = _AstProxy("index: ast.parse", "index parse chars", index_parse)
    engine.ast = _AstProxy("engine: ast.parse (its own)", "engine parse chars", engine_parse)
    wrap(pi._Summariser, "run", "index: summaries (_Summariser.run)")
    wrap(step_loops.ModuleSteps, "__init__", "ModuleSteps built (index and engine)")
    wrap(pi, "_frozen_summary", "index: summaries frozen (_frozen_summary)")
    wrap(pi.Project, "_store", "index: entries written")
    wrap(pi.Project, "_cached", "index: entries looked up")
    wrap(pi.Project, "_module_at", "index: module reads (stat, read, digest, Module)")
    wrap(pi.Project, "importer_closure", "index: importer closure (own)")
    wrap(pi.Project, "_ensure_import_listing", "index: project listing")
    wrap(pi, "project_for", "index: project_for")
    wrap(sb, "project_for", "index: project_for")
    wrap(sb.StepBodies, "_compute", "step bodies: walks from the roots (own)")
    wrap(engine, "step_bodies_for", "step bodies: step_bodies_for (own)")
    wrap(engine, "record_summary", "index: record_summary (own)")
    wrap(engine, "parsed_module", "engine: parsed_module (take a kept tree)")
    wrap(names.ImportTable, "from_ast", "ImportTable.from_ast")
    wrap(engine, "ModuleFacts", "engine: ModuleFacts()")
    wrap(engine, "UnitAst", "engine: UnitAst (ast gates' unit scan)")
    wrap(engine, "_lint_unit", "engine: per libcst unit, the rest (Context, rules made, findings)")
    wrap(engine, "walk", "walk and rule visitors (walker.walk, value flow, facts inside)")
    wrap(engine._PositionsOnly, "resolve", "positions metadata")

    real_parse = engine.parse_unvalidated

    def parse_unit(code):
        extra["libcst units"] += 1
        extra["libcst chars"] += len(code)
        enter("libcst parse (parse_unvalidated)")
        try:
            return real_parse(code)
        finally:
            leave()

    engine.parse_unvalidated = parse_unit
    return index_parsed, engine_parsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+", type=Path)
    args = parser.parse_args(argv)
    sources = load([tree.resolve() for tree in args.trees])
    # From inside the first tree, as cli_cold.py runs the CLI: a tree without a project marker is
    # one project only when the run starts in it (project_index.find_root); started elsewhere, each
    # folder is a project of its own, and the index parses files again that one project shares.
    os.chdir(args.trees[0].resolve())
    index_parsed, engine_parsed = instrument()
    gc_time = [0.0, None]

    def on_gc(phase, info):
        if phase == "start":
            gc_time[1] = clock()
        elif gc_time[1] is not None:
            gc_time[0] += clock() - gc_time[1]

    gc.callbacks.append(on_gc)
    floor = engine_total = fixes = 0.0
    n_torch = n_findings = 0
    for name, text, _ in sources:
        if text_mentions_torch_import(text):
            n_torch += 1
            gc.disable()
            start = clock()
            try:
                ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
            floor += clock() - start
            gc.enable()
        start = clock()
        stack[-1][1] = start
        result = engine.lint_source(text, name)
        now = clock()
        spent[stack[-1][0]] += now - stack[-1][1]
        engine_total += now - start
        n_findings += len(result)
        start = clock()
        for finding in result:
            if finding.fix is not None:
                finding.fix.edits
        fixes += clock() - start
    gc.callbacks.remove(on_gc)
    total_bytes = sum(size for _, _, size in sources)
    print(f"files {len(sources)} ({total_bytes / 1e6:.1f} MB), import torch {n_torch}, findings {n_findings}")
    print(f"engine (lint_source, timers on) {engine_total:.2f} cpu-s; ast.parse floor {floor:.2f} cpu-s; "
          f"ratio {engine_total / floor:.2f}")
    print(f"fixes computed after the lint (not in the engine) {fixes:.2f} cpu-s; "
          f"cyclic collections outside the engine {gc_time[0]:.2f} cpu-s")
    print()
    print(f"| phase (exclusive) | cpu-s | share | x floor | calls |")
    print(f"|---|---|---|---|---|")
    for label, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {seconds:.2f} | {100 * seconds / engine_total:.1f} % | {seconds / floor:.2f} | "
              f"{calls.get(label, '')} |")
    print()
    twice = sum(1 for h in engine_parsed if h in index_parsed)
    print(f"libcst: {int(extra['libcst units'])} units, {extra['libcst chars'] / 1e6:.2f} M chars")
    print(f"index parses: {calls['index: ast.parse']} ({extra['index parse chars'] / 1e6:.1f} M chars), of torch "
          f"files {int(extra['index parses of torch files'])} ({extra['index parse chars, torch files'] / 1e6:.1f} M)")
    print(f"engine parses: {len(engine_parsed)} ({extra['engine parse chars'] / 1e6:.1f} M chars), "
          f"of texts the index had parsed: {twice}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
