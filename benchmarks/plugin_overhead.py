"""CPU-time cost of the flake8 plugin: flake8 -j1 over torch's own nn/ and utils/ sources,
with and without torchperf-lint loaded, alternately. Prints the ratio (target <= 1.15).

    python benchmarks/plugin_overhead.py [--repeat 3] [PATH ...]

Without paths it lints the installed torch's ``nn`` and ``utils`` packages (found without
importing torch). "Without the plugin" runs the same flake8 with this distribution's entry point
filtered out of flake8's plugin finder, so everything else is identical.

The linter's own bytecode is compiled first (``compileall`` of the ``torchperf_lint`` package the
runs import), as ``pip install`` leaves it for a user: with ``PYTHONDONTWRITEBYTECODE`` set (this
machine) every "with" run compiled the package from source, about 0.45 cpu-s that the "without"
run never pays. ``--compile-in-run`` keeps that cost in.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import subprocess
import sys

RUNNER = r"""
import sys
import flake8.plugins.finder as finder
if sys.argv[1] == "without":
    original = finder._find_importlib_plugins
    finder._find_importlib_plugins = lambda: (p for p in original() if p.package != "torchperf-lint")
from flake8.main.cli import main
sys.exit(main(["-j1", "--isolated", "--exit-zero", "--output-file", "/dev/null", *sys.argv[2:]]))
"""


def torch_paths():
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed: pass paths to lint")
    root = list(spec.submodule_search_locations)[0]
    return [os.path.join(root, "nn"), os.path.join(root, "utils")]


def cpu_seconds(mode, paths):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", RUNNER, mode, *paths], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compile_linter(keep: bool = True):
    """Compile the bytecode of the ``torchperf_lint`` package the runs import (PYTHONPATH included),
    next to its sources, as an installed copy has it; ``keep=False`` removes it instead (each run
    then compiles the source, where ``PYTHONDONTWRITEBYTECODE`` is set)."""
    found = subprocess.run([sys.executable, "-c", "import importlib.util as u; "
                            "print(list(u.find_spec('torchperf_lint').submodule_search_locations)[0])"],
                           check=True, capture_output=True, text=True).stdout.strip()
    if keep:
        subprocess.run([sys.executable, "-m", "compileall", "-q", found], check=True)
        return
    for folder, dirs, _ in os.walk(found):
        if "__pycache__" in dirs:
            shutil.rmtree(os.path.join(folder, "__pycache__"), ignore_errors=True)


def tree_size(paths):
    total = files = 0
    for path in paths:
        for folder, _, names in os.walk(path):
            for name in names:
                if name.endswith(".py"):
                    files += 1
                    total += os.path.getsize(os.path.join(folder, name))
    return files, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each mode; the minimum counts")
    parser.add_argument("--compile-in-run", action="store_true",
                        help="leave the linter's bytecode uncompiled (each run compiles its source)")
    args = parser.parse_args()
    compile_linter(keep=not args.compile_in_run)
    paths = args.paths or torch_paths()
    files, size = tree_size(paths)
    print(f"linting {files} files, {size / 1e6:.1f} MB: {' '.join(paths)}")
    # The two modes alternate (the order too): on a shared VM the CPU's speed drifts by a quarter
    # within a minute, and runs taken back to back see the same machine.
    withouts, withs, ratios = [], [], []
    for attempt in range(args.repeat):
        if attempt % 2:
            withs.append(cpu_seconds("with", paths))
            withouts.append(cpu_seconds("without", paths))
        else:
            withouts.append(cpu_seconds("without", paths))
            withs.append(cpu_seconds("with", paths))
        ratios.append(withs[-1] / withouts[-1])
    ratios.sort()
    middle = len(ratios) // 2
    median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
    print(f"flake8 without torchperf-lint: {min(withouts):7.2f} s CPU (best of {args.repeat})")
    print(f"flake8 with    torchperf-lint: {min(withs):7.2f} s CPU")
    print(f"ratio per pair: {' '.join(f'{r:.3f}' for r in ratios)}; median {median:.3f}, "
          f"best runs {min(withs) / min(withouts):.3f}  (target <= 1.15)")


if __name__ == "__main__":
    main()
