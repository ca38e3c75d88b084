"""While a worker pool runs, Ctrl-C and SIGTERM are only noted (and the workers told to stop); the
parallel loop raises ``KeyboardInterrupt(signum)`` at a safe point, after the pool has stopped. A
KeyboardInterrupt raised inside the executor's lock handling could leave a lock half-released, and
the run then ended with a traceback (exit 1) instead of its message (exit 130): seen once in a
full test run under load."""

from __future__ import annotations

import os
import signal
import threading

from torchperf_lint.frontends.cli import _SignalNote


def test_signals_are_noted_and_the_stop_event_set_not_raised():
    # Python's own Ctrl-C handler, as in a terminal: a test run started in the background by a
    # non-interactive shell inherits SIGINT ignored (and an ignored signal stays ignored: below).
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        stop = threading.Event()
        note = _SignalNote(stop)
        before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        note.install()
        try:
            os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt here: only noted
            os.kill(os.getpid(), signal.SIGTERM)
        finally:
            note.restore()
        assert note.received == [signal.SIGINT, signal.SIGTERM]
        assert stop.is_set()
        assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    finally:
        signal.signal(signal.SIGINT, outer)


def test_an_ignored_signal_stays_ignored():
    """``nohup``: SIGINT inherited ignored is left ignored (the run is not to be stopped by it)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        note = _SignalNote(threading.Event())
        note.install()
        try:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
        finally:
            note.restore()
        assert note.received == [] and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_nothing_is_installed_outside_the_main_thread():
    before = signal.getsignal(signal.SIGINT)
    seen = []

    def install():
        note = _SignalNote(threading.Event())
        note.install()
        seen.append(signal.getsignal(signal.SIGINT))
        note.restore()

    worker = threading.Thread(target=install)
    worker.start()
    worker.join()
    assert seen == [before]
