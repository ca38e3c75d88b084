"""Mutation testing of runtime_guard/fixes: would the guard's tests notice a broken fix?

A small AST mutator (no third-party tool): each mutant changes one node of one fix module, for
instance ``==`` -> ``!=``, ``<`` -> ``>=``, ``and`` -> ``or``, ``not x`` -> ``x``, ``True`` <->
``False``, a number ``n`` -> ``n + 1``, ``+=`` -> ``-=``, ``*`` <-> ``/``, ``return x`` ->
``return None``, an ``if`` test -> ``False``, or a statement -> ``pass``. Docstrings and other
string constants (messages) are not mutated, nor the bodies of ``except`` handlers (the
never-break-a-run fallbacks, which a test can only reach by breaking the guard on purpose).
Each mutant is written into a scratch copy of the repository (the working tree is never
touched) and only the test files of that module run, with ``-x`` (the first failure kills it).
A mutant whose tests all pass survived.

Not a test and not run in CI (a full run takes tens of minutes). Usage:

    nice python benchmarks/runtime_mutation.py [--per-module 25] [--modules amp,conv_bias]
        [--seed 0] [--jobs 1] [--out mutation.json]

``--per-module N`` draws N mutants per module (seeded, spread over the file) when a module has
more; 0 means every mutant. The score is killed / (killed + survived); mutants whose tests time
out count as killed (a hang is noticed too) and are listed apart.
"""

import argparse
import ast
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXES = os.path.join(ROOT, "runtime_guard", "fixes")
T = "tests/runtime_guard/"

# Each fix module and the test files that exercise it (torchrun tests included where a module is
# only reached under torchrun).
TESTS = {
    "amp": [T + "test_rg_amp.py", T + "test_rg_amp_reach.py", T + "test_rg_amp_step.py",
            T + "test_rg_compile.py"],
    "amp_step": [T + "test_rg_amp_step.py"],
    "anomaly_mode": [T + "test_rg_anomaly_mode.py", T + "test_rg_compile.py"],
    "base": [T + "test_rg_core.py", T + "test_rg_amp.py", T + "test_rg_loaders.py"],
    "batchnorm_guard": [T + "test_rg_batchnorm.py", T + "test_rg_patches.py"],
    "conv_bias": [T + "test_rg_conv_bias.py"],
    "cudnn_flags": [T + "test_rg_cudnn_flags.py"],
    "ddp": [T + "test_rg_core.py", T + "test_rg_torchrun_ddp.py",
            T + "test_rg_torchrun_invariants.py"],
    "ddp_accumulation": [T + "test_rg_ddp_accumulation.py"],
    "device_native": [T + "test_rg_device_native.py"],
    "loader_defaults": [T + "test_rg_loaders.py"],
    "set_epoch": [T + "test_rg_loaders.py", T + "test_rg_torchrun_ddp.py"],
    "sync_report": [T + "test_rg_sync_report.py"],
    "tf32": [T + "test_rg_tf32.py"],
}

COMPARE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
           ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
           ast.In: ast.NotIn, ast.NotIn: ast.In}
BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
         ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}


def _docstring_nodes(tree):
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                skip.add(id(body[0]))
    return skip


def _in_handlers(tree):
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler):
            for sub in ast.walk(node):
                inside.add(id(sub))
    return inside


def mutation_sites(tree):
    """(node index in ast.walk order, kind, description) of every mutation of this tree."""
    skip = _docstring_nodes(tree) | _in_handlers(tree)
    sites = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE:
            sites.append((index, "compare", f"{line}: {type(node.ops[0]).__name__} -> "
                                             f"{COMPARE[type(node.ops[0])].__name__}"))
        elif isinstance(node, ast.BoolOp):
            sites.append((index, "boolop", f"{line}: {type(node.op).__name__} swapped"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            sites.append((index, "not", f"{line}: not removed"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            sites.append((index, "bool", f"{line}: {node.value} -> {not node.value}"))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
            sites.append((index, "number", f"{line}: {node.value!r} -> {node.value!r} + 1"))
        elif isinstance(node, ast.BinOp) and type(node.op) in BINOP:
            sites.append((index, "binop", f"{line}: {type(node.op).__name__} -> "
                                          f"{BINOP[type(node.op)].__name__}"))
        elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP:
            sites.append((index, "augassign", f"{line}: {type(node.op).__name__}= -> "
                                              f"{BINOP[type(node.op)].__name__}="))
        elif isinstance(node, ast.Return) and node.value is not None and \
                not (isinstance(node.value, ast.Constant) and node.value.value is None):
            sites.append((index, "return", f"{line}: return None"))
        elif isinstance(node, ast.If):
            sites.append((index, "if", f"{line}: if test -> False"))
        elif isinstance(node, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)) and \
                not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            sites.append((index, "delete", f"{line}: statement -> pass"))
    return sites


def mutate(tree, index, kind):
    """A copy of ``tree`` with the mutation at node ``index`` applied."""
    tree = copy.deepcopy(tree)
    node = list(ast.walk(tree))[index]
    if kind == "compare":
        node.ops = [COMPARE[type(node.ops[0])]()]
    elif kind == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "not":
        _replace(tree, node, node.operand)
    elif kind == "bool":
        node.value = not node.value
    elif kind == "number":
        node.value = node.value + 1
    elif kind in ("binop", "augassign"):
        node.op = BINOP[type(node.op)]()
    elif kind == "return":
        node.value = ast.Constant(None)
    elif kind == "if":
        node.test = ast.Constant(False)
    elif kind == "delete":
        _replace(tree, node, ast.Pass())
    return ast.fix_missing_locations(tree)


def _replace(tree, old, new):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return


def scratch_copy():
    """A copy of what the tests need, outside the working tree."""
    where = tempfile.mkdtemp(prefix="rg_mutation_")
    for name in ("runtime_guard", "torchperf_lint", "tests", "samples", "benchmarks"):
        source = os.path.join(ROOT, name)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(where, name),
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        if os.path.exists(os.path.join(ROOT, name)):
            shutil.copy(os.path.join(ROOT, name), where)
    return where


def run_tests(where, files, timeout):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNTIME_GUARD")}
    env["PYTHONPATH"] = where
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               "-k", "not lightning", *files], cwd=where, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if proc.returncode == 0 else "killed"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-module", type=int, default=25)
    ap.add_argument("--modules", default=",".join(TESTS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=400)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that the scratch copy is removed
    where = scratch_copy()
    results = {}
    try:
        baseline = {}
        for module in args.modules.split(","):
            path = os.path.join(where, "runtime_guard", "fixes", module + ".py")
            source = open(path).read()
            tree = ast.parse(source)
            sites = mutation_sites(tree)
            if args.per_module and len(sites) > args.per_module:
                rng = random.Random(f"{args.seed}:{module}")
                sites = sorted(rng.sample(sites, args.per_module))
            files = TESTS[module]
            key = tuple(files)
            if key not in baseline:
                baseline[key] = run_tests(where, files, args.timeout)
                if baseline[key] != "survived":
                    print(f"{module}: its tests fail without any mutant; skipped", flush=True)
                    continue
            outcome = []
            for index, kind, what in sites:
                try:
                    mutated = ast.unparse(mutate(tree, index, kind))
                    compile(mutated, path, "exec")
                except Exception:
                    continue  # a mutation that does not compile is no mutant
                with open(path, "w") as handle:
                    handle.write(mutated)
                try:
                    start = time.time()
                    verdict = run_tests(where, files, args.timeout)
                finally:
                    with open(path, "w") as handle:
                        handle.write(source)
                outcome.append({"site": what, "kind": kind, "verdict": verdict,
                                "seconds": round(time.time() - start, 1)})
                print(f"{module}:{what} [{kind}] {verdict}", flush=True)
            results[module] = outcome
    finally:
        shutil.rmtree(where, ignore_errors=True)
    total_killed = total = 0
    print(f"{'module':17} {'mutants':>7} {'killed':>6} {'timeout':>7} {'score':>6}")
    for module, outcome in results.items():
        killed = sum(o["verdict"] in ("killed", "timeout") for o in outcome)
        timeouts = sum(o["verdict"] == "timeout" for o in outcome)
        total_killed += killed
        total += len(outcome)
        score = killed / len(outcome) * 100 if outcome else 0.0
        print(f"{module:17} {len(outcome):7} {killed:6} {timeouts:7} {score:5.1f}%")
    if total:
        print(f"{'all':17} {total:7} {total_killed:6} {'':7} {total_killed / total * 100:5.1f}%")
    print("survivors:")
    for module, outcome in results.items():
        for o in outcome:
            if o["verdict"] == "survived":
                print(f"  {module}.py:{o['site']} [{o['kind']}]")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)
    return results


if __name__ == "__main__":
    main()
