"""A clean float32 training step makes the guard hold no more memory than before it.

Every guarded run pays for what the guard keeps per step, and on a CPU run the C library's heap
is shared with the step's tensors: a guard container that grew by one entry per step (the anomaly
timer's list of step times did, up to 10,000 floats) took a new, larger heap block each time it
grew, in the middle of the step's tensors, so where glibc put them (and how often it gave heap
memory back to the kernel and faulted it in again) differed from an unguarded run
(benchmarks/RUNTIME.md). tracemalloc counts every allocation made from the guard's own source
files; after warm-up, 200 more steps must leave nothing new of them alive.
"""
import os
import tracemalloc

import torch
from torch import nn

import runtime_guard

GUARD_DIR = os.path.dirname(os.path.abspath(runtime_guard.__file__))


def _conv_run():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    data = torch.utils.data.TensorDataset(torch.randn(64, 3, 8, 8), torch.randint(0, 2, (64,)))
    loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)

    def steps(n):
        done = 0
        while done < n:
            for x, y in loader:  # a new pass (the loader wrappers run) every 8 steps
                loss = nn.functional.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if done % 10 == 0:
                    loss.item()  # counted by the sync report
                done += 1
                if done == n:
                    break

    return steps


def _guard_blocks(snapshot):
    return snapshot.filter_traces([tracemalloc.Filter(True, os.path.join(GUARD_DIR, "*"))])


def test_clean_steps_leave_nothing_of_the_guard_alive(guard):
    guard.install(mode="fix", device="cpu")
    steps = _conv_run()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny ops: a second thread only waits on a busy machine
    # Warm-up: first-call imports, the events of the first pass, the first .item(), and step
    # counters past 256 (Python caches smaller ints, so a counter at 30 holds no object and one
    # at 330 holds one of the same size for ever after: not growth).
    steps(270)
    tracemalloc.start(1)
    try:
        steps(10)
        before = _guard_blocks(tracemalloc.take_snapshot())
        steps(200)
        after = _guard_blocks(tracemalloc.take_snapshot())
    finally:
        tracemalloc.stop()
        torch.set_num_threads(threads)
    assert guard.GUARD.fix("anomaly_mode").steps_off == 480  # the step hook did run every step
    grown = [(str(stat.traceback), stat.size_diff, stat.count_diff)
             for stat in after.compare_to(before, "lineno")
             if stat.size_diff > 0 or stat.count_diff > 0]
    assert grown == []


def test_step_times_are_kept_up_to_the_bound_then_dropped(guard, monkeypatch):
    """The buffer is allocated once at install, holds the first intervals in order and drops
    the rest (a clock that ticks 0.5, 1, 2, 4, 8 s between six steps, a bound of three)."""
    from runtime_guard.fixes import anomaly_mode

    ticks = iter([10.0, 10.5, 11.5, 13.5, 17.5, 25.5])

    class Clock:
        @staticmethod
        def perf_counter():
            return next(ticks)

    monkeypatch.setattr(anomaly_mode, "time", Clock)
    monkeypatch.setattr(anomaly_mode, "_MAX_SAMPLES", 3)
    guard.install(mode="fix", device="cpu")
    fix = guard.GUARD.fix("anomaly_mode")
    buffer = fix.seconds_off.values
    assert len(buffer) == 3 and fix.seconds_off.kept() == []
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(6):
        model(torch.ones(1, 2)).sum().backward()
        opt.step()
    assert fix.steps_off == 6
    assert fix.seconds_off.kept() == [0.5, 1.0, 2.0]  # five intervals, the first three kept
    assert fix.seconds_off.values is buffer and len(buffer) == 3
    assert fix.seconds_on.kept() == []
