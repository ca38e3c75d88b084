"""Each runtime fix measured three ways: without the guard, with it, and with the fix written by hand.

On CUDA (the point of it):
- creation: ``torch.randn(n, n).cuda()`` per step vs the guard's device-native creation vs
  ``torch.randn(n, n, device="cuda")``;
- host syncs: ``.item()`` every step vs on-device accumulation (the guard only reports syncs, so
  "guard" shows its counting cost);
- AMP: fp32 vs float16 autocast (the guard adds the loss scaling) vs a hand-written GradScaler, on
  a small conv net and a small transformer;
- DataParallel on one GPU vs the guard's replacement vs calling the module directly.
Without CUDA the same table runs on the CPU (target "cpu"; AMP in bfloat16, which CPU autocast
supports well; creation falls back to "meta" as the target): it checks the script, not speed.

    python benchmarks/runtime_gpu.py [--steps 50] [--size 1024] [--quick]
"""

import argparse
import os
import sys
import time

os.environ.setdefault("RUNTIME_GUARD", "off")  # installed per measurement below
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402
from torch import nn  # noqa: E402

import runtime_guard  # noqa: E402

CUDA = torch.cuda.is_available()
DEV = "cuda" if CUDA else "cpu"


def sync():
    if CUDA:
        torch.cuda.synchronize()


def timed(fn, steps):
    fn()  # warm-up (and, with the guard, learning)
    fn()
    sync()
    start = time.perf_counter()
    for _ in range(steps):
        fn()
    sync()
    return (time.perf_counter() - start) / steps


def with_guard(fn, steps, device, unsafe=None):
    runtime_guard.install(mode="fix", device=device, unsafe=unsafe)
    try:
        return timed(fn, steps)
    finally:
        runtime_guard.uninstall()


# -- creation ------------------------------------------------------------------------------------
def bench_creation(steps, size):
    target = DEV if CUDA else "meta"

    def cpu_then_device():
        return torch.randn(size, size).to(target)

    def native():
        return torch.randn(size, size, device=target)

    # randn on the device draws other numbers: the guard applies it only on the user's opt-in.
    return ("creation randn(n,n).to(dev)", timed(cpu_then_device, steps),
            with_guard(cpu_then_device, steps, target, unsafe=["random_on_device"]),
            timed(native, steps))


# -- host syncs ----------------------------------------------------------------------------------
def _train_parts(width):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1)).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(64, width, device=DEV)
    return model, opt, x


def bench_syncs(steps, width):
    model, opt, x = _train_parts(width)
    state = {"total": 0.0, "dev": torch.zeros((), device=DEV)}

    def step():
        loss = model(x).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    def item_each_step():
        state["total"] += step().item()

    def on_device():
        state["dev"] += step().detach()

    return ("sync .item() per step", timed(item_each_step, steps),
            with_guard(item_each_step, steps, DEV), timed(on_device, steps))


# -- AMP -----------------------------------------------------------------------------------------
def conv_net():
    return nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1),
                         nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def transformer():
    layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
    return nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Flatten(), nn.LazyLinear(10))


def amp_steps(make, inputs):
    """The training steps compared for AMP, on one model built by ``make``: fp32, float16 autocast
    without a scaler (the pitfall script; the guard adds the scaling), and a maker of the step with
    a hand-written GradScaler (its scaler is built by the caller, after any guarded measurement)."""
    amp_dtype = torch.float16 if CUDA else torch.bfloat16
    torch.manual_seed(0)
    model = make().to(DEV)
    x = inputs().to(DEV)
    y = torch.randint(0, 10, (x.shape[0],), device=DEV)
    model(x)  # materialise lazy layers
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def fp32():
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def amp_unscaled():  # what the pitfall script writes; the guard adds the scaling
        with torch.autocast(DEV, dtype=amp_dtype):
            loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def by_hand(scaler):
        def amp_by_hand():
            with torch.autocast(DEV, dtype=amp_dtype):
                loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return amp_by_hand

    return fp32, amp_unscaled, by_hand


def bench_amp(name, make, inputs, steps):
    fp32, amp_unscaled, by_hand = amp_steps(make, inputs)
    # The guard must not see the hand-written scaler before its own measurement: build order.
    row = (f"amp {name} (fp32 | guard amp | GradScaler)", timed(fp32, steps),
           with_guard(amp_unscaled, steps, DEV))
    scaler = torch.amp.GradScaler(DEV, enabled=CUDA)
    return row + (timed(by_hand(scaler), steps),)


# -- DataParallel --------------------------------------------------------------------------------
def bench_dataparallel(steps, width):
    model, opt, x = _train_parts(width)
    dp = nn.DataParallel(model)
    runtime_guard.install(mode="fix", device=DEV)
    try:
        replaced = nn.DataParallel(model)
    finally:
        runtime_guard.uninstall()

    def run(m):
        def step():
            loss = m(x).pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        return step

    return ("DataParallel, one device", timed(run(dp), steps), timed(run(replaced), steps),
            timed(run(model), steps))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--size", type=int, default=1024, help="side of the created matrices")
    ap.add_argument("--width", type=int, default=512, help="width of the MLP")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    args = ap.parse_args(argv)
    if args.quick:
        args.steps, args.size, args.width = 3, 64, 32
    name = torch.cuda.get_device_name() if CUDA else f"CPU ({torch.get_num_threads()} threads)"
    img = 32 if not args.quick else 8
    rows = [
        bench_creation(args.steps, args.size),
        bench_syncs(args.steps, args.width),
        bench_amp("conv net", conv_net, lambda: torch.randn(32, 3, img, img), args.steps),
        bench_amp("transformer", transformer, lambda: torch.randn(16, 32, 64), args.steps),
        bench_dataparallel(args.steps, args.width),
    ]
    print(f"device: {name}; torch {torch.__version__}; {args.steps} steps per measurement")
    print(f"{'case':48} {'no guard':>11} {'guard':>11} {'by hand':>11} {'guard speed-up':>15}")
    for case, off, on, hand in rows:
        print(f"{case:48} {off * 1e3:9.3f}ms {on * 1e3:9.3f}ms {hand * 1e3:9.3f}ms "
              f"{off / on:14.2f}x")
    return rows


if __name__ == "__main__":
    main()
