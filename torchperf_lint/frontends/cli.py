"""The ``torchperf-lint`` command: the same engine and rules as the flake8 plugin, with fixes,
configuration in pyproject.toml, a result cache, several report formats and parallel checking.

    torchperf-lint check [PATHS...]     lint (the default command: ``torchperf-lint PATHS`` works too)
    torchperf-lint rule TPL101          the rule's documentation
    torchperf-lint rule --all           every rule
    torchperf-lint server               the language server (LSP over stdio), for editors

Exit status: 0 no finding remains, 1 findings remain (or ``--diff`` would change a file),
2 usage error or internal error.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .. import __version__
from ..catalog import API_FLOORS, CATALOG, NO_FIX, OPT_IN_CODES, fix_safety, version_text
from .config import (
    ConfigError,
    check_selector,
    checked_target_torch,
    discover,
    file_codes,
    flake8_normalize_path,
    load_config,
    resolve_codes,
    split_codes,
)
from .output import EXTRA_FORMATS, FORMATS, Reported, display_path, docs_url, fixes_applied, plural, render, summary
from ..findings import applicable
from . import collector
from .line_length import configured_line_length
from .atomic_write import WriteFailed, prepare_output_path, write_atomic
from .runner import CHECK, DIFF, FIX, FileResult, Task, digest, init_worker, process

COMMANDS = ("check", "rule", "version", "server")
CACHE_ENV = "TORCHPERF_LINT_CACHE_DIR"
EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


# ---- argument parsing ---------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchperf-lint",
        description="Find (and fix) the performance pitfalls of PyTorch training code.",
        epilog="`torchperf-lint PATHS...` without a command runs `check`.",
    )
    parser.add_argument("--version", action="version", version=f"torchperf-lint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="lint files and directories (the default)",
                                description="Lint Python files; directories are searched recursively.")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    fixing = check.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true", help="apply the safe fixes")
    fixing.add_argument("--unsafe-fixes", dest="unsafe_fixes", action="store_true", default=None,
                        help="also apply (--fix) or show (text output) the unsafe fixes")
    fixing.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false")
    fixing.add_argument("--diff", action="store_true",
                        help="print a unified diff of the fixes, write nothing; exit 1 if there are any")
    fixing.add_argument("--fix-only", action="store_true",
                        help="apply fixes, do not report what is left (exit 0 unless --exit-non-zero-on-fix)")
    fixing.add_argument("--exit-non-zero-on-fix", action="store_true",
                        help="exit 1 when a file was changed, even if no finding is left")
    fixing.add_argument("--show-fixes", action="store_true",
                        help="text output: show each finding's fix as a diff under it (with --fix: the "
                             "fixes applied are listed in any case); nothing is written")
    fixing.add_argument("--add-noqa", action="store_true",
                        help="add `# noqa: TPLnnn` to every line with a finding (merged into an existing "
                             "`# noqa: ...`, before any other comment); exit 0")
    rules = check.add_argument_group("rule selection (codes or prefixes, comma-separated)")
    rules.add_argument("--select", action="append", metavar="CODES",
                       help="the rules to run, replacing the configured `select` (default TPL: every "
                            "rule on by default; opt-in rules need their exact code)")
    rules.add_argument("--extend-select", action="append", metavar="CODES", help="rules to add")
    rules.add_argument("--ignore", action="append", metavar="CODES", help="rules to leave out")
    out = check.add_argument_group("output")
    out.add_argument("--output-format", choices=FORMATS, default=None,
                     help="text (default), json (ruff's fields), json-lines, junit (JUnit XML), gitlab "
                          "(Code Quality), pylint, sarif (2.1.0) or github (annotations)")
    out.add_argument("--output-file", "-o", metavar="FILE", help="write the report there instead of stdout")
    out.add_argument("--statistics", action="store_true",
                     help="count the findings per code instead of listing them (JSON with --output-format json)")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    out.add_argument("--quiet", "-q", action="store_true", help="no summary line")
    out.add_argument("--runtime-report", action="append", metavar="FILE", default=[],
                     help="runtime_guard's report of a run (RUNTIME_GUARD_REPORT; JSON or SARIF): "
                          "its observations join the findings at their lines")
    run = check.add_argument_group("run")
    run.add_argument("--config", metavar="PYPROJECT", type=Path,
                     help="read [tool.torchperf-lint] from this file instead of searching for it")
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    run.add_argument("--cache-dir", type=Path, metavar="DIR",
                     help=f"cache directory (default: .torchperf_lint_cache at the project root; env {CACHE_ENV})")
    run.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                     help="worker processes (default: one per CPU core; 1: no worker process)")
    run.add_argument("--force-exclude", action="store_true",
                     help="apply `exclude` to files named on the command line too (for pre-commit)")
    run.add_argument("--include-tests", action="store_true", default=None,
                     help="also lint unit-test files (test_*.py, *_test.py, conftest.py, tests/, test/)")
    run.add_argument("--target-torch", metavar="VERSION",
                     help="the oldest torch the project must run on (e.g. 2.1): findings whose remedy needs "
                          "a newer torch are left out (default: the lower bound of torch in the project's "
                          "dependencies; config: target-torch)")
    run.add_argument("--extend-exclude", action="append", metavar="GLOBS", default=[],
                     help="more exclude patterns, comma-separated")
    run.add_argument("--respect-gitignore", dest="respect_gitignore", action="store_true", default=None,
                     help="skip the files git ignores (the default; config: respect-gitignore)")
    run.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                     help="check the files git ignores too")
    run.add_argument("--stdin-filename", metavar="NAME",
                     help="with PATH `-` (standard input): the file name to check it as (configuration, "
                          "per-file-ignores, the name in the report); with --fix the fixed text goes to stdout")

    rule = commands.add_parser("rule", help="show a rule's documentation",
                               description="Print a rule's documentation (markdown), or list every rule.")
    rule.add_argument("code", nargs="?", help="a rule code, e.g. TPL101, or its name (cpu-then-device)")
    rule.add_argument("--all", action="store_true", help="list every rule")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    commands.add_parser("version", help="print the version")
    commands.add_parser("server", help="run the language server (LSP over stdio; needs the `server` extra)",
                        description="A Language Server over stdin/stdout for editors (docs/editors.md).")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list.insert(0, "check")  # `torchperf-lint src/` means `torchperf-lint check src/`
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as stop:  # argparse exits 2 on usage errors, 0 for --help/--version
        return int(stop.code or 0)
    previous_sigterm = _stop_on_sigterm()
    try:
        if args.command == "rule":
            status = rule_command(args)
        elif args.command == "server":
            from .server import main as server_main

            return server_main()  # stdout is the protocol's (closed when the client says exit)
        elif args.command == "version":
            print(f"torchperf-lint {__version__}")
            status = EXIT_OK
        else:
            status = check_command(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return status
    except BrokenPipeError:
        # The reader went away mid-command (`torchperf-lint rule --all | head`): stop writing,
        # quietly, with the status of a command that could not finish its output.
        _discard_stdout()
        return EXIT_ERROR
    except ConfigError as error:
        print(f"torchperf-lint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as interrupt:
        print("torchperf-lint: interrupted; every file is as it was or wholly fixed", file=sys.stderr)
        # the shell's status for a command a signal stopped: 130 for Ctrl-C, 143 for SIGTERM
        return 128 + (interrupt.args[0] if interrupt.args and isinstance(interrupt.args[0], int) else signal.SIGINT)
    finally:
        if previous_sigterm is not None:
            signal.signal(signal.SIGTERM, previous_sigterm)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(signum)


def _stop_on_sigterm():
    """SIGTERM stops a run as Ctrl-C does (workers told to stop, every file old or new); returns
    the handler it replaced, or None where handlers cannot be set (not the main thread)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        return signal.signal(signal.SIGTERM, _raise_interrupt)
    except (ValueError, OSError):
        return None


def _discard_stdout() -> None:
    """Point stdout at /dev/null after the reader of a pipe closed it (`... | head`), so that
    nothing more is written and Python's flush at exit raises no second BrokenPipeError (the
    recipe of the Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (an embedding host): nothing to silence
        pass


# ---- check --------------------------------------------------------------------------------------

def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_command(args) -> int:
    cwd = os.getcwd()
    stdin = "-" in (args.paths or ())
    if stdin and len(args.paths) > 1:
        raise ConfigError("`-` (standard input) cannot be combined with other paths")
    if args.add_noqa and (stdin or args.fix or args.fix_only or args.diff):
        raise ConfigError("--add-noqa cannot be combined with --fix, --fix-only, --diff or `-` (standard input)")
    if args.stdin_filename and not stdin:
        raise ConfigError("--stdin-filename needs the path `-` (standard input)")
    if stdin:
        paths = [Path(args.stdin_filename) if args.stdin_filename else Path(".")]
    else:
        paths = [Path(p) for p in (args.paths or ["."])]
    config = load_config(paths[0], args.config)

    select = split_codes(args.select) if args.select else config.select
    extend_select = [*config.extend_select, *split_codes(args.extend_select)]
    ignore = [*config.ignore, *split_codes(args.ignore)]
    for selector in [*split_codes(args.select), *split_codes(args.extend_select), *split_codes(args.ignore)]:
        check_selector(selector, "command line")
    codes = resolve_codes(select, extend_select, ignore)
    unsafe = config.unsafe_fixes if args.unsafe_fixes is None else args.unsafe_fixes
    # as flake8 reads its command line: a pattern with a slash (``./vendor``) is a path from here
    config.extend_exclude.extend(flake8_normalize_path(p, cwd) for p in split_codes(args.extend_exclude))
    if args.include_tests:
        config.include_tests = True
    if args.respect_gitignore is not None:
        config.respect_gitignore = args.respect_gitignore
    if args.target_torch is not None:
        config.target_torch = checked_target_torch(args.target_torch, "--target-torch")
    if args.jobs < 0:
        raise ConfigError("--jobs must be 0 (one per core) or more")
    if args.output_file and os.path.isdir(args.output_file):
        # refused before any file is fixed, not after
        raise ConfigError(f"cannot write the report to {args.output_file}: it is a directory")
    jobs = args.jobs or default_jobs()
    mode = DIFF if args.diff else FIX if (args.fix or args.fix_only) else CHECK
    line_length = config.line_length or configured_line_length(paths[0])  # fixes keep lines within it
    # The text summary says how many fixes --fix would apply, which takes a fix run per fixable file.
    count_fixes = mode == CHECK and (args.output_format or "text") == "text" and not args.quiet \
        and not args.statistics and not args.add_noqa
    # Only the JSON report shows a fix's edits; the others need to know only that a fix exists.
    fix_edits = args.output_format in ("json", "json-lines") or (
        args.show_fixes and (args.output_format or "text") == "text")

    if stdin:
        return check_stdin(args, config, codes, unsafe, mode, fix_edits, cwd, line_length)

    files, missing = discover(paths, config, force_exclude=args.force_exclude)
    for problem in missing:
        print(f"torchperf-lint: error: {problem}", file=sys.stderr)
    if not files and not missing:
        # As ruff: a warning, and exit status 0 (a pre-commit run over no Python file is fine).
        where = ", ".join(str(p) for p in paths)
        print(f"torchperf-lint: warning: No Python files found under {where}", file=sys.stderr)

    # Each file's target torch: the setting, or its project's torch requirement (read once per project).
    from .target_torch import resolve_with_root

    projects: dict = {}
    targets = {str(file): resolve_with_root(config.target_torch, str(file), projects, str(config.root),
                                            config.project_roots) for file in files}
    cache = None
    directory = args.cache_dir or (Path(os.environ[CACHE_ENV]) if os.environ.get(CACHE_ENV) else None)
    if not args.no_cache and codes:
        from .cache import CACHE_DIR_NAME, Cache

        directory = args.cache_dir or (Path(os.environ[CACHE_ENV]) if os.environ.get(CACHE_ENV) else None)
        settings = cache_settings(config, line_length)
        # The target torch each project resolved to (its torch requirement may change, not the config).
        settings["resolved_target_torch"] = repr(sorted(set(targets.values()), key=repr))
        cache = Cache(directory or config.root / CACHE_DIR_NAME, codes, settings)

    results: Dict[str, FileResult] = {}
    tasks: List[Task] = []
    sizes: Dict[str, int] = {}
    for file in files:
        path = str(file)
        per_file = file_codes(config, codes, file)
        if not per_file:
            results[path] = FileResult(path)
            continue
        if cache is not None:
            try:
                stat = os.stat(path)
            except OSError:
                stat = None
            if stat is not None:
                sizes[path] = stat.st_size
                hit = cache.lookup(path, per_file, stat, lambda p=path: _digest_file(p), fix_edits)
                fixable = 0 if hit is None else sum(applicable(f, unsafe) for f in hit[0])
                if hit is not None and fixable and count_fixes and (hit[2] is None or hit[2][0] != unsafe):
                    hit = None  # the summary needs what --fix would apply, which was not counted
                if hit is not None and (mode == CHECK or not fixable):
                    fixed = hit[2][1] if hit[2] is not None and hit[2][0] == unsafe else fixable
                    results[path] = FileResult(path, hit[0], hit[1], fixed=fixed, from_cache=True)
                    continue
        tasks.append(Task(path, tuple(sorted(per_file)), mode, unsafe, line_length, count_fixes, fix_edits,
                          targets[path][1]))

    task_codes = {task.path: frozenset(task.codes) for task in tasks}
    previous_index_cache = None
    if tasks:  # (not imported when every file is in the cache: start-up, benchmarks/cli_latency.py)
        # The project index keeps its summaries next to the findings, and none with --no-cache;
        # for this run only (a host that runs the CLI in process keeps its own setting after it).
        from ..analysis.project_index import configure_disk_cache, configure_root_memo, disk_cache_configuration

        previous_index_cache = disk_cache_configuration()
        configure_disk_cache(not args.no_cache, str(directory) if directory else None)
        # One run: the index finds each folder's project root once (as flake8's plugin does), not
        # by walking the folders up again for every linted file.
        configure_root_memo({})
    running = run_tasks(tasks, jobs, sizes, cwd)
    try:
        for result in running:
            results[result.path] = result
            if cache is not None and result.stamp is not None and result.error is None:
                counted = (mode == CHECK and count_fixes) or mode == DIFF  # then result.fixed is --fix's count
                cache.store(result.path, task_codes[result.path], result.stamp, result.findings, result.noqa_rows,
                            (unsafe, result.fixed) if counted else None, result.dependencies)
    finally:
        running.close()  # interrupted here: the workers stop now, not when the generator is collected
        if previous_index_cache is not None:
            configure_disk_cache(*previous_index_cache)
            configure_root_memo(None)  # a host that runs the CLI in process sees later pyproject.tomls
    if cache is not None:
        cache.save()

    if args.add_noqa:
        from .add_noqa import add_noqa

        added = add_noqa(results)
        print(f"Added {plural(added, 'noqa directive')}.", file=sys.stderr)
        for path in sorted(results):
            if results[path].error:
                print(f"torchperf-lint: error: {display_path(path, cwd)}: {results[path].error}", file=sys.stderr)
        return EXIT_ERROR if missing or any(r.error for r in results.values()) else EXIT_OK

    if args.runtime_report:
        from .runtime_report import merge_reports

        merge_reports(args.runtime_report, results, lambda p: file_codes(config, codes, Path(p)), mode)
    return report(args, results, unsafe, mode, cwd, bool(missing))


# Configuration fields the cache accounts for otherwise: rule selection and per-file-ignores give
# each entry's codes, the unsafe flag is stored with each fix count, the excludes decide which
# files are checked (not what is found in them), path and root say where the settings came from.
# project_roots: a memo filled during the run, not a setting (the targets it leads to are keyed).
_KEYED_ELSEWHERE = frozenset(("select", "extend_select", "ignore", "per_file_ignores", "flake8_per_file_ignores",
                              "unsafe_fixes", "exclude", "extend_exclude", "respect_gitignore", "path", "root",
                              "project_roots"))


def cache_settings(config, line_length: int) -> Dict[str, object]:
    """Part of the cache's key: every other field of the configuration (include-tests, target
    versions, any setting added later) and the line length fixes keep to, so that no setting that
    changes findings or fixes is served another setting's results."""
    import dataclasses

    settings = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name not in _KEYED_ELSEWHERE}
    settings["line_length"] = line_length
    return settings


def check_stdin(args, config, codes, unsafe: bool, mode: str, fix_edits: bool, cwd: str, line_length: int) -> int:
    """``check -``: standard input checked as ``--stdin-filename`` (as ruff): the name decides the
    configuration and per-file-ignores and is the name in the report; nothing is cached. With
    --fix, the fixed text (or the text unchanged) goes to stdout and the report to stderr."""
    import contextlib

    from .config import _excluded_with_parents

    raw = sys.stdin.buffer.read()
    name = args.stdin_filename
    path = Path(os.path.abspath(name)) if name else None
    per_file = file_codes(config, codes, path) if path is not None else codes
    if path is not None and args.force_exclude and _excluded_with_parents(
            [*config.exclude, *config.extend_exclude], path, config.root):
        per_file = frozenset()
    display = display_path(str(path), cwd) if path is not None else "-"
    key = str(path) if path is not None else "-"
    if per_file:
        from .target_torch import resolve

        target = resolve(config.target_torch, str(path) if path is not None else cwd, None, str(config.root))
        result = process(Task(key, tuple(sorted(per_file)), mode, unsafe, line_length, False, fix_edits,
                              target), display, given=raw)
    else:
        result = FileResult(key)
    if mode != FIX:
        return report(args, {key: result}, unsafe, mode, cwd, False)
    with contextlib.redirect_stdout(sys.stderr):
        status = report(args, {key: result}, unsafe, mode, cwd, False)
    sys.stdout.flush()
    sys.stdout.buffer.write(result.output if result.output is not None else raw)
    sys.stdout.flush()
    return status


def _digest_file(path: str) -> Optional[str]:
    try:
        with open(path, "rb") as handle:
            return digest(handle.read())
    except OSError:
        return None


def _process_one(task: Task, display: str) -> FileResult:
    return collector.check_file_in_worker(process, task, display)


def run_tasks(tasks: List[Task], jobs: int, sizes: Dict[str, int], cwd: str):
    """Yield one FileResult per task; in worker processes when there is more than one file.

    A worker that dies (a crash in a native parser, the out-of-memory killer) breaks the whole
    pool: the files it left unchecked are checked again one process each, so that the one that
    kills its process is reported (TPL900) and every other file still gets checked."""
    if not tasks:
        return
    if jobs <= 1 or len(tasks) == 1:
        if len(tasks) > 1 and all(task.mode != FIX for task in tasks):
            # A file whose tree the project index parsed ahead (for another file's walk) next,
            # while the index holds it: the engine does not parse it again (frontends/lint_order.py).
            from .lint_order import serial

            tasks = serial(tasks, lambda task: task.path)
        managed = collector.usable()  # the cyclic collector: see frontends/collector.py
        if managed:
            collector.start_of_run()
        try:
            for task in tasks:
                display = display_path(task.path, cwd)
                yield collector.check_file(process, task, display) if managed else process(task, display)
        finally:
            if managed:
                collector.end_of_run()
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    from .. import engine  # noqa: F401  imported once here, shared by the forked workers

    # Biggest files first: the slowest ones do not end up alone at the end of the run.
    ordered = sorted(tasks, key=lambda t: -sizes.get(t.path, 0))
    context = _mp_context()
    pending = {}
    unfinished: List[Task] = []
    stop = context.Event()
    finished = False
    # Ctrl-C and SIGTERM only note the signal while the pool runs: a KeyboardInterrupt raised inside
    # the executor's lock handling (``as_completed`` waiting on a condition) could leave a lock
    # half-released, and the shutdown then failed with a traceback instead of stopping cleanly.
    # The loop below looks at the note between waits and stops the pool at a safe point.
    signals = _SignalNote(stop)
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context,
                             initializer=init_worker, initargs=(stop,)) as executor:
        try:
            signals.install()
            for index, task in enumerate(ordered):
                if signals.received:
                    break
                try:
                    pending[executor.submit(_process_one, task, display_path(task.path, cwd))] = task
                except BrokenProcessPool:  # a worker died before every file was handed out
                    unfinished.extend(ordered[index:])
                    break
            waiting = set(pending)
            while waiting and not signals.received:
                done, waiting = wait(waiting, timeout=0.1, return_when=FIRST_COMPLETED)
                for future in done:
                    task = pending[future]
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        unfinished.append(task)
                        continue
                    except Exception as error:  # pickling trouble and the like: report, go on
                        result = FileResult(task.path, error=f"worker process failed: {type(error).__name__}: {error}")
                    yield result
            finished = not signals.received
        finally:
            if not finished:
                # Interrupted (Ctrl-C, SIGTERM) or abandoned: no worker starts another file, and
                # the files in hand are written whole or not at all before the workers go.
                stop.set()
                executor.shutdown(wait=True, cancel_futures=True)
            signals.restore()
    if signals.received:
        raise KeyboardInterrupt(signals.received[0])
    if unfinished:
        yield from run_isolated(unfinished, jobs, cwd)


class _SignalNote:
    """While a worker pool runs: SIGINT and SIGTERM set the workers' stop event and are noted, to
    be raised as ``KeyboardInterrupt(signum)`` once the pool has stopped. A signal the process
    ignores (``nohup``) stays ignored; outside the main thread nothing is installed."""

    def __init__(self, stop):
        self.stop = stop
        self.received: List[int] = []
        self._previous: Dict[int, object] = {}

    def _note(self, signum, frame):
        self.received.append(signum)
        self.stop.set()

    def install(self) -> None:
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                current = signal.getsignal(signum)
                if current is signal.SIG_IGN or current is None:
                    continue
                self._previous[signum] = signal.signal(signum, self._note)
            except (ValueError, OSError):
                pass

    def restore(self) -> None:
        for signum, handler in self._previous.items():
            try:
                signal.signal(signum, handler)
            except (ValueError, OSError, TypeError):
                pass
        self._previous.clear()


def _mp_context():
    import multiprocessing

    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)


def _isolated_worker(task: Task, display: str, connection, stop) -> None:
    init_worker(stop)
    try:
        connection.send(process(task, display))
    finally:
        connection.close()


def run_isolated(tasks: List[Task], jobs: int, cwd: str):
    """Each task in a process of its own, ``jobs`` at a time; a process that dies without an answer
    gives its file one TPL900 finding that says so."""
    context = _mp_context()
    queue = list(tasks)
    running = {}  # parent end of the pipe -> (process, task)
    stop = context.Event()
    try:
        yield from _run_isolated(context, queue, running, stop, jobs, cwd)
    finally:
        if queue or running:  # interrupted: as in run_tasks, the files in hand finish whole
            stop.set()
            queue.clear()
            for receiver, (worker, _) in running.items():
                receiver.close()  # an answer no one reads must not keep its process waiting
                worker.join()


def _run_isolated(context, queue, running, stop, jobs: int, cwd: str):
    from multiprocessing.connection import wait

    from ..findings import ANALYSIS_FAILED, analysis_failed

    while queue or running:
        while queue and len(running) < max(1, jobs):
            task = queue.pop(0)
            receiver, sender = context.Pipe(duplex=False)
            worker = context.Process(target=_isolated_worker, args=(task, display_path(task.path, cwd), sender, stop),
                                     daemon=True)
            worker.start()
            sender.close()  # the child holds the only write end: its death reads as end of file
            running[receiver] = (worker, task)
        for receiver in wait(list(running)):
            worker, task = running.pop(receiver)
            try:
                result = receiver.recv()
            except (EOFError, OSError):
                result = None
            receiver.close()
            worker.join()
            if result is None:
                code = worker.exitcode
                how = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                finding = analysis_failed(f"the analysis crashed its process ({how}); the other files were checked")
                result = FileResult(task.path, [finding] if ANALYSIS_FAILED in task.codes else [],
                                    [1] if ANALYSIS_FAILED in task.codes else [])
            yield result


def report(args, results: Dict[str, FileResult], unsafe: bool, mode: str, cwd: str, usage_error: bool) -> int:
    from ..findings import Finding

    reports: List[Reported] = []
    errors: List[str] = []
    fixed = 0
    diffs: List[str] = []
    for path in sorted(results, key=lambda p: display_path(p, cwd)):
        result = results[path]
        display = display_path(path, cwd)
        fixed += result.fixed
        if result.diff:
            diffs.append(result.diff)
        if result.skipped:
            print(f"torchperf-lint: warning: {display}: {result.skipped}", file=sys.stderr)
        if result.error:
            errors.append(f"{display}: {result.error}")
            reports.append(Reported(path, display, Finding("TPL900", 1, 0, f"torchperf-lint {result.error}"), 1))
        cells = result.cells or [None] * len(result.findings)  # a notebook's code cell of each finding
        for finding, row, cell in zip(result.findings, result.noqa_rows, cells):
            reports.append(Reported(path, display, finding, row, cell))
    reports.sort(key=lambda r: (r.display, r.cell or 0, r.finding.line, r.finding.col, r.finding.code))
    for error in errors:
        print(f"torchperf-lint: error: {error}", file=sys.stderr)

    fmt = args.output_format or "text"
    if mode == DIFF:
        try:
            sys.stdout.write("".join(diffs))
            sys.stdout.flush()
        except BrokenPipeError:  # `--diff | head`: as below
            _discard_stdout()
        if not args.quiet:
            print(f"Would fix {plural(fixed, 'finding')}." if fixed else "No fixes available.", file=sys.stderr)
            sys.stderr.write(fixes_applied(results, cwd))
        status = EXIT_FINDINGS if diffs else EXIT_OK
    else:
        shown = [] if args.fix_only else reports
        body = _render_body(args, fmt, shown, unsafe)
        lines = []
        # After a path that could not be checked, "All checks passed!" would be a lie.
        if fmt == "text" and not args.quiet and not args.statistics and not (usage_error and not shown):
            if mode == FIX and fixed:
                lines.append(f"Fixed {plural(fixed, 'finding')}.")
                lines.extend(fixes_applied(results, cwd).splitlines())
            if not args.fix_only:
                lines.append(summary(shown, unsafe, fixed if mode == CHECK else None))
        if args.output_file:
            write_output_file(args.output_file, (body + "".join(line + "\n" for line in lines)).encode("utf-8"))
        else:
            try:
                sys.stdout.write(body)
                for line in lines:
                    print(line)
                sys.stdout.flush()
            except BrokenPipeError:
                # `torchperf-lint check . | head`: the reader has what it wanted; the exit status
                # still says whether there were findings.
                _discard_stdout()
        status = EXIT_FINDINGS if shown else EXIT_OK
        if args.exit_non_zero_on_fix and fixed:
            status = EXIT_FINDINGS
    if args.exit_zero and status == EXIT_FINDINGS:
        status = EXIT_OK
    if errors or usage_error:
        status = EXIT_ERROR
    return status


def _render_body(args, fmt: str, shown: List[Reported], unsafe: bool) -> str:
    """The report: ``--statistics`` (JSON with --output-format json, else text), a format of
    formats.py, or one of output.py; text with ``--show-fixes`` shows each fix under its finding."""
    if args.statistics or fmt in EXTRA_FORMATS or (fmt == "text" and args.show_fixes):
        from .formats import fix_preview, render_extra, statistics

        if args.statistics:
            return statistics(shown, unsafe, as_json=fmt == "json")
        if fmt in EXTRA_FORMATS:
            return render_extra(fmt, shown)
        sources: dict = {}
        return "".join(render("text", [r], unsafe) + fix_preview(r, sources) for r in shown)
    return render(fmt, shown, unsafe)

def write_output_file(path: str, data: bytes) -> None:
    """``-o FILE``: its folders are made; the report replaces the file whole or not at all."""
    try:
        prepare_output_path(path)
        write_atomic(path, data)
    except WriteFailed as failure:
        raise ConfigError(f"cannot write the report to {path}: {failure}") from None


# ---- rule ---------------------------------------------------------------------------------------

def _find_code(text: str) -> Optional[str]:
    text = text.strip()
    if text.upper() in CATALOG:
        return text.upper()
    for code, entry in CATALOG.items():
        if entry.name == text.lower():
            return code
    return None


def render_rule(code: str) -> str:
    """The rule's docs page: from torchperf_lint.frontends.docs when present, else built here."""
    try:
        from .docs import render_rule as docs_render
    except ImportError:
        docs_render = None
    if docs_render is not None:
        try:
            return docs_render(code)
        except Exception:
            pass  # fall back to the page built here
    return fallback_page(code)


def fallback_page(code: str) -> str:
    from ..rules import RULES

    entry = CATALOG[code]
    rule = RULES.get(code)
    out = [f"# {code} {entry.name}", ""]
    out.append(f"{entry.summary[:1].upper()}{entry.summary[1:]}.")
    out.append("")
    state = "on by default" if entry.default_on else f"opt-in: select it with `--extend-select {code}`"
    out.append(f"- Status: {state}")
    out.append(f"- Autofix: {fix_safety(code)}")
    if entry.runtime_fix:
        out.append(f"- Runtime fix: `runtime_guard` ({entry.runtime_fix})")
    out.append(f"- Silence one line: `# noqa: {code}`")
    out.append("")
    if rule is None:
        out.append("This version of torchperf-lint does not check this rule yet.")
        return "\n".join(out) + "\n"
    sections = (
        ("Why is this bad?", getattr(rule, "WHY", ""), False),
        ("Example", getattr(rule, "EXAMPLE", ""), True),
        ("Use instead", getattr(rule, "USE_INSTEAD", ""), True),
        ("Fix safety", getattr(rule, "FIX_NOTE", ""), False),
    )
    for title, body, is_code in sections:
        if not body:
            continue
        out.append(f"## {title}")
        out.append("")
        out.extend(["```python", body.strip("\n"), "```"] if is_code else [body.strip("\n")])
        out.append("")
    references = getattr(rule, "REFERENCES", ())
    if references:
        out.append("## References")
        out.append("")
        out.extend(f"- <{ref}>" for ref in references)
        out.append("")
    return "\n".join(out)


def rule_command(args) -> int:
    if args.all:
        import json

        from ..rules import RULES

        rows = [
            {"code": code, "name": entry.name, "default_on": entry.default_on, "fix": entry.fix,
             "runtime_fix": entry.runtime_fix, "implemented": code in RULES or code == "TPL900",
             "summary": entry.summary, "url": docs_url(code)}
            for code, entry in CATALOG.items()
        ]
        if args.output_format == "json":
            print(json.dumps(rows, indent=2))
            return EXIT_OK
        width = max(len(r["name"]) for r in rows)
        for r in rows:
            flags = ("opt-in " if r["code"] in OPT_IN_CODES else "       ") + \
                    {"safe": "fix   ", "unsafe": "fix(u)", NO_FIX: "      "}.get(r["fix"], "      ")
            missing = "" if r["implemented"] else "  (not checked yet)"
            print(f"{r['code']}  {r['name']:<{width}}  {flags}  {r['summary']}{missing}")
        return EXIT_OK
    if not args.code:
        print("torchperf-lint: error: give a rule code (e.g. TPL101) or --all", file=sys.stderr)
        return EXIT_ERROR
    code = _find_code(args.code)
    if code is None:
        print(f"torchperf-lint: error: unknown rule {args.code!r} (see `torchperf-lint rule --all`)",
              file=sys.stderr)
        return EXIT_ERROR
    if args.output_format == "json":
        import json

        entry = CATALOG[code]
        print(json.dumps({"code": code, "name": entry.name, "default_on": entry.default_on, "fix": entry.fix,
                          "fix_safety": fix_safety(code), "summary": entry.summary, "url": docs_url(code),
                          # the torch each API its remedy writes needs (target-torch below it: not reported)
                          "needs_torch": {api: version_text(API_FLOORS[api]) for api in entry.needs_torch},
                          "explanation": render_rule(code)},
                         indent=2))
        return EXIT_OK
    sys.stdout.write(render_rule(code))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
