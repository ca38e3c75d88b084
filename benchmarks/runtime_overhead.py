"""Step-time overhead of the runtime guard on a small CPU training loop.

The loop is what a clean script does each step (loader batch, forward, loss, backward, optimizer
step, an occasional .item() for logging) and needs no fix, so any difference is the guard's cost.
Guard off and on alternate in one process, several rounds, to cancel drift; the median per-step
time of each is compared.

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


def run(model, opt, data, steps, log_every=50):
    loader = DataLoader(data, batch_size=64, shuffle=True)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if done % log_every == 0:
                loss.item()
            done += 1
            if done == steps:
                break
    return (time.perf_counter() - start) / steps


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
    for _ in range(args.rounds):
        for mode in ("off", "fix"):
            if mode == "fix":
                runtime_guard.install(mode="fix", device="cpu")
            times[mode].append(run(model, opt, data, args.steps))
            runtime_guard.uninstall()
    off = statistics.median(times["off"])
    on = statistics.median(times["fix"])
    print(f"device: cpu ({torch.get_num_threads()} thread), torch {torch.__version__}")
    print(f"{'mode':6} {'median step':>12} {'min step':>10}")
    for mode in ("off", "fix"):
        print(f"{mode:6} {statistics.median(times[mode]) * 1e6:10.1f}us "
              f"{min(times[mode]) * 1e6:8.1f}us")
    print(f"overhead: {(on / off - 1) * 100:+.2f}% (median), "
          f"{(min(times['fix']) / min(times['off']) - 1) * 100:+.2f}% (min)")
    return on / off - 1


if __name__ == "__main__":
    main()
