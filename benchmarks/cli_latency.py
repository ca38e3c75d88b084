"""Latency of one small file from the terminal: ``torchperf-lint check FILE`` and ``flake8 FILE`` with
and without the torchperf-lint plugin, each a fresh process, as a user or a pre-commit hook runs them.

    python benchmarks/cli_latency.py [--runs 15] [--file PATH]

The file (by default a 13-line training loop with three findings, written to a temporary project
with a ``pyproject.toml``) is linted by:
- ``python -c pass``: the interpreter's own start-up, the floor of every command below;
- ``torchperf-lint check FILE``: the CLI as installed (its console script), with its finding cache
  warm (the run before left an entry: an unchanged file, as in an editor's save hook) and with
  ``--no-cache`` (the file linted every time);
- ``flake8 FILE`` with torchperf-lint's plugin and without it (the same flake8 with this
  distribution's entry point filtered out of flake8's plugin finder, as plugin_overhead.py does).
The commands run in turn, ``--runs`` times each, after one warm-up run each (a warm disk cache,
bytecode written as an installed package has it, even where PYTHONDONTWRITEBYTECODE is set);
prints the median, p95 and minimum of wall time and the median CPU time (user + system of the
process) in milliseconds. benchmarks/CLI_LATENCY.md has the runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SMALL_FILE = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader


    def train(model, dataset, optimizer):
        loader = DataLoader(dataset, batch_size=32, shuffle=True)
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(loss.item())
    ''')

FLAKE8 = r"""
import sys
import flake8.plugins.finder as finder
if sys.argv[1] == "without":
    original = finder._find_importlib_plugins
    finder._find_importlib_plugins = lambda: (p for p in original() if p.package != "torchperf-lint")
from flake8.main.cli import main
sys.exit(main(sys.argv[2:]))
"""


# As installed: bytecode is written on the first import and read after (a PYTHONDONTWRITEBYTECODE
# set in this shell would make every run compile the package from source, ~100 ms of CPU).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cli_command() -> list:
    script = shutil.which("torchperf-lint", path=os.path.dirname(sys.executable)) or shutil.which("torchperf-lint")
    return [script] if script else [sys.executable, "-m", "torchperf_lint.frontends.cli"]


def run_once(command: list, cwd: Path) -> tuple:
    """(wall ms, CPU ms) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=str(cwd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    return wall, cpu


def percentile(ordered: list, fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--file", type=Path, help="lint this file instead of the built-in one")
    args = parser.parse_args()
    text = args.file.read_text(encoding="utf-8") if args.file else SMALL_FILE
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text('[project]\nname = "one"\n', encoding="utf-8")
        (root / "small.py").write_text(text, encoding="utf-8")
        cli = cli_command()
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "torchperf-lint check (cache warm)": [*cli, "check", "small.py"],
            "torchperf-lint check --no-cache": [*cli, "check", "--no-cache", "small.py"],
            "flake8 with torchperf-lint": [sys.executable, "-c", FLAKE8, "with", "small.py"],
            "flake8 without torchperf-lint": [sys.executable, "-c", FLAKE8, "without", "small.py"],
        }
        times = {name: [] for name in commands}
        for command in commands.values():  # warm-up: the disk cache, .pyc files, the finding cache
            run_once(command, root)
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(run_once(command, root))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} cores, load average {load:.1f} at the end; "
          f"{args.runs} runs each, in turn; ms")
    print(f"{'command':<36} {'median':>7} {'p95':>7} {'min':>7} {'cpu median':>10}")
    for name, pairs in times.items():
        walls = sorted(w for w, _ in pairs)
        cpus = [c for _, c in pairs]
        print(f"{name:<36} {statistics.median(walls):>7.1f} {percentile(walls, 0.95):>7.1f} {walls[0]:>7.1f} "
              f"{statistics.median(cpus):>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
