"""CPU-time cost of the flake8 plugin: flake8 -j1 over torch's own nn/ and utils/ sources,
with and without torchperf-lint loaded, alternately. Prints the ratio (target <= 1.15).

    python benchmarks/plugin_overhead.py [--repeat 3] [PATH ...]

Without paths it lints torch's ``nn`` and ``utils`` packages (found without importing torch) as a
project of their own: copied to a temporary folder, ``<tmp>/torch/{nn,utils}`` beside a
``pyproject.toml``, so that the project index sees the project a user lints whole (every importer
is a linted file; ``torch.nn...`` imports resolve), wherever torch is installed. (Linted where
they are installed, each file's project is its own folder, project_root's environment boundary;
``--in-place`` measures that. Before that boundary existed, the torch installed in this
repository's ``.venv`` took the repository as its project, and the index summarised the
repository's own files as torch's importers: the thirty-fourth session's section of CLI.md.)
"Without the plugin" runs the same flake8 with this distribution's entry point filtered out of
flake8's plugin finder, so everything else is identical.

The index's cache: each run with the plugin gets a fresh, empty ``TORCHPERF_LINT_CACHE_DIR`` (a cold
run, the default); ``--warm`` gives every run one directory that a first, untimed run filled.

The linter's own bytecode is compiled first (``compileall`` of the ``torchperf_lint`` package the
runs import), as ``pip install`` leaves it for a user: with ``PYTHONDONTWRITEBYTECODE`` set (this
machine) every "with" run compiled the package from source, about 0.45 cpu-s that the "without"
run never pays. ``--compile-in-run`` keeps that cost in.

Each run also reads its own CPU time from inside (``time.process_time``): its total, the plugin's
part (its import and every ``Plugin.run``) and the cyclic collector's (``gc.callbacks``). Two runs
taken one after the other on a shared VM differ by up to a third for the same work, so the ratio
per pair moves by more than the target's margin; ``total / (total - plugin)`` inside one run does
not. It leaves out what the plugin costs flake8's own work (its collector walking what the index
keeps: the collector's time, printed for both modes, shows that part), so it reads a little below
the pairs' ratio: both are printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import tempfile

RUNNER = r"""
import gc
import sys
import time
import flake8.plugins.finder as finder
if sys.argv[1] == "without":
    original = finder._find_importlib_plugins
    finder._find_importlib_plugins = lambda: (p for p in original() if p.package != "torchperf-lint")
# What this process spends in the cyclic collector, and (with the plugin) in the plugin itself: its
# import and every ``Plugin.run``, read with the process's own clock (user + system), so that the
# share does not move with the machine's speed between two runs.
spent = {"gc": 0.0, "plugin": 0.0, "started": 0.0}
def on_gc(phase, info):
    if phase == "start":
        spent["started"] = time.process_time()
    else:
        spent["gc"] += time.process_time() - spent["started"]
gc.callbacks.append(on_gc)
if sys.argv[1] == "with":
    start = time.process_time()
    import torchperf_lint.frontends.flake8_plugin as plugin_module
    spent["plugin"] += time.process_time() - start
    plain_run = plugin_module.Plugin.run
    def timed_run(self):
        start = time.process_time()
        try:
            found = list(plain_run(self))
        finally:
            spent["plugin"] += time.process_time() - start
        yield from found
    plugin_module.Plugin.run = timed_run
from flake8.main.cli import main
try:
    main(["-j1", "--isolated", "--exit-zero", "--output-file", "/dev/null", *sys.argv[3:]])
except SystemExit:
    pass
total = time.process_time()
with open(sys.argv[2], "w") as handle:
    handle.write(f"{total} {spent['plugin']} {spent['gc']}")
"""


def torch_paths():
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed: pass paths to lint")
    root = list(spec.submodule_search_locations)[0]
    return [os.path.join(root, "nn"), os.path.join(root, "utils")]


def project_copy(paths, folder):
    """Copy each of ``paths`` (folders of one package) to ``folder/<package>/<name>`` beside a
    ``pyproject.toml``: a project of their own. Returns the copied paths, in order."""
    with open(os.path.join(folder, "pyproject.toml"), "w"):
        pass
    copied = []
    for path in paths:
        path = os.path.abspath(path)
        target = os.path.join(folder, os.path.basename(os.path.dirname(path)), os.path.basename(path))
        shutil.copytree(path, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        copied.append(target)
    return copied


def cpu_seconds(mode, paths, cache_dir=None):
    """(CPU seconds of the child as the OS counts them, and as it read them itself: its total,
    the plugin's own share, the collector's). ``cache_dir``: the index's cache for the run (None:
    a fresh one)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as report, tempfile.TemporaryDirectory() as fresh:
        env = dict(os.environ, TORCHPERF_LINT_CACHE_DIR=cache_dir or fresh)
        subprocess.run([sys.executable, "-c", RUNNER, mode, report.name, *paths], check=True, env=env)
        inside = tuple(float(x) for x in report.read().split())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), inside


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
    parser.add_argument("--in-place", action="store_true",
                        help="lint torch's folders where they are installed, not a copy made a project")
    parser.add_argument("--warm", action="store_true",
                        help="one index cache for every run, filled by a first untimed run (default: cold)")
    args = parser.parse_args()
    compile_linter(keep=not args.compile_in_run)
    with tempfile.TemporaryDirectory() as scratch:
        paths = args.paths or torch_paths()
        if not args.paths and not args.in_place:
            paths = project_copy(paths, scratch)
        cache_dir = None
        if args.warm:
            cache_dir = os.path.join(scratch, ".index-cache")
            cpu_seconds("with", paths, cache_dir)  # fills it
        measure(args, paths, cache_dir)


def measure(args, paths, cache_dir):
    files, size = tree_size(paths)
    print(f"linting {files} files, {size / 1e6:.1f} MB: {' '.join(paths)} "
          f"(index cache: {'warm' if cache_dir else 'cold, a fresh one each run'})")
    # The two modes alternate (the order too): on a shared VM the CPU's speed drifts by a quarter
    # within a minute, and runs taken back to back see the same machine.
    withouts, withs, ratios, inside, inside_without = [], [], [], [], []
    for attempt in range(args.repeat):
        order = ("with", "without") if attempt % 2 else ("without", "with")
        for mode in order:
            seconds, read = cpu_seconds(mode, paths, cache_dir)
            if mode == "with":
                withs.append(seconds)
                inside.append(read)
            else:
                withouts.append(seconds)
                inside_without.append(read)
        ratios.append(withs[-1] / withouts[-1])
    print(f"flake8 without torchperf-lint: {min(withouts):7.2f} s CPU (best of {args.repeat})")
    print(f"flake8 with    torchperf-lint: {min(withs):7.2f} s CPU")
    # Read inside each run with the plugin: its total, the plugin's own part (import and runs) and
    # the rest, flake8's; total / rest is the ratio the plugin makes, whatever the machine's speed
    # did between two runs (pairs of runs on this VM differ by up to a third for the same work).
    # The collector's time is shown beside it: the plugin changes what flake8's collector walks.
    shares = [total / (total - plugin) for total, plugin, _ in inside]
    print("inside each run without it: " + "; ".join(
        f"total {total:.2f}, collector {gc_time:.2f}" for total, _, gc_time in inside_without))
    print("inside each run with the plugin: " + "; ".join(
        f"total {total:.2f}, plugin {plugin:.2f}, collector {gc_time:.2f}" for total, plugin, gc_time in inside))
    print(f"ratio per pair: {' '.join(f'{r:.3f}' for r in sorted(ratios))}; median {median(ratios):.3f}, "
          f"best runs {min(withs) / min(withouts):.3f}  (target <= 1.15)")
    print(f"ratio inside each run (total / total less the plugin): {' '.join(f'{r:.3f}' for r in sorted(shares))}; "
          f"median {median(shares):.3f}  (target <= 1.15)")


def median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


if __name__ == "__main__":
    main()
