"""The guard's overhead on two small CPU training steps: a tiny MLP and a small conv net.

Each step is what a clean script does (in-memory DataLoader batch, forward, loss, backward,
optimizer step, a ``.item()`` every 50 steps for logging) and needs no fix, so any difference is
the guard's cost. Guard off and on alternate block by block in one process (interleaved, so drift
of a shared machine hits both alike); each block's per-step time is taken both in wall-clock time
and in the main thread's CPU time (``time.thread_time``: torch runs on one thread here, and on a
machine shared with other work it is the number to read). The medians over the blocks of each
mode are compared (and, as a check on a loaded machine, the fastest block of each). Budgets
(issue 22): at most +5 % on the tiny MLP step, +3 % on the conv step.

    nice python benchmarks/runtime_step_overhead.py [--blocks 30] [--steps 100]
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


def tiny_mlp():
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    data = TensorDataset(torch.randn(2048, 32), torch.randint(0, 10, (2048,)))
    return model, data, 32


def small_conv():
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                          nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    data = TensorDataset(torch.randn(1024, 3, 32, 32), torch.randint(0, 10, (1024,)))
    return model, data, 16


CASES = {"tiny MLP": (tiny_mlp, 5.0), "small conv": (small_conv, 3.0)}


def block(model, opt, loader, steps):
    """Per-step (wall, cpu) seconds of ``steps`` clean steps (a new pass over the loader, as at
    the start of an epoch)."""
    done = 0
    wall, cpu = time.perf_counter(), time.thread_time()
    while done < steps:
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if done % 50 == 0:
                loss.item()
            done += 1
            if done == steps:
                break
    return (time.perf_counter() - wall) / steps, (time.thread_time() - cpu) / steps


def measure(build, blocks, steps):
    torch.manual_seed(0)
    model, data, batch = build()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    # One loader per mode, built as a script builds it (once, under the guard or not): its
    # construction is not part of a step.
    loaders = {"off": DataLoader(data, batch_size=batch, shuffle=True)}
    runtime_guard.install(mode="fix", device="cpu")
    loaders["fix"] = DataLoader(data, batch_size=batch, shuffle=True)
    runtime_guard.uninstall()
    block(model, opt, loaders["off"], steps)  # warm-up
    times = {"off": [], "fix": []}
    for i in range(blocks):
        # Alternate which mode goes first, so neither always follows the other.
        for mode in (("off", "fix") if i % 2 == 0 else ("fix", "off")):
            if mode == "fix":
                runtime_guard.install(mode="fix", device="cpu")
            times[mode].append(block(model, opt, loaders[mode], steps))
            runtime_guard.uninstall()
    return times


def per_call(n=20000, repeats=7):
    """What the guard adds to each call it wraps on a clean float32 step, in CPU time: the best of
    ``repeats`` loops of ``n`` calls each (a shared machine slows some loops, never speeds one up),
    guard off vs on. Returns {call: (off, fix)} seconds."""
    def best(fn, calls):
        fastest = float("inf")
        for _ in range(repeats):
            start = time.thread_time()
            for _ in range(calls):
                fn()
            fastest = min(fastest, (time.thread_time() - start) / calls)
        return fastest

    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    x = torch.ones(1, 2)
    out = model(x).sum()
    calls = {"optimizer.step()": (lambda: opt.step(), n),
             "loss.backward()": (lambda: out.backward(retain_graph=True), n // 4),
             ".item()": (lambda: x[0, 0].item(), n)}
    result = {}
    for mode in ("off", "fix"):
        if mode == "fix":
            runtime_guard.install(mode="fix", device="cpu")
        for name, (fn, count) in calls.items():
            result.setdefault(name, []).append(best(fn, count))
        runtime_guard.uninstall()
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=30)
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    print(f"device: cpu (1 thread), torch {torch.__version__}, {args.blocks} interleaved blocks "
          f"of {args.steps} steps per mode")
    print(f"{'case':11} {'off cpu':>9} {'fix cpu':>9} {'cpu':>8} {'off wall':>9} {'fix wall':>9} "
          f"{'wall':>8} {'min cpu':>8} {'budget':>7}")
    results = {}
    for name, (build, budget) in CASES.items():
        times = measure(build, args.blocks, args.steps)
        med = {m: (statistics.median(t[0] for t in times[m]),
                   statistics.median(t[1] for t in times[m])) for m in times}
        cpu = (med["fix"][1] / med["off"][1] - 1) * 100
        wall = (med["fix"][0] / med["off"][0] - 1) * 100
        # The fastest block of each mode: what the step costs when nothing else interferes.
        fastest = (min(t[1] for t in times["fix"]) / min(t[1] for t in times["off"]) - 1) * 100
        results[name] = cpu
        print(f"{name:11} {med['off'][1] * 1e6:7.1f}us {med['fix'][1] * 1e6:7.1f}us {cpu:+7.2f}% "
              f"{med['off'][0] * 1e6:7.1f}us {med['fix'][0] * 1e6:7.1f}us {wall:+7.2f}% "
              f"{fastest:+7.2f}% {budget:+6.1f}%")
    print("added per call (best of 7 loops, cpu time):")
    for name, (off, fix) in per_call().items():
        print(f"  {name:17} {off * 1e6:7.2f}us -> {fix * 1e6:7.2f}us  {(fix - off) * 1e6:+6.2f}us")
    return results


if __name__ == "__main__":
    main()
