"""``python -m runtime_guard [OPTIONS] script.py [ARGS...]`` / ``... -m package.module [ARGS...]``.

Runs the target as ``python script.py ARGS`` / ``python -m package.module ARGS`` would, with the
guard installed first: no edit of the script (``import runtime_guard`` as the first line is a
SyntaxError in a script that starts with ``from __future__ import ...``, and some scripts cannot
be edited). Under torchrun:
``torchrun --nproc_per_node N -m runtime_guard train.py ARGS``.

What the target sees is what the interpreter gives a script (checked by the tests against
``python script.py``): ``sys.modules["__main__"]`` is a fresh module named ``__main__`` (so
``if __name__ == "__main__":`` runs, and ``multiprocessing`` spawn/forkserver children re-import
the script by its path, or the module by its name), ``sys.argv`` = [the path as given, ARGS...],
``sys.path[0]`` = the script's directory (the current directory for ``-m``), ``__file__``
absolute, ``__spec__`` None for a script, code compiled without the runner's ``__future__`` flags.
Exit status, ``sys.exit(n)`` and uncaught exceptions propagate unchanged; the traceback printed for
an uncaught exception starts at the target's code (the runner's frames are left out of it).
Only ``sys.orig_argv`` and ``sys.excepthook`` (a wrapper that drops the runner's frames, then
calls the hook that was there) still show the runner.

Options (before the target; each one overrides its environment variable):
  --mode off|warn|fix     RUNTIME_GUARD
  --fixes LIST            RUNTIME_GUARD_FIXES (fix names or TPL codes, comma-separated)
  --skip LIST             RUNTIME_GUARD_SKIP
  --device DEVICE         RUNTIME_GUARD_DEVICE
  --amp bf16|fp16         RUNTIME_GUARD_AMP
  --report PATH           RUNTIME_GUARD_REPORT: write the events to PATH at exit (.json or .sarif)
"""

# No ``from __future__`` import in this module: the target is compiled with dont_inherit=True
# anyway, but the runner must not even look as if it could leak compiler flags into it.

import builtins
import importlib.machinery
import io
import os
import pkgutil
import runpy
import sys
import types

# Option name -> install() keyword (None: handled here).
_OPTIONS = {"--mode": "mode", "--fixes": "fixes", "--skip": "skip", "--device": "device",
            "--amp": "amp", "--report": None}

# The runner's command line up to the target's arguments (options, then the script or "-m" and the
# module), for a relaunch that must go through the runner again (``relaunch_target``).
_invocation = None


class UsageError(Exception):
    pass


def _parser():
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m runtime_guard",
        usage="python -m runtime_guard [OPTIONS] (script.py | -m module) [ARGS...]",
        description="Run a Python script or module with runtime_guard installed first, without "
                    "editing it. Processes it starts (torchrun ranks, mp.spawn and multiprocessing "
                    "spawn children, Lightning's relaunched ranks) are guarded too.",
        epilog="Each option overrides its environment variable. Under torchrun: torchrun "
               "--nproc_per_node N -m runtime_guard train.py ARGS")
    parser.add_argument("--mode", choices=("off", "warn", "fix"),
                        help="RUNTIME_GUARD (default fix)")
    parser.add_argument("--fixes", metavar="LIST",
                        help="RUNTIME_GUARD_FIXES: fix names or TPL codes, comma-separated")
    parser.add_argument("--skip", metavar="LIST", help="RUNTIME_GUARD_SKIP: fixes left out")
    parser.add_argument("--device", help="RUNTIME_GUARD_DEVICE: the target device")
    parser.add_argument("--amp", choices=("bf16", "fp16"),
                        help="RUNTIME_GUARD_AMP (opt-in TPL305)")
    parser.add_argument("--report", metavar="PATH",
                        help="RUNTIME_GUARD_REPORT: write the events to PATH at exit "
                             "(.json or .sarif)")
    parser.add_argument("-m", dest="module", metavar="module", help="run a module as python -m")
    return parser


def parse(argv):
    """(options dict, target, target is a module name, target's args) from the runner's argv.

    The runner's own options come first; the first argument that is not one of them (the script,
    or ``-m module``, or what follows ``--``) ends them, so the target's own ``--help`` and options
    pass through untouched."""
    options = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            raise UsageError("")
        if arg == "-m":
            if i + 1 >= len(argv):
                raise UsageError("-m needs a module name")
            return options, argv[i + 1], True, argv[i + 2:]
        if arg == "--":
            if i + 1 >= len(argv):
                raise UsageError("no script given after --")
            return options, argv[i + 1], False, argv[i + 2:]
        if arg.startswith("--"):
            name, has_value, value = arg.partition("=")
            if name not in _OPTIONS:
                raise UsageError(f"unknown option {name}")
            if not has_value:
                if i + 1 >= len(argv):
                    raise UsageError(f"{name} needs a value")
                i += 1
                value = argv[i]
            options[name] = value
            i += 1
            continue
        if arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option {arg}")
        return options, arg, False, argv[i + 1:]
    raise UsageError("no script or module given")


# Option -> the environment variable that carries it to the processes the target starts.
_ENV = {"--mode": "RUNTIME_GUARD", "--fixes": "RUNTIME_GUARD_FIXES", "--skip": "RUNTIME_GUARD_SKIP",
        "--device": "RUNTIME_GUARD_DEVICE", "--amp": "RUNTIME_GUARD_AMP",
        "--report": "RUNTIME_GUARD_REPORT"}


def guard_children(options, environ=None):
    """Make every Python process the target starts install the guard with the same settings: the
    options go into the environment, and ``runtime_guard/bootstrap`` (a ``sitecustomize`` that
    installs the guard once the process imports torch) goes first on ``PYTHONPATH``."""
    environ = os.environ if environ is None else environ
    for name, value in options.items():
        environ[_ENV[name]] = value
    bootstrap = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bootstrap")
    # Only the bootstrap goes on PYTHONPATH: a PYTHONPATH entry comes before the standard library
    # in sys.path, so adding site-packages there could shadow it. A child that cannot import
    # runtime_guard otherwise finds it through the bootstrap (appended at the end of sys.path).
    entries = [e for e in environ.get("PYTHONPATH", "").split(os.pathsep) if e and e != bootstrap]
    environ["PYTHONPATH"] = os.pathsep.join([bootstrap, *entries])
    environ["RUNTIME_GUARD_INHERIT"] = "1"


def relaunch_target():
    """What replaces the script in a relaunch command (``torchrun ... TARGET ARGS``) so that it goes
    through this runner again with the same options: ``["-m", "runtime_guard", "--mode", "warn",
    "train.py"]`` (``sys.argv[1:]`` follows). None when the runner is not in use. The runner hands
    it to the guard (``GUARD.relaunch_target``), which passes it down to the DDP fix."""
    return None if _invocation is None else ["-m", "runtime_guard", *_invocation]


def main(argv=None):
    global _invocation
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        options, target, is_module, args = parse(argv)
    except UsageError as error:
        if not str(error):  # --help
            _parser().print_help()
            sys.exit(0)
        _parser().error(str(error))
    _invocation = argv[:len(argv) - len(args)]
    guard_children(options)
    # The target's argv already while the guard installs (importing the package installed it from
    # the environment; options reinstall it below).
    sys.argv[:] = ["-m" if is_module else target, *args]

    import runtime_guard
    from . import report_file  # imported now: sys.path is about to become the target's

    runtime_guard.GUARD.relaunch_target = relaunch_target()

    if "--report" in options:
        report_file.set_destination(options["--report"])
    explicit = {_OPTIONS[name]: value for name, value in options.items() if _OPTIONS[name]}
    if explicit:
        runtime_guard.install(**explicit)  # again: explicit values win, the rest from the environment
    sys.excepthook = _TrimmedHook(sys.excepthook)
    if is_module:
        run_module(target, args)
    else:
        run_path(target, args)


# ---- running the target -------------------------------------------------------------------------

def _fail(message, status):
    """Stop as the interpreter does when it cannot start the target."""
    print(f"{sys.executable}: {message}", file=sys.stderr)
    sys.exit(status)


def _set_path0(entry):
    # `python -m runtime_guard` put the current directory at sys.path[0]; the target gets the entry
    # its own launch would have put there. With -P / PYTHONSAFEPATH neither adds an entry.
    if getattr(sys.flags, "safe_path", False):
        return
    if sys.path:
        sys.path[0] = entry
    else:
        sys.path.insert(0, entry)


def _fresh_main(spec=None):
    module = types.ModuleType("__main__")
    module.__dict__.update({"__builtins__": builtins, "__annotations__": {}, "__spec__": spec,
                            "__cached__": None})
    return module


def run_path(path, args):
    """Run a script (or a directory / zip file with a __main__.py) as ``python path args``."""
    # As the interpreter makes it: the current directory joined, not normalised ("/cwd/../x.py").
    absolute = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    if pkgutil.get_importer(path) is not None and os.path.exists(path):
        # A directory or a zip file: the interpreter puts it at sys.path[0] and runs its __main__.
        _set_path0(os.path.realpath(absolute))
        try:
            _, spec, code = runpy._get_main_module_details(runpy._Error)
        except runpy._Error as error:
            _fail(str(error), 1)
        module = _fresh_main(spec)
        _fill_from_spec(module, spec)
        _execute(code, module)
        return
    try:
        with io.open_code(absolute) as handle:
            source = handle.read()
    except OSError as error:
        _fail(f"can't open file {absolute!r}: [Errno {error.errno}] {error.strerror}", 2)
    _set_path0(os.path.dirname(os.path.realpath(absolute)))
    module = _fresh_main()
    module.__file__ = absolute
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", absolute)
    code = _compile(source, absolute)
    try:
        _execute(code, module)
    finally:
        # The interpreter removes these once the script has run (atexit handlers see no __file__).
        module.__dict__.pop("__file__", None)
        module.__dict__.pop("__cached__", None)


def run_module(name, args):
    """Run a module as ``python -m name args``."""
    _set_path0(os.getcwd())
    try:
        _, spec, code = runpy._get_module_details(name, runpy._Error)
    except runpy._Error as error:
        _fail(str(error), 1)
    sys.argv[0] = spec.origin
    module = _fresh_main(spec)
    _fill_from_spec(module, spec)
    _execute(code, module)


def _fill_from_spec(module, spec):
    module.__file__ = spec.origin
    module.__cached__ = spec.cached
    module.__loader__ = spec.loader
    module.__package__ = spec.parent


def _compile(source, filename):
    # dont_inherit: the target's own `from __future__` imports alone decide how it compiles.
    return compile(source, filename, "exec", dont_inherit=True)


def _execute(code, module):
    """Make ``module`` the __main__ module for good and run ``code`` in it."""
    sys.modules["__main__"] = module
    exec(code, module.__dict__)


# The frames of these functions are the runner's last before the target's code: an uncaught
# exception's traceback is printed from the frame after them (nothing, for a SyntaxError).
_RUNNER_CODES = (_execute.__code__, _compile.__code__)


def trim(tb):
    """The part of a traceback below the runner's frames (unchanged when it did not pass them)."""
    cursor = tb
    while cursor is not None:
        if cursor.tb_frame.f_code in _RUNNER_CODES:
            return cursor.tb_next
        cursor = cursor.tb_next
    return tb


class _TrimmedHook:
    """sys.excepthook without the runner's frames; then the hook that was there before."""

    def __init__(self, previous):
        self.previous = previous

    def __call__(self, exc_type, value, tb):
        try:
            trimmed = trim(tb)
            if trimmed is not tb and value is not None:
                value = value.with_traceback(trimmed)
                tb = trimmed
        except Exception:
            pass
        self.previous(exc_type, value, tb)
