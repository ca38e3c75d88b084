"""Where the guard's float16 loss scaling spends its time, fix by fix (benchmarks/RUNTIME.md).

`runtime_gpu.py` compares the whole guard (every default fix installed) with a hand-written
GradScaler. This script splits that number: the same float16 step without a scaler is timed with
the guard limited to its ``amp`` fix, with every fix but ``amp``, with every fix but the sync
report, and with all of them; beside plain fp32, fp16 without any scaling (what the pitfall script
computes, unsafely) and the hand-written GradScaler. Rounds alternate the variants; the median of
the rounds is printed. Models: runtime_gpu.py's small conv net and small transformer (launch-bound:
the guard's per-step cost shows in full), and a larger transformer (d=512, 6 layers, 32x128 tokens)
whose step is dominated by the device's work, as a training run's is.

    python benchmarks/runtime_amp_parts.py [--steps 50] [--rounds 3] [--quick]
"""

import argparse
import os
import statistics
import sys

os.environ.setdefault("RUNTIME_GUARD", "off")  # installed per measurement below
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch import nn  # noqa: E402

import runtime_guard  # noqa: E402
from runtime_gpu import CUDA, DEV, amp_steps, conv_net, timed, transformer  # noqa: E402

# (label, install keyword arguments or None for no guard)
GUARDS = (
    ("guard, amp fix only", {"fixes": "amp"}),
    ("guard, all fixes", {}),
    ("guard, all but sync_report", {"skip": "sync_report"}),
    ("guard, all but amp", {"skip": "amp"}),
)


def large_transformer(width=512, layers=6):
    layer = nn.TransformerEncoderLayer(width, 8, 4 * width, batch_first=True)
    return nn.Sequential(nn.TransformerEncoder(layer, layers), nn.Flatten(), nn.LazyLinear(10))


def measure(name, make, inputs, steps, rounds):
    fp32, fp16_unscaled, by_hand = amp_steps(make, inputs)
    times = {}
    for _ in range(rounds):
        times.setdefault("fp32", []).append(timed(fp32, steps))
        times.setdefault("fp16, no scaling (unsafe)", []).append(timed(fp16_unscaled, steps))
        for label, kwargs in GUARDS:
            runtime_guard.install(mode="fix", device=DEV, **kwargs)
            try:
                times.setdefault(label, []).append(timed(fp16_unscaled, steps))
            finally:
                runtime_guard.uninstall()
        # A GradScaler made after the guard's measurements: the guard stands aside for good once
        # a script builds one, so it is built (and dropped) only here.
        scaler = torch.amp.GradScaler(DEV, enabled=CUDA)
        times.setdefault("hand-written GradScaler", []).append(timed(by_hand(scaler), steps))
    return name, {label: statistics.median(values) for label, values in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="tiny shapes, 3 steps: checks the script")
    args = ap.parse_args(argv)
    # --quick keeps the cases' names but shrinks every shape: it checks the script, not speed.
    img, seq, width, layers = (32, 128, 512, 6) if not args.quick else (8, 4, 64, 1)
    if args.quick:
        args.steps, args.rounds = 3, 1
    cases = [
        ("conv net", conv_net, lambda: torch.randn(32, 3, img, img)),
        ("transformer (small)", transformer, lambda: torch.randn(16, 32, 64)),
        ("transformer (d=512, 6 layers)", lambda: large_transformer(width, layers),
         lambda: torch.randn(32, seq, width)),
    ]
    results = [measure(name, make, inputs, args.steps, args.rounds) for name, make, inputs in cases]
    device = torch.cuda.get_device_name() if CUDA else f"CPU ({torch.get_num_threads()} threads)"
    print(f"device: {device}; torch {torch.__version__}; {args.steps} steps, median of "
          f"{args.rounds} rounds; ms per step (x the hand-written GradScaler)")
    labels = list(results[0][1])
    print(f"{'variant':30}" + "".join(f"{name:>32}" for name, _ in results))
    for label in labels:
        cells = []
        for _, times in results:
            hand = times["hand-written GradScaler"]
            cells.append(f"{times[label] * 1e3:9.3f} ms ({times[label] / hand:5.2f}x)")
        print(f"{label:30}" + "".join(f"{cell:>32}" for cell in cells))
    return results


if __name__ == "__main__":
    main()
