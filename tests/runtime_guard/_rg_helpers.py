"""Helpers for the runtime guard tests.

Tests that install the guard in this process uninstall it in the ``guard`` fixture, and tests of
import-time behaviour run in subprocesses, so no patch leaks from one test into another.
"""
import os
import subprocess
import sys
import textwrap


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")


def guard_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNTIME_GUARD")}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONWARNINGS"] = "ignore"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_python(code, timeout=120, **env):
    """Run code in a fresh interpreter; return the CompletedProcess (raises on failure)."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=guard_env(**env),
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def _aborted_at_shutdown(proc):
    """torchrun with gloo ends in SIGABRT ("terminate called without an active exception") in
    about 1 run in 5 on this machine, with or without the guard: a torch shutdown issue."""
    text = proc.stdout + proc.stderr
    return ("terminate called without an active exception" in text or "SIGABRT" in text
            or "Signals.SIGABRT" in text or "exitcode  : -6" in text)


def run_torchrun(script, args=(), timeout=180, **env):
    """Run ``script`` under ``torchrun --standalone --nproc_per_node=2`` (gloo on CPU).

    Retried once when a rank died of SIGABRT at shutdown (see ``_aborted_at_shutdown``); the
    tests then check what the ranks wrote, not only the exit status."""
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    for attempt in (1, 2):
        proc = subprocess.run([torchrun, "--standalone", "--nproc_per_node=2", script, *args],
                              env=guard_env(**env), capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
        if proc.returncode == 0 or attempt == 2 or not _aborted_at_shutdown(proc):
            break
    if proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def _guard_fixture(monkeypatch):
    """The guard installed in this process (mode fix, CPU target), uninstalled afterwards."""
    for key in list(os.environ):
        if key.startswith("RUNTIME_GUARD"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("RUNTIME_GUARD", "off")  # importing must not install by itself here
    import runtime_guard
    runtime_guard.uninstall()
    runtime_guard.GUARD.log.clear()
    yield runtime_guard
    runtime_guard.uninstall()
    runtime_guard.GUARD.log.clear()


def events(rg, code=None, action=None):
    return [e for e in rg.report() if (code is None or e.code == code)
            and (action is None or e.action == action)]
