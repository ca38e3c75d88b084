"""The CLI cold, in CPU seconds, against the ``ast.parse`` floor of the same files (issue 20).

    python benchmarks/cli_cold.py TREE [TREE...] [--src CODE_TREE] [--jobs 1]

Runs the real command, ``python -m torchperf_lint.frontends.cli check --jobs N --cache-dir FRESH
--output-format json TREE...``, in a subprocess (the code of ``--src``, default this checkout's),
with a fresh cache directory (cold: every file linted, every index entry made and written), and
reads its CPU time (user + system of the child and its workers, ``resource.RUSAGE_CHILDREN``).
Unlike ``engine_profile.py``, which times ``lint_source`` alone, this counts everything the CLI
does: the cyclic garbage collector between files, the fixes its JSON output computes, the
finding cache. The floor is ``ast.parse`` of the files that mention a torch import (the collector
paused), timed in this process right after; the ratio is CLI / floor. The findings' JSON is
written to ``--out`` if given (for a ``cmp`` between two trees of the code).

The linter's own bytecode is compiled before the timed run (``compileall``, into the ``--src``
tree's ``__pycache__`` folders, which git ignores), as ``pip install`` does for a user: without it a
machine with ``PYTHONDONTWRITEBYTECODE`` set (this one) compiles the package's source in every CLI
process, about 0.45 cpu-s a run that no installed copy pays. ``--compile-in-run`` times that too
(it removes those folders first). A ``PYTHONPYCACHEPREFIX`` would not do: the child would then
look for every library's bytecode there too and compile libcst's source instead.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def floor_seconds(trees, src: Path) -> tuple:
    sys.path.insert(0, str(src))
    from torchperf_lint.frontends.config import Config, discover
    from torchperf_lint.analysis.names import text_mentions_torch_import

    files, _ = discover(trees, Config(root=trees[0]))
    texts = []
    for path in files:
        try:
            texts.append(path.read_bytes().decode("utf-8-sig"))
        except (OSError, UnicodeDecodeError):
            continue
    texts = [text for text in texts if text_mentions_torch_import(text)]
    gc.disable()
    start = time.process_time()
    for text in texts:
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    spent = time.process_time() - start
    gc.enable()
    return spent, len(texts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--src", type=Path, default=HERE.parent, help="the tree of the code to run")
    parser.add_argument("--jobs", default="1")
    parser.add_argument("--out", type=Path, help="write the CLI's JSON output here")
    parser.add_argument("--compile-in-run", action="store_true",
                        help="leave the linter's bytecode uncompiled (each CLI process compiles its source)")
    args = parser.parse_args(argv)
    trees = [tree.resolve() for tree in args.trees]
    src = args.src.resolve()
    cache = tempfile.mkdtemp(prefix="tpl-cli-cold-")
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))
    env.pop("TORCHPERF_LINT_CACHE_DIR", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if args.compile_in_run:
        for folder in (src / "torchperf_lint").rglob("__pycache__"):
            shutil.rmtree(folder, ignore_errors=True)
    else:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "torchperf_lint")], env=env, check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    try:
        done = subprocess.run([sys.executable, "-m", "torchperf_lint.frontends.cli", "check", "--jobs", args.jobs,
                               "--cache-dir", cache, "--output-format", "json", *map(str, trees)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(trees[0]))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cli = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
        return 2
    if args.out:
        args.out.write_bytes(done.stdout)
    floor, n_torch = floor_seconds(trees, src)
    print(f"src {src}  load {load:.2f}-{os.getloadavg()[0]:.2f}  CLI cold {cli:.2f} cpu-s  "
          f"floor {floor:.2f} cpu-s ({n_torch} torch files)  CLI / floor {cli / floor:.2f}  "
          f"peak RSS {after.ru_maxrss / 1024:.0f} MB (largest child so far)  "
          f"bytecode {'compiled in the run' if args.compile_in_run else 'compiled before'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
