"""The cyclic collector in a CLI run (frontends/collector.py): each file checked with it paused, what
a file leaves frozen, cyclic garbage still freed by the full collections, and the collector as it
was once the run is over."""

import gc

import pytest

from torchperf_lint.frontends import collector

from _cli_helpers import DATA_PARALLEL, FIXABLE


class _Ring:
    """A node of a ring of objects: cyclic garbage once the ring is dropped."""

    __slots__ = ("next", "__weakref__")


def _drop_a_ring(size: int) -> int:
    first = node = _Ring()
    for _ in range(size - 1):
        node.next = _Ring()
        node = node.next
    node.next = first  # the cycle: reference counting alone never frees it
    return size


def _rings_alive() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is _Ring)


@pytest.fixture
def collector_state():
    """The collector as a run finds it, and put back after the test whatever the test left."""
    gc.collect()
    assert collector.usable()
    yield
    gc.unfreeze()
    gc.enable()
    gc.collect()


def test_a_file_is_checked_with_the_collector_paused_and_what_it_leaves_is_frozen(collector_state):
    seen = {}

    def check(x):
        seen["enabled"] = gc.isenabled()
        return [x]  # a new tracked object the file leaves behind

    collector.start_of_run()
    kept = collector.check_file(check, 1)
    assert kept == [1]
    assert seen["enabled"] is False  # paused while the file is checked
    assert gc.isenabled()  # on again between files
    assert gc.get_freeze_count() > 0  # what the file left (and everything before it) is frozen
    assert not collector.usable()  # a second run inside this one would not manage it again
    collector.end_of_run()
    assert gc.get_freeze_count() == 0
    assert collector.usable()


def test_cyclic_garbage_left_by_files_is_still_collected(collector_state, monkeypatch):
    """Without the full collections every ring would stay (frozen garbage is never walked); with
    them, what stays is bounded by the memory the process held after the last one. (A growth of 2%
    between full collections here, so that a test process of any size gets there quickly.)"""
    import sys

    monkeypatch.setattr(collector, "FULL_COLLECTION_GROWTH", 1.02)
    monkeypatch.setattr(collector, "FULL_COLLECTION_MIN_BLOCKS", 0)
    monkeypatch.setattr(collector, "CHECK_EVERY", 10_000)
    collector.start_of_run()
    made = 0
    full = []
    callback = lambda phase, info: full.append(1) if phase == "stop" and info["generation"] == 2 else None  # noqa: E731
    gc.callbacks.append(callback)
    try:
        limit = sys.getallocatedblocks()  # rings of one block per object: the process's size again at most
        while len(full) < 3 and made < limit:
            made += collector.check_file(_drop_a_ring, 20_000)  # each file leaves one ring
    finally:
        gc.callbacks.remove(callback)
    gc.unfreeze()  # to count what is left without collecting it
    alive = _rings_alive()
    collector.end_of_run()
    assert len(full) == 3  # full collections ran
    assert alive < made / 2  # and freed the rings the files left before them
    gc.collect()
    assert _rings_alive() == 0


def test_no_full_collection_below_the_floor_however_much_the_run_grew(collector_state, monkeypatch):
    """A run that has grown many times over since its start but holds fewer blocks than the floor
    pays no collection that walks everything it keeps; past the floor, the growth rule applies."""
    import sys

    monkeypatch.setattr(collector, "CHECK_EVERY", 10_000)
    kept = []

    def keep_a_ring(size):
        kept.append(_drop_a_ring(size))  # alive: only growth, nothing to free
        return size

    def full_collections(files: int) -> int:
        full = []
        callback = lambda phase, info: full.append(1) if phase == "stop" and info["generation"] == 2 else None  # noqa: E731
        gc.callbacks.append(callback)
        try:
            for _ in range(files):
                collector.check_file(keep_a_ring, 20_000)
        finally:
            gc.callbacks.remove(callback)
        return len(full)

    monkeypatch.setattr(collector, "FULL_COLLECTION_GROWTH", 1.02)
    monkeypatch.setattr(collector, "FULL_COLLECTION_MIN_BLOCKS", sys.getallocatedblocks() * 100)
    collector.start_of_run()
    assert full_collections(5) == 0  # grown past 1.02 times the start many times, under the floor
    monkeypatch.setattr(collector, "FULL_COLLECTION_MIN_BLOCKS", 0)
    assert full_collections(5) >= 1
    collector.end_of_run()


def test_the_start_up_garbage_is_collected_when_the_run_starts(collector_state):
    gc.disable()  # (so that no young collection frees the ring first)
    try:
        _drop_a_ring(1000)  # garbage made before the run (a front end's start-up)
        assert _rings_alive() == 1000
        collector.start_of_run()
        assert _rings_alive() == 0
    finally:
        gc.enable()
    collector.end_of_run()


def test_a_serial_cli_run_puts_the_collector_back(project, collector_state):
    project.write("train.py", DATA_PARALLEL)
    project.write("fix_me.py", FIXABLE)
    code, out, _ = project.run("--no-cache", "--output-format", "json", ".")
    assert code == 1 and "TPL" in out
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_run_that_finds_objects_frozen_leaves_the_collector_alone(project, collector_state):
    project.write("train.py", DATA_PARALLEL)
    gc.freeze()  # someone else's (an embedding host)
    frozen = gc.get_freeze_count()
    code, out, _ = project.run("--no-cache", ".")
    assert code == 1
    assert gc.get_freeze_count() >= frozen  # not unfrozen by the run
    gc.unfreeze()


def test_a_worker_decides_once_per_process(collector_state, monkeypatch):
    """A worker process of the CLI manages the collector from its first file on; the decision is
    per process (a worker forked from a process that had decided is asked again)."""
    import os

    seen = []
    check = lambda: seen.append(gc.isenabled()) or len(seen)  # noqa: E731
    monkeypatch.setitem(collector._STATE, "worker", None)
    collector.check_file_in_worker(check)
    collector.check_file_in_worker(check)
    assert seen == [False, False]  # managed: paused while each file is checked
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
    # Decided in another process (the parent of a fork), with objects frozen here by someone else:
    # this process is asked again, and leaves the collector alone.
    monkeypatch.setitem(collector._STATE, "worker", (os.getpid() + 1, True))
    gc.freeze()
    collector.check_file_in_worker(check)
    assert seen[-1] is True
    assert collector._STATE["worker"] == (os.getpid(), False)
