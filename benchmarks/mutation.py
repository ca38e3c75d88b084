"""Mutation testing of torchperf_lint: would the tests notice a broken rule?

    nice python benchmarks/mutation.py [-j 2] [--per-module 60] [--seed 21] [--modules tpl101 step_loops ...]
                                       [--timeout 180] [--report benchmarks/mutation_report.md]
                                       [--rerun-survivors EARLIER.json ... [--untested-only
                                        [--retest-modules MODULE ...]]] [--stop-at HH:MM]

A small hand-rolled AST mutator (no third-party tool: mutmut's trampolines and per-mutant test
selection cost more than this whole run). For every target module it lists every mutation site,
samples ``--per-module`` of them with a fixed seed, and for each mutant:

1. writes the mutated module into a scratch copy of the repository (the working tree stays as it
   is; ``python -m pytest`` run from the copy imports the copy's package first);
2. runs only the fast tests that cover that module (``TESTS`` below), ``-x``, with a timeout;
3. counts the mutant killed (a test failed, or the run timed out) or survived.

Mutation operators, each applied to one site by replacing that site's source text only, so a
survivor's diff is one line or one statement:
- a comparison flipped (``==``/``!=``, ``<``/``>=``, ``>``/``<=``, ``in``/``not in``, ``is``/``is not``);
- ``and``/``or`` swapped;
- a ``not`` dropped;
- an ``if``/``while``/ternary condition negated;
- a constant replaced (``True``/``False`` swapped, an int + 1, a string replaced by another);
- ``+``/``-`` swapped;
- a statement removed (replaced by ``pass``), a ``return x`` made ``return None``.
Not mutated: docstrings, imports, f-strings (their parts have no reliable positions), and the
module-level ``RULE.VALID/INVALID/FIXES/WHY/...`` assignments (test data and docs, not behaviour).
Equivalent by construction and left out: ``return False`` made ``return None``, and removing a
function's last ``return``/``return None``/``return False`` (callers test these values for truth).

Before the mutants, two checks make the score mean something: the unmutated tests pass in the copy,
and a module replaced by ``raise ImportError`` is killed (the copy's package is the one imported).

Sampling and re-runs: a mutant's key is what it changes (the enclosing function, the replaced text,
the replacement, and which of the identical changes in that function it is), and a module's sample
is the ``--per-module`` keys that hash lowest under the seed: an edit elsewhere in a module keeps the
rest of its sample, and no module's sample depends on another's. Mutants are dispatched
round-robin over the modules in that hash order, so a run stopped early (``--stop-at``, or killed:
the report is rewritten after every mutant) has tested an unbiased sub-sample of every module.
``--rerun-survivors`` takes earlier reports of the same seed and size: a mutant they killed counts
as killed while its module's text is unchanged (the report keeps each module's hash); their
survivors are tested again (with ``--untested-only``, only those of ``--retest-modules``), and the
mutants they did not reach are tested. Valid when only tests were added since.

Not collected by pytest (it lives under benchmarks/); it takes about 5-15 s per mutant on an idle
machine, and up to a minute or two (a survivor runs every selected test) on a loaded one.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import copy
import difflib
import hashlib
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "torchperf_lint"

# The fast tests that cover each module, cheapest killers first (pytest stops at the first failure).
# The snapshots render every rule example and spec case with its whole diagnostics, so they notice
# any change the (line, code) suites would (test_rule_examples' line sets, test_spec_conformance);
# those are left out to keep a mutant's run short. The rules' FIXES pairs are not in the snapshots.
# The survivors' own tests go first: a re-run of the survivors (--rerun-survivors) stops at them.
_RULE_TESTS = ["tests/test_mutation_survivors.py", "tests/test_snapshots.py", "tests/test_mutation_gaps.py",
               "tests/test_rule_examples.py::test_rule_fix"]
_FIX_TESTS = _RULE_TESTS + ["tests/test_fix_layout.py", "tests/test_lazy_fixes.py", "tests/cli/test_cli_fix.py",
                            "tests/test_properties.py"]


def rule_tests(code: str) -> List[str]:
    return list(_RULE_TESTS)


TARGETS: Dict[str, Tuple[str, List[str]]] = {
    "tpl101": ("torchperf_lint/rules/tpl101_cpu_then_device.py", rule_tests("TPL101")),
    "tpl102": ("torchperf_lint/rules/tpl102_host_sync_in_loop.py", rule_tests("TPL102")),
    "tpl103": ("torchperf_lint/rules/tpl103_empty_cache_in_loop.py", rule_tests("TPL103")),
    "tpl104": ("torchperf_lint/rules/tpl104_blocking_copy.py", rule_tests("TPL104") + ["tests/rules3"]),
    "tpl304": ("torchperf_lint/rules/tpl304_deprecated_amp_api.py", rule_tests("TPL304") + ["tests/rules3"]),
    "step_loops": ("torchperf_lint/analysis/step_loops.py", _RULE_TESTS + ["tests/test_value_flow.py"]),
    "fixing.edits": ("torchperf_lint/fixing/edits.py", _FIX_TESTS),
    "fixing.fixer": ("torchperf_lint/fixing/fixer.py", _FIX_TESTS),
    "fixing.lines": ("torchperf_lint/fixing/lines.py", _FIX_TESTS),
}
# The modules issue 21 measured first, then the rest of rules/, step analysis and fixing/ it names.
DEFAULT_MODULES = ["tpl101", "tpl102", "tpl304", "step_loops", "tpl104", "fixing.edits", "fixing.fixer",
                   "fixing.lines"]

_FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
         ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_DATA_ATTRS = {"VALID", "INVALID", "FIXES", "WHY", "EXAMPLE", "USE_INSTEAD", "FIX_NOTE", "REFERENCES",
               "RUNTIME", "NOTES"}


@dataclass
class Mutant:
    module: str
    line: int
    kind: str
    start: int  # offsets into the module's text
    end: int
    replacement: str
    # What the mutant is, independent of where the module's other code moved: the enclosing
    # function's dotted name, the replaced text and the replacement, and which of the identical
    # mutants in that function it is. Sampling and re-runs go by this key.
    key: str = ""

    def apply(self, text: str) -> str:
        return text[:self.start] + self.replacement + text[self.end:]

    def diff(self, text: str, path: str) -> str:
        mutated = self.apply(text)
        return "".join(difflib.unified_diff(text.splitlines(True), mutated.splitlines(True),
                                            path, f"{path} (mutant)", n=0))


class _Offsets:
    def __init__(self, text: str):
        self.starts = [0]
        for line in text.splitlines(True):
            self.starts.append(self.starts[-1] + len(line))

    def of(self, line: int, col_bytes: int, text_line: str) -> int:
        # ast columns are UTF-8 byte offsets.
        col = len(text_line.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))
        return self.starts[line - 1] + col


def _skip_regions(tree: ast.Module) -> List[ast.AST]:
    """Nodes whose insides are never mutated."""
    skipped: List[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.JoinedStr)):
            skipped.append(node)
        elif isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                skipped.append(body[0])  # a docstring
    for statement in tree.body:  # RULE.VALID = (...) and the other examples and docs
        if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr in _DATA_ATTRS for t in statement.targets):
            skipped.append(statement)
        if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.dump(statement.test):
            skipped.append(statement)
    return skipped


def mutation_sites(module: str, text: str) -> List[Mutant]:
    tree = ast.parse(text)
    lines = text.splitlines(True)
    offsets = _Offsets(text)
    skipped = {id(n) for root in _skip_regions(tree) for n in ast.walk(root)}
    mutants: List[Mutant] = []
    scope_of: Dict[int, str] = {}

    def name_scopes(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = f"{scope}.{child.name}" if scope else child.name
            scope_of[id(child)] = inner
            name_scopes(child, inner)

    name_scopes(tree, "")

    def span(node) -> Tuple[int, int]:
        return (offsets.of(node.lineno, node.col_offset, lines[node.lineno - 1]),
                offsets.of(node.end_lineno, node.end_col_offset, lines[node.end_lineno - 1]))

    def replace(node, kind: str, new_node: Optional[ast.AST] = None, new_text: Optional[str] = None):
        start, end = span(node)
        if new_text is None:
            new_text = "(" + ast.unparse(new_node) + ")"
        key = json.dumps([scope_of.get(id(node), ""), kind, text[start:end], new_text])
        mutants.append(Mutant(module, node.lineno, kind, start, end, new_text, key))

    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                if type(op) in _FLIP:
                    new = copy.deepcopy(node)
                    new.ops[index] = _FLIP[type(op)]()
                    replace(node, f"flip {type(op).__name__}", new)
        elif isinstance(node, ast.BoolOp):
            new = copy.deepcopy(node)
            new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            replace(node, "and/or", new)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            replace(node, "drop not", new_text="(" + ast.get_source_segment(text, node.operand) + ")")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            new = copy.deepcopy(node)
            new.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            replace(node, "+/-", new)
        elif isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                replace(node, "constant", new_text=repr(not value))
            elif isinstance(value, int):
                replace(node, "constant", new_text=repr(value + 1))
            elif isinstance(value, str) and node.lineno == node.end_lineno:
                replace(node, "constant", new_text=repr("mutated" if value != "mutated" else "other"))
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and id(node.test) not in skipped:
            replace(node.test, "negate condition",
                    new_text="(not (" + ast.get_source_segment(text, node.test) + "))")
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value in (None, False)):
            replace(node.value, "return None", new_text="None")  # ``return False``: the same falsy value
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list) or isinstance(node, ast.Module):
                continue
            for statement in body:
                if id(statement) in skipped or not isinstance(statement, ast.stmt):
                    continue
                if isinstance(statement, (ast.Pass, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                if len(body) == 1 and isinstance(statement, ast.Return):
                    continue  # covered by "return None"
                if (statement is body[-1] and isinstance(statement, ast.Return) and field == "body"
                        and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and (statement.value is None or (isinstance(statement.value, ast.Constant)
                                                         and statement.value.value in (None, False)))):
                    continue  # a function's last ``return None``/``return False``: falling off is the same
                replace(statement, "remove statement", new_text="pass")
    # Some ast rewrites are no change in text (a repr round-trip): drop them.
    kept = sorted((m for m in mutants if text[m.start:m.end] != m.replacement and _compiles(m.apply(text))),
                  key=lambda m: m.start)
    seen: Dict[str, int] = {}
    for mutant in kept:  # the same change twice in one function: the first, the second, ...
        seen[mutant.key] = seen.get(mutant.key, 0) + 1
        mutant.key = f"{mutant.key}#{seen[mutant.key]}"
    return kept


def sample(sites: List[Mutant], size: int, seed: int) -> List[Mutant]:
    """The ``size`` sites whose keys hash lowest under ``seed``, in file order.

    Each mutant is drawn or not by its own key, so an edit elsewhere in the module (or in another
    module) leaves the rest of the sample as it was, and a module's sample does not depend on which
    other modules are in the run."""
    return sorted(sorted(sites, key=lambda m: _rank(m, seed))[:size], key=lambda m: m.start)


def _rank(mutant: Mutant, seed: int) -> str:
    return hashlib.sha256(f"{seed}\0{mutant.module}\0{mutant.key}".encode("utf-8")).hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _compiles(text: str) -> bool:
    try:
        compile(text, "<mutant>", "exec")
        return True
    except SyntaxError:
        return False


def _scratch_copy(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.splitlines()
    for name in files:
        source = ROOT / name
        if not source.is_file() or name.startswith(("docs/", "benchmarks/")):
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _existing(work: Path, tests: List[str]) -> List[str]:
    """The selection without test files this checkout lacks (pytest would stop with a usage error,
    which would count every mutant killed)."""
    kept: List[str] = []
    for index, item in enumerate(tests):
        if item.startswith("tests/") and not (work / item).exists():
            continue
        kept.append(item)
    return kept


def _run_tests(workdir: Path, tests: List[str], timeout: float) -> Tuple[str, float]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TPL_HYPOTHESIS_PROFILE="mutation")
    env.pop("TPL_UPDATE_SNAPSHOTS", None)
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
               *tests]
    began = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - began
    # 0: passed; 1: a test failed; others (2 interrupted, 3 internal, 4 usage, 5 none collected) are
    # an import or collection error, which is the mutant being noticed too.
    return ("survived" if proc.returncode == 0 else "killed"), time.monotonic() - began


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="*", default=DEFAULT_MODULES, choices=sorted(TARGETS))
    parser.add_argument("--per-module", type=int, default=60)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--report", type=Path, default=ROOT / "benchmarks" / "mutation_report.md")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="mutants tested at once (one scratch copy each)")
    parser.add_argument("--rerun-survivors", type=Path, nargs="+", metavar="JSON",
                        help="the .json of earlier runs with the same seed and size: a mutant they killed in "
                             "a module whose text has not changed since counts as killed; the others (their "
                             "survivors, the mutants they did not reach) are tested")
    parser.add_argument("--untested-only", action="store_true",
                        help="with --rerun-survivors: keep their survivors as survivors without testing them "
                             "again; test only the mutants they did not reach")
    parser.add_argument("--retest-modules", nargs="*", default=[], choices=sorted(TARGETS), metavar="MODULE",
                        help="with --untested-only: these modules' survivors are tested again all the same "
                             "(tests were added for them)")
    parser.add_argument("--survivors-only", action="store_true",
                        help="with --rerun-survivors: test no mutant the earlier reports did not reach")
    parser.add_argument("--stop-at", metavar="HH:MM",
                        help="UTC time after which no new mutant starts; the report counts the tested ones")
    parser.add_argument("--list", action="store_true", help="only count the mutation sites per module")
    args = parser.parse_args(argv)

    plan: List[Tuple[str, List[Mutant], str]] = []
    for name in args.modules:
        path, _ = TARGETS[name]
        text = (ROOT / path).read_text(encoding="utf-8")
        sites = mutation_sites(name, text)
        chosen = sample(sites, args.per_module, args.seed)
        print(f"{name}: {len(sites)} mutation sites, {len(chosen)} sampled", flush=True)
        plan.append((name, chosen, text))
    if args.list:
        return 0
    earlier: Dict[Tuple[str, str], str] = {}
    for report in args.rerun_survivors or []:
        # Valid when only tests were added since that run: with the module's text unchanged, a mutant
        # it killed stays killed. A module whose text changed is tested afresh (same keys, other code).
        data = json.loads(report.read_text(encoding="utf-8"))
        if "module_hashes" not in data or (data["seed"], data["per_module"]) != (args.seed, args.per_module):
            print(f"--rerun-survivors {report}: that run sampled other mutants (another seed or size, or a "
                  f"report from before mutants had keys)", file=sys.stderr)
            return 2
        for name, chosen, text in plan:
            if name not in data["module_hashes"]:
                continue
            if data["module_hashes"][name] != text_hash(text):
                print(f"{name}: changed since {report}; its mutants are all tested again", flush=True)
                continue
            for row in data["mutants"]:
                if row["module"] == name:
                    earlier[(name, row["key"])] = row["status"]

    results: Dict[str, List[Tuple[Mutant, str, float]]] = {name: [] for name, _, _ in plan}
    with tempfile.TemporaryDirectory(prefix="tpl-mutation-") as scratch:
        copies: "queue.Queue[Path]" = queue.Queue()
        for index in range(args.jobs):
            work = Path(scratch) / f"copy{index}"
            _scratch_copy(work)
            copies.put(work)
        work = copies.queue[0]
        for tests in {tuple(_existing(work, TARGETS[name][1])) for name, chosen, _ in plan if chosen}:
            status, seconds = _run_tests(work, list(tests), args.timeout)
            if status != "survived":
                print(f"the unmutated tests fail in the scratch copy ({status}): {' '.join(tests)}",
                      file=sys.stderr)
                return 2
        canary = work / TARGETS["tpl101"][0]
        original = canary.read_text(encoding="utf-8")
        canary.write_text("raise ImportError('canary')\n", encoding="utf-8")
        status, _ = _run_tests(work, _RULE_TESTS, args.timeout)
        canary.write_text(original, encoding="utf-8")
        if status != "killed":
            print("a module replaced by `raise ImportError` was not noticed: the scratch copy's package "
                  "is not the one imported", file=sys.stderr)
            return 2
        print(f"baseline passes in the copy ({seconds:.1f}s); canary killed", flush=True)
        texts = {name: text for name, _, text in plan}
        stop_at = _utc_today_at(args.stop_at) if args.stop_at else None
        lock = threading.Lock()

        def run_one(name: str, index: int, total: int, mutant: Mutant) -> None:
            path, tests = TARGETS[name]
            before = earlier.get((name, mutant.key))
            if before is not None and (before != "survived" or (
                    args.untested_only and name not in args.retest_modules)):
                with lock:
                    results[name].append((mutant, before, 0.0))
                return
            if before is None and args.survivors_only:
                return  # not reached before, not tested now: the report counts it as not tested
            if stop_at is not None and time.time() >= stop_at:
                if before is not None:  # a survivor of the earlier run not tested again: still a survivor
                    with lock:
                        results[name].append((mutant, before, 0.0))
                return  # not tested: the report counts only tested mutants, and says how many were not
            work = copies.get()
            try:
                target = work / path
                target.write_text(mutant.apply(texts[name]), encoding="utf-8")
                try:
                    status, seconds = _run_tests(work, _existing(work, tests), args.timeout)
                finally:
                    target.write_text(texts[name], encoding="utf-8")
            finally:
                copies.put(work)
            with lock:
                results[name].append((mutant, status, seconds))
                print(f"{name} {index}/{total} line {mutant.line} {mutant.kind}: {status} ({seconds:.1f}s)",
                      flush=True)
                if status == "survived":
                    print(mutant.diff(texts[name], path), flush=True)
                # The report so far, after every mutant: a run stopped midway (killed, or out of
                # time) leaves the results it has, and --rerun-survivors goes on from them.
                _write_report(args, plan, results, final=False)

        # Dispatched round-robin over the modules, each module's mutants in the order of their
        # seeded hash: a run stopped early (--stop-at) has tested the first k of every module's
        # sample, an unbiased smaller sample of each, rather than all of the first modules and the
        # top of each file.
        order = sorted(((rank, position, name, index, len(chosen), mutant)
                        for position, (name, chosen, _) in enumerate(plan)
                        for rank, (index, mutant) in enumerate(sorted(
                            enumerate(chosen, 1), key=lambda item: _rank(item[1], args.seed)))),
                       key=lambda row: row[:2])
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            jobs = [pool.submit(run_one, name, index, total, mutant)
                    for _, _, name, index, total, mutant in order]
            for job in jobs:
                job.result()
        _write_report(args, plan, results)
    return 0


def _utc_today_at(clock: str) -> float:
    hours, minutes = (int(part) for part in clock.split(":"))
    now = time.gmtime()
    return time.mktime((now.tm_year, now.tm_mon, now.tm_mday, hours, minutes, 0, 0, 0, 0)) - time.timezone


def _write_report(args, plan, results, final: bool = True) -> None:
    results = {name: sorted(rows, key=lambda row: row[0].start) for name, rows in results.items()}
    rerun = (" --rerun-survivors " + " ".join(str(p) for p in args.rerun_survivors)
             if args.rerun_survivors else "")
    if args.untested_only:
        rerun += " --untested-only" + (" --retest-modules " + " ".join(args.retest_modules)
                                       if args.retest_modules else "")
    if args.survivors_only:
        rerun += " --survivors-only"
    if args.stop_at:
        rerun += f" --stop-at {args.stop_at}"
    out: List[str] = ["# Mutation run", "",
                      f"`python benchmarks/mutation.py --per-module {args.per_module} --seed {args.seed} "
                      f"--modules {' '.join(args.modules)}{rerun}`", "",
                      "| module | mutants | killed | of which timed out | survived | killed % |",
                      "|---|---|---|---|---|---|"]
    total = killed_total = 0
    for name, chosen, _ in plan:
        rows = results.get(name, [])
        killed = sum(1 for _, s, _ in rows if s in ("killed", "timeout"))
        timeouts = sum(1 for _, s, _ in rows if s == "timeout")
        total += len(rows)
        killed_total += killed
        share = 100.0 * killed / len(rows) if rows else 0.0
        untested = len(chosen) - len(rows)
        note = f" ({untested} of the sample not tested)" if untested else ""
        out.append(f"| {name}{note} | {len(rows)} | {killed} | {timeouts} | {len(rows) - killed} | {share:.0f}% |")
    out.append(f"| **all** | {total} | {killed_total} | | {total - killed_total} | "
               f"{100.0 * killed_total / total if total else 0:.1f}% |")
    out += ["", "## Survivors", ""]
    for name, _, text in plan:
        path = TARGETS[name][0]
        for mutant, status, _ in results.get(name, []):
            if status == "survived":
                out += [f"### {name} line {mutant.line}: {mutant.kind}", "", "```diff",
                        mutant.diff(text, path).rstrip("\n"), "```", ""]
    args.report.write_text("\n".join(out) + "\n", encoding="utf-8")
    args.report.with_suffix(".json").write_text(json.dumps({
        "seed": args.seed, "per_module": args.per_module, "modules": args.modules,
        "module_hashes": {name: text_hash(text) for name, _, text in plan},
        "mutants": [{"module": name, "line": m.line, "kind": m.kind, "start": m.start, "end": m.end,
                     "replacement": m.replacement, "key": m.key, "status": status,
                     "seconds": round(seconds, 1)}
                    for name, _, _ in plan for m, status, seconds in results.get(name, [])],
    }, indent=1) + "\n", encoding="utf-8")
    if final:
        print(f"report: {args.report}; {killed_total}/{total} killed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
