"""The cyclic garbage collector in a CLI run: each file checked with it paused, what the file
leaves frozen after it, a full collection only when what is kept has doubled.

The engine pauses the collector while it lints a file (engine._collector_paused), but what survives
the file (the project index's summaries, and the trees it keeps for files the engine lints later:
up to 8 M characters of source, millions of tracked ``ast`` nodes) was then walked by the young
collection that ran right after the file, again by the middle one, and again by every full one: a
quarter of the CLI's CPU time on a library (13 of 56 cpu-s over the 77 MB benchmark corpus,
benchmarks/CLI.md, 2026-11-26 afternoon). Frozen objects (``gc.freeze``) are not walked; they are
still freed by reference counting as soon as nothing holds them (an evicted tree, a replaced
summary), so freezing changes what the collector walks, never when an object that nothing refers to
is freed. Only cyclic garbage made before a freeze waits: for the next full collection, which runs
(``gc.unfreeze``, ``gc.collect``, ``gc.freeze``) once the process holds FULL_COLLECTION_GROWTH times
the memory blocks it held after the last one (``sys.getallocatedblocks``, a count Python keeps per
arena: reading it walks no object, where ``gc.get_freeze_count`` walks every frozen one), so that
such garbage never holds more than three times the memory that is alive then. It is insurance: the
analysis makes none (tests/test_engine_speed.py checks it; over the 77 MB corpus these collections
found 100-400 objects, the CLI's own start-up), and each one walks every object the run holds (1-2 s
at the end of a run over transformers: with a growth of 2 instead of 4 they took 2.9 s of that run's
31, with 4 one collection, 0.9 s). CPython's own rule for its oldest generation is of the same
kind (a full collection when it has grown by a quarter), with the young collections in between.
Below FULL_COLLECTION_MIN_BLOCKS of memory blocks none runs: the growth is measured from the start of
the run, when the process holds a few hundred thousand blocks, so a run over a mid-size library
(kornia: 2.1 M blocks kept at most) made one collection that walked everything to find the 362
objects of the CLI's own start-up (0.7 of its 5 cpu-s; benchmarks/CLI.md, twenty-fourth session).
That start-up garbage is collected at the start of the run instead, while little is alive, and what
a run below the floor could leave uncollected is bounded by the floor itself (a few hundred MB if
every block were cyclic garbage; the analysis makes none).

Only for a run of our own: the CLI's serial loop (which puts the collector back as it was after the
run, unfrozen) and its worker processes. Not in the flake8 plugin, the language server or any other
host (their objects are not ours to freeze), nor when something froze objects before the run.
"""

from __future__ import annotations

import gc
import sys
from typing import Callable, TypeVar

FULL_COLLECTION_GROWTH = 4.0
FULL_COLLECTION_MIN_BLOCKS = 4 * 1024 * 1024  # sys.getallocatedblocks: pymalloc blocks of up to 512 bytes
# ... looked at once the files have left this many new tracked objects since the last look (the
# collector's count, which a freeze resets): ``sys.getallocatedblocks`` visits every memory pool
# (2 ms at 12 M blocks), too much after each of thousands of small files.
CHECK_EVERY = 250_000

T = TypeVar("T")

_STATE = {"blocks_after_full": 0, "made": 0, "worker": None}  # worker: (pid, managed) decided at its first file


def usable() -> bool:
    """Is the collector ours to manage: on, and nothing frozen by someone else?"""
    return gc.isenabled() and gc.get_freeze_count() == 0


def check_file(check: Callable[..., T], *args) -> T:
    """``check(*args)`` for one file with the collector paused, then what it left frozen (and a full
    collection when the frozen objects have grown FULL_COLLECTION_GROWTH-fold since the last).
    Call it only where ``usable()`` held when the run started (the caller keeps that answer: after
    the first file something is frozen, by us), after ``start_of_run``."""
    gc.disable()
    try:
        return check(*args)
    finally:
        # Frozen before the collector is back on: enabled first, the file's allocations (far past
        # the threshold) made the next one run a collection over everything the file left alive.
        _after_file()
        gc.enable()


def check_file_in_worker(check: Callable[..., T], *args) -> T:
    """``check_file`` in a worker process of the CLI (whose whole life is the run), decided at the
    worker's first file: a worker forked from a process that froze objects is left alone."""
    import os

    decided = _STATE["worker"]
    if decided is None or decided[0] != os.getpid():
        decided = _STATE["worker"] = (os.getpid(), usable())
        _STATE["blocks_after_full"] = sys.getallocatedblocks()
        _STATE["made"] = 0
    return check_file(check, *args) if decided[1] else check(*args)


def _after_file() -> None:
    _STATE["made"] += gc.get_count()[0]
    gc.freeze()
    if _STATE["made"] < CHECK_EVERY:
        return
    _STATE["made"] = 0
    held = sys.getallocatedblocks()
    if held > FULL_COLLECTION_GROWTH * _STATE["blocks_after_full"] and held > FULL_COLLECTION_MIN_BLOCKS:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        _STATE["blocks_after_full"] = sys.getallocatedblocks()


def start_of_run() -> None:
    """Before the first file: the start-up's garbage collected while little is alive (a full
    collection now walks a few hundred thousand objects; one later walks everything the run keeps)."""
    gc.collect()
    _STATE["blocks_after_full"] = sys.getallocatedblocks()
    _STATE["made"] = 0


def end_of_run() -> None:
    """Back to the collector as it was before the run: nothing frozen (a later full collection
    frees whatever cyclic garbage the run left)."""
    gc.unfreeze()
