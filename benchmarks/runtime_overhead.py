"""Step-time overhead of the runtime guard on a small CPU training loop.

The loop is what a clean script does each step (loader batch, forward, loss, backward, optimizer
step, an occasional .item() for logging) and needs no fix, so any difference is the guard's cost.
Guard off and on alternate in one process, several rounds, to cancel drift; the median per-step
time of each is compared, in wall-clock time and in the main thread's CPU time
(``time.thread_time``; torch runs on one thread here). On a machine shared with other work the CPU
time is the number to read: wall-clock time then mostly measures the other processes.

    python benchmarks/runtime_overhead.py [--steps 200] [--rounds 7] [--width 256]
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("RUNTIME_GUARD", "off")  # installed and removed explicitly below
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

import runtime_guard  # noqa: E402


def build(width):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                          nn.Linear(width, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
    return model, opt, data


def run(model, opt, data, steps, log_every=50, per_step=None):
    loader = DataLoader(data, batch_size=64, shuffle=True)
    done = 0
    clock = time.perf_counter
    start = time.perf_counter()
    cpu_start = time.thread_time()
    while done < steps:
        last = clock()
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if done % log_every == 0:
                loss.item()
            done += 1
            if per_step is not None:
                now = clock()
                per_step.append(now - last)
                last = now
            if done == steps:
                break
    return (time.perf_counter() - start) / steps, (time.thread_time() - cpu_start) / steps


def added_cost(repeats=40, steps=100):
    """The guard's added time per step, measured on a tiny step (Linear(8, 8), batch 4) where the
    guard's wrappers are a large share: the minimum over many short repeats, which a loaded
    machine disturbs far less than a long run. Returns (off, fix) seconds per step."""
    torch.manual_seed(0)
    model = nn.Linear(8, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = TensorDataset(torch.randn(steps * 4, 8), torch.randint(0, 8, (steps * 4,)))
    best = {"off": float("inf"), "fix": float("inf")}
    for _ in range(repeats):
        for mode in ("off", "fix"):
            if mode == "fix":
                runtime_guard.install(mode="fix", device="cpu")
            loader = DataLoader(data, batch_size=4, shuffle=True)
            start = time.perf_counter()
            for i, (x, y) in enumerate(loader):
                loss = nn.functional.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if i % 50 == 0:
                    loss.item()
            best[mode] = min(best[mode], (time.perf_counter() - start) / steps)
            runtime_guard.uninstall()
    return best["off"], best["fix"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--width", type=int, default=256)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    model, opt, data = build(args.width)
    run(model, opt, data, 20)  # warm-up
    times = {"off": [], "fix": []}
    cpu = {"off": [], "fix": []}
    steps = {"off": [], "fix": []}  # every single step's wall time
    for _ in range(args.rounds):
        for mode in ("off", "fix"):
            if mode == "fix":
                runtime_guard.install(mode="fix", device="cpu")
            wall, thread = run(model, opt, data, args.steps, per_step=steps[mode])
            times[mode].append(wall)
            cpu[mode].append(thread)
            runtime_guard.uninstall()
    off = statistics.median(times["off"])
    on = statistics.median(times["fix"])
    print(f"device: cpu ({torch.get_num_threads()} thread), torch {torch.__version__}")
    print(f"{'mode':6} {'median step':>12} {'min step':>10} {'median cpu':>11} {'min cpu':>9}")
    for mode in ("off", "fix"):
        print(f"{mode:6} {statistics.median(times[mode]) * 1e6:10.1f}us "
              f"{min(times[mode]) * 1e6:8.1f}us {statistics.median(cpu[mode]) * 1e6:9.1f}us "
              f"{min(cpu[mode]) * 1e6:7.1f}us")
    print(f"overhead: {(on / off - 1) * 100:+.2f}% (median), "
          f"{(min(times['fix']) / min(times['off']) - 1) * 100:+.2f}% (min)")
    cpu_off, cpu_on = statistics.median(cpu["off"]), statistics.median(cpu["fix"])
    print(f"cpu-time overhead: {(cpu_on / cpu_off - 1) * 100:+.2f}% (median), "
          f"{(min(cpu['fix']) / min(cpu['off']) - 1) * 100:+.2f}% (min)")
    tiny_off, tiny_fix = added_cost()
    added = tiny_fix - tiny_off
    print(f"guard's added cost per step (tiny step, best of 40): {added * 1e6:+.1f}us "
          f"(tiny step {tiny_off * 1e6:.1f}us -> {tiny_fix * 1e6:.1f}us) = "
          f"{added / off * 100:+.2f}% of this loop's median step")
    # A loaded machine preempts some steps; the median single step is the steady-state cost.
    one_off, one_on = statistics.median(steps["off"]), statistics.median(steps["fix"])
    print(f"median single step: off {one_off * 1e6:.1f}us, fix {one_on * 1e6:.1f}us; "
          f"single-step overhead: {(one_on / one_off - 1) * 100:+.2f}%")
    return on / off - 1


if __name__ == "__main__":
    main()
