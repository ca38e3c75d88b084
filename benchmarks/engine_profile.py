"""Where the engine's time goes: CPU seconds of ``lint_source`` over a tree, the ``ast.parse`` floor
for the same files, and a cProfile breakdown by phase.

    python benchmarks/engine_profile.py TREE [TREE...] [--no-profile] [--top 25]

All numbers are CPU time of this process (``time.process_time``: user+system), not wall time, so
a machine shared with other jobs slows them less. The files are those the CLI checks (default
excludes), read and decoded once before timing.

- engine: ``lint_source`` of every file, without a profiler (the number that counts);
- floor: ``ast.parse`` of the files that mention a torch import (the engine parses those with ast
  before anything else, so it can never be faster than this);
- both timed file by file, one after the other, so that the load of a shared machine changing
  during the run weighs on both alike and their ratio holds still;
- phases (with --profile, the default): the same run under cProfile; each phase is the inclusive
  time of the functions that make it up, as a share of the profiled total (cProfile inflates
  Python-heavy phases more than C-heavy ones such as the parsers, so read shares, not seconds).
"""

from __future__ import annotations

import argparse
import ast
import gc
import cProfile
import os
import platform
import pstats
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from torchperf_lint.frontends.config import Config, discover  # noqa: E402
from torchperf_lint.engine import lint_source  # noqa: E402
from torchperf_lint.analysis.names import text_mentions_torch_import  # noqa: E402

# phase -> (file suffix, function name) pairs whose inclusive time makes up the phase. Nested
# phases (positions inside the fix computation) are listed separately and not double-counted in
# the total, which is lint_source's own inclusive time.
_WALK_SIDE = ("walker.py", "/rules/", "engine.py", "syntax.py")
PHASES = {
    "ast.parse (the engine's own, files that import torch)": [("~", "<built-in method builtins.compile>")],
    "ImportTable.from_ast": [("names.py", "from_ast")],
    "prefilters (file and unit regexes)": [("walker.py", "may_match"), ("walker.py", "file_may_match"),
                                           ("tpl102_host_sync_in_loop.py", "may_match")],
    "unit split, unit text and survey (depth, width, loops)": [
        ("segments.py", "split_units"), ("segments.py", "text"), ("segments.py", "survey"),
        ("segments.py", "shape"), ("segments.py", "parse_source")],
    "libcst parse_module": [("entrypoints.py", "parse_module")],
    "walk and rules (walker.walk)": [("walker.py", "walk")],
    "... step loops (facts.steps and step_loops.py, inside the walk)": [
        ("facts.py", "steps"), ("step_loops.py", "*", _WALK_SIDE)],
    "... value flow (value_flow.py, inside the walk)": [("value_flow.py", "*", _WALK_SIDE)],
    "... other module facts (facts.py, lazily, inside the walk)": [("facts.py", "*", _WALK_SIDE, "steps")],
    "positions metadata (MetadataWrapper.resolve)": [("wrapper.py", "resolve")],
    "fixes (LazyFix compute)": [("engine.py", "compute")],
}


def load(trees):
    files, _ = discover(trees, Config(root=trees[0]))
    sources = []
    for path in files:
        data = path.read_bytes()
        try:
            sources.append((str(path), data.decode("utf-8-sig"), len(data)))  # as the CLI reads them
        except UnicodeDecodeError:
            continue
    return sources


def cpu(fn):
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def finding_line(name: str, finding) -> str:
    """One finding, whole (code, range, message, related locations, fix), on one line."""
    fix = finding.fix
    fixed = None if fix is None else (fix.applicability, fix.description, tuple(fix.edits))
    return (f"{name} {finding.code} {finding.line} {finding.col} {finding.end_line} {finding.end_col} "
            f"{finding.message!r} {finding.related} {fixed}")


def engine_and_floor(sources, found=None):
    """(engine cpu-s, floor cpu-s, findings, files that import torch), timed file by file and
    alternately, so that a change of load on a shared machine weighs on both sides alike.
    ``found``: a list that gets every finding as one line (finding_line), for a corpus diff."""
    engine = floor = 0.0
    findings = n_torch = 0
    clock = time.process_time
    for name, text, _ in sources:
        if text_mentions_torch_import(text):
            n_torch += 1
            # With the cyclic collector paused, as the engine parses: the floor is the parse alone.
            gc.disable()
            start = clock()
            try:
                ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
            floor += clock() - start
            gc.enable()
        start = clock()
        result = lint_source(text, name)
        engine += clock() - start
        findings += len(result)
        if found is not None:
            found.extend(finding_line(name, finding) for finding in result)  # fixes computed untimed
    return engine, floor, findings, n_torch


def run_engine(sources):
    findings = 0
    for name, text, _ in sources:
        findings += len(lint_source(text, name))
    return findings


def phase_times(stats: pstats.Stats):
    """Inclusive time per phase, counting only the outermost calls of each function (callers other
    than itself). ``*``: every function of the file, counted where it is called from the walk's
    side (_WALK_SIDE), so that calls back into the file through tree.descendants do not count twice."""
    raw = stats.stats  # (file, line, func) -> (cc, nc, tt, ct, callers)
    out = {}
    for phase, keys in PHASES.items():
        total = 0.0
        for key in keys:
            suffix, func = key[0], key[1]
            for (file, _, name), (_, _, _, _, callers) in raw.items():
                if suffix == "~":
                    if name == func:  # compile() called by ast.parse: the engine's ast.parse
                        total += sum(c[3] for (cf, _, _), c in callers.items() if cf.endswith("ast.py"))
                    continue
                if not file.endswith(suffix):
                    continue
                if func == "*":
                    if len(key) > 3 and name == key[3]:
                        continue
                    total += sum(c[3] for (cf, _, _), c in callers.items()
                                 if any(side in cf for side in key[2]) and not cf.endswith(suffix))
                elif name == func:
                    total += sum(c[3] for (cf, _, cn), c in callers.items() if cn != func)
        out[phase] = total
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, metavar="TREE")
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile breakdown")
    parser.add_argument("--top", type=int, default=20, help="functions listed by own time")
    parser.add_argument("--findings-out", type=Path, metavar="FILE",
                        help="write every finding, whole and sorted, one a line (diff two trees of the code with it; "
                             "run with PYTHONHASHSEED=0 and a fresh TORCHPERF_LINT_CACHE_DIR)")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.trees]
    sources = load(trees)
    os.chdir(trees[0])  # as cli_cold.py runs the CLI: one project for a tree without a marker (find_root)
    mb = sum(size for _, _, size in sources) / 1e6
    print(f"files {len(sources)}  {mb:.1f} MB  python {platform.python_version()}  "
          f"{platform.machine()} {platform.processor() or ''}")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 12000))
    found = [] if args.findings_out else None
    engine, floor, findings, n_torch = engine_and_floor(sources, found)
    if args.findings_out:
        args.findings_out.write_text("".join(line + "\n" for line in sorted(found)), encoding="utf-8")
    print(f"engine  {engine:7.1f} cpu-s  {mb / engine:5.2f} MB/s per core   findings {findings}")
    print(f"floor   {floor:7.1f} cpu-s  {mb / floor:5.2f} MB/s   (ast.parse of the {n_torch} files that import torch)")
    print(f"engine / floor = {engine / floor:.2f}")
    if args.no_profile:
        return
    profiler = cProfile.Profile()
    profiler.enable()
    run_engine(sources)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(ct for (f, _, n), (_, _, _, ct, _) in stats.stats.items()
                if f.endswith("engine.py") and n == "lint_source")
    print(f"\nphases under cProfile (total lint_source {total:.1f} s, profiled):")
    for phase, seconds in phase_times(stats).items():
        print(f"  {phase:58} {seconds:7.1f} s  {100 * seconds / total:5.1f} %")
    print(f"\ntop {args.top} functions by own time:")
    stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
