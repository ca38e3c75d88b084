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
    # These subprocesses test the CPU paths (gloo, CPU autocast, the meta stand-in): on a machine
    # with a GPU they would take the CUDA paths instead (nccl, a script's CPU model under a CUDA
    # DataParallel). test_rg_cuda.py asks for the GPU by passing CUDA_VISIBLE_DEVICES itself.
    env["CUDA_VISIBLE_DEVICES"] = ""
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_python(code, timeout=120, **env):
    """Run code in a fresh interpreter; return the CompletedProcess (raises on failure). A run that
    fails only because a gloo worker aborted at shutdown (``_aborted_at_shutdown``: a script with an
    in-process gloo group, test_rg_ddp_accumulation's, did once on a loaded machine) is run again,
    as torchrun's are."""
    proc = run_until_clean_shutdown([sys.executable, "-c", textwrap.dedent(code)], env=guard_env(**env),
                                    timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def _aborted_at_shutdown(proc):
    """A rank that ends in SIGABRT ("terminate called without an active exception"): a gloo worker
    thread asked for the GIL while the interpreter was finalizing (a core dump shows it in
    ``ProcessGroupGloo::runLoop`` destroying a finished allreduce). The scripts and the guard
    settle their groups before exit (scripts/_clean_exit.py), which made it rare, not impossible:
    about 1 run in 30 before, hand-written DDP as much as guarded runs."""
    text = proc.stdout + proc.stderr
    return ("terminate called without an active exception" in text or "SIGABRT" in text
            or "Signals.SIGABRT" in text or "exitcode  : -6" in text)


SHUTDOWN_TRIES = 3


def run_until_clean_shutdown(command, *, env, cwd=ROOT, timeout=300, before_try=None):
    """Run ``command``; run it again (``SHUTDOWN_TRIES`` tries in all) while it fails only because
    a rank died of SIGABRT at shutdown (see ``_aborted_at_shutdown``). Returns the last
    CompletedProcess; the tests check what the ranks wrote, not only the exit status.
    ``command`` may be a callable that builds the command afresh for each try (a new free port)."""
    for attempt in range(1, SHUTDOWN_TRIES + 1):
        if before_try is not None:
            before_try()
        proc = subprocess.run(command() if callable(command) else command, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=timeout)
        if proc.returncode == 0 or not _aborted_at_shutdown(proc):
            break
    return proc


def run_torchrun(script, args=(), timeout=180, **env):
    """Run ``script`` under ``torchrun --standalone --nproc_per_node=2`` (gloo on CPU); raises
    unless it ends cleanly within ``SHUTDOWN_TRIES`` tries."""
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    proc = run_until_clean_shutdown([torchrun, "--standalone", "--nproc_per_node=2", script, *args],
                                    env=guard_env(**env), timeout=timeout)
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


def backward_and_step(loss, optimizer, scaler=None):
    """One optimizer step on ``loss``: as a float16 script without a GradScaler writes it (the
    guard's loss scaling applies), or with ``scaler``, the hand-written reference."""
    if scaler is None:
        loss.backward()
        optimizer.step()
    else:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def events(rg, code=None, action=None):
    return [e for e in rg.report() if (code is None or e.code == code)
            and (action is None or e.action == action)]
