"""Throughput of ``torchperf-lint check`` over a large real tree: cold (no cache) and warm (cached).

    python benchmarks/cli_throughput.py [TREE] [--jobs 1 --jobs 0] [--repeat 1]

TREE defaults to /work/scratch/real (unpacked wheels of transformers, diffusers, deepspeed, timm...).
Each configuration runs the real console script in a subprocess with a fresh cache directory:
cold = first run (every file linted), warm = second run over the unchanged tree (cache hits only).
MB/s counts the bytes of the Python files the CLI checks (after the default excludes).

Targets (benchmarks/CLI.md): cold >= 2 MB/s per core; warm re-run of a ~77 MB tree under 3 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def tree_bytes(tree: Path) -> tuple:
    sys.path.insert(0, str(HERE.parent))
    from torchperf_lint.config import Config, discover

    files, _ = discover([tree], Config(root=tree))
    return len(files), sum(f.stat().st_size for f in files)


def run(tree: Path, jobs: int, cache_dir: Path, extra=()) -> tuple:
    command = [sys.executable, "-m", "torchperf_lint.cli", "check", str(tree), "--exit-zero", "-q",
               "--output-format", "json", "--jobs", str(jobs), "--cache-dir", str(cache_dir), *extra]
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(HERE.parent))
    elapsed = time.perf_counter() - start
    if done.returncode not in (0,):
        sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
        raise SystemExit(f"torchperf-lint exited {done.returncode}")
    import json

    return elapsed, len(json.loads(done.stdout or b"[]"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default="/work/scratch/real", type=Path)
    parser.add_argument("--jobs", action="append", type=int,
                        help="job counts to measure (0: one per core); default: 1 and 0")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (best is kept)")
    args = parser.parse_args()
    tree = args.tree.resolve()
    if not tree.is_dir():
        raise SystemExit(f"no such directory: {tree}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    n_files, n_bytes = tree_bytes(tree)
    mb = n_bytes / 1e6
    print(f"tree: {tree}  files: {n_files}  size: {mb:.1f} MB  cores: {cores}  "
          f"python {platform.python_version()}  {platform.machine()}  {platform.processor() or ''}")
    for jobs in args.jobs or [1, 0]:
        label = f"jobs={jobs or cores}"
        cold_best = warm_best = float("inf")
        findings = 0
        for _ in range(args.repeat):
            cache_dir = Path(tempfile.mkdtemp(prefix="tpl-bench-cache-"))
            try:
                cold, findings = run(tree, jobs, cache_dir)
                warm, warm_findings = run(tree, jobs, cache_dir)
                assert warm_findings == findings, (warm_findings, findings)
            finally:
                shutil.rmtree(cache_dir, ignore_errors=True)
            cold_best, warm_best = min(cold_best, cold), min(warm_best, warm)
        workers = jobs or cores
        print(f"{label:8}  cold {cold_best:7.2f} s  {mb / cold_best:6.2f} MB/s "
              f"({mb / cold_best / workers:5.2f} MB/s per core)   "
              f"warm {warm_best:6.2f} s  {mb / warm_best:8.1f} MB/s   findings {findings}")


if __name__ == "__main__":
    main()
