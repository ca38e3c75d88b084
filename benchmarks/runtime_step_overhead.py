"""The guard's overhead on two small CPU training steps: a tiny MLP and a small conv net.

Each step is what a clean script does (in-memory DataLoader batch, forward, loss, backward,
optimizer step, a ``.item()`` every 50 steps for logging) and needs no fix, so any difference is
the guard's cost. Budgets (issue 22): at most +5 % on the tiny MLP step, +3 % on the conv step.

How it is measured, so that a shared machine (here 2 cores, up to eight agents' jobs) cannot
decide the result:

- every measurement runs in a fresh process of the same type: the same script imports torch and
  ``runtime_guard`` with ``RUNTIME_GUARD=off`` or ``RUNTIME_GUARD=fix`` (installed at import, as a
  user's script gets it), and builds its model and loader after that, as a script does;
- one torch thread (``torch.set_num_threads(1)``), and the per-step cost in the process's CPU time
  (``time.process_time``: what this process computed, not what other jobs took from it) next to
  wall-clock time;
- in each process, blocks of steps (each block starts a new pass over the loader and has one
  ``.item()``); the process's number is its median block (and, as a check, its fastest block);
- ``--pairs`` interleaved pairs of processes, guard off and on one right after the other (the
  order alternates); the result is the median over pairs of the per-pair ratio on/off, with a
  distribution-free 95 % interval of that median and the machine's load average printed;
- ``--baseline DIR``: a third process per round runs the guard from another source tree (e.g.
  ``git worktree add /tmp/base <commit>``), so before and after are measured in the same run.
- ``--allocator``: each process also counts its minor page faults per step. glibc's malloc hands
  the conv step's large blocks back to the kernel and takes them anew depending on where
  long-lived objects happened to land in that process (20 to 970 faults per conv step measured
  here, 0.3-1.3 ms of a ~4.6 ms step, with the same spread guard off and on), which makes single
  rounds differ by -16 % .. +23 %. ``fixed`` runs every arm alike with malloc's thresholds pinned
  (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``), which removes that luck from the
  comparison; ``default`` is malloc as a user's run gets it; ``both`` (the default) runs the two
  in each round and reports them side by side;
- ``--skip LIST``: the guarded arms run with ``RUNTIME_GUARD_SKIP=LIST`` (which fix costs what).

It also prints what the guard adds to each call it wraps on a clean step (fastest of 7 loops of
many calls per mode, CPU time), for the current tree and the baseline; and with
``--instructions``, the instructions per step counted by valgrind's callgrind in fresh processes
(the measured steps only, start-up excluded): work that the machine's load cannot change, where a
loaded machine's timings spread by several percent from process to process.

    nice python benchmarks/runtime_step_overhead.py [--pairs 20] [--baseline DIR] [--instructions]
        [--allocator both|default|fixed] [--skip FIXES] [--save rounds.json]          (--pairs 0 --instructions: instruction counts only)
"""

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETS = {"tiny MLP": 5.0, "small conv": 3.0}
# (blocks, steps per block) per case in each process: the conv step costs ~20x the MLP step.
SIZES = {"tiny MLP": (15, 50), "small conv": (8, 25)}


# -- in a child process ---------------------------------------------------------------------------
def _import(root, mode, skip=None):
    """torch and runtime_guard from ``root``, the guard installed at import iff mode is fix
    (without the fixes named in ``skip``, a comma list as ``RUNTIME_GUARD_SKIP`` takes)."""
    for key in [k for k in os.environ if k.startswith("RUNTIME_GUARD")]:
        del os.environ[key]
    os.environ["RUNTIME_GUARD"] = "fix" if mode == "fix" else "off"
    if skip:
        os.environ["RUNTIME_GUARD_SKIP"] = skip
    os.environ["RUNTIME_GUARD_DEVICE"] = "cpu"
    sys.path.insert(0, root)
    import torch

    torch.set_num_threads(1)
    import runtime_guard

    here = os.path.dirname(os.path.abspath(runtime_guard.__file__))
    assert here == os.path.join(os.path.abspath(root), "runtime_guard"), here
    assert runtime_guard.core.GUARD.installed == (mode == "fix")
    return torch, runtime_guard


def tiny_mlp(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    data = torch.utils.data.TensorDataset(torch.randn(2048, 32), torch.randint(0, 10, (2048,)))
    return model, data, 32


def small_conv(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                          nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    data = torch.utils.data.TensorDataset(torch.randn(1024, 3, 32, 32),
                                          torch.randint(0, 10, (1024,)))
    return model, data, 16


CASES = {"tiny MLP": tiny_mlp, "small conv": small_conv}


def block(torch, model, opt, loader, steps):
    """Per step of ``steps`` clean steps (a new pass over the loader, as at the start of an
    epoch): wall seconds, process CPU seconds, the system's share of that CPU time, and minor page
    faults."""
    cross_entropy = torch.nn.functional.cross_entropy
    done = 0
    before = resource.getrusage(resource.RUSAGE_SELF)
    wall, cpu = time.perf_counter(), time.process_time()
    while done < steps:
        for x, y in loader:
            loss = cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if done % 50 == 0:
                loss.item()
            done += 1
            if done == steps:
                break
    wall, cpu = (time.perf_counter() - wall) / steps, (time.process_time() - cpu) / steps
    after = resource.getrusage(resource.RUSAGE_SELF)
    return wall, cpu, (after.ru_stime - before.ru_stime) / steps, \
        (after.ru_minflt - before.ru_minflt) / steps


def child_steps(root, mode, skip=None):
    torch, _ = _import(root, mode, skip)
    result = {}
    for name, build in CASES.items():
        blocks, steps = SIZES[name]
        torch.manual_seed(0)
        model, data, batch = build(torch)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loader = torch.utils.data.DataLoader(data, batch_size=batch, shuffle=True)
        block(torch, model, opt, loader, steps)  # warm-up
        times = [block(torch, model, opt, loader, steps) for _ in range(blocks)]
        result[name] = {"wall": statistics.median(t[0] for t in times),
                        "cpu": statistics.median(t[1] for t in times),
                        "cpu_min": min(t[1] for t in times),
                        "sys": statistics.median(t[2] for t in times),
                        "page_faults": statistics.median(t[3] for t in times),
                        "cpu_blocks": [t[1] for t in times]}
    return result


def child_instructions(root, mode, case, steps):
    """Run ``steps`` steps of ``case`` inside a ctypes call (the C library's ``bsearch`` calling
    back into Python), so that valgrind's callgrind, told ``--collect-atstart=no
    --toggle-collect=ffi_call --dump-after=ffi_call``, counts the instructions of exactly those
    steps in one dump of their own and nothing of the start-up (importing torch alone is ~10^10
    instructions and varies by ~10^7 from run to run; the ctypes calls torch makes while importing
    land in small dumps of their own)."""
    import ctypes

    torch, _ = _import(root, mode)
    torch.manual_seed(0)
    model, data, batch = CASES[case](torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = torch.utils.data.DataLoader(data, batch_size=batch, shuffle=True)
    block(torch, model, opt, loader, 5)  # warm-up, not counted

    def measured(_a, _b):
        block(torch, model, opt, loader, steps)
        return 0

    compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(measured)
    libc = ctypes.CDLL(None)
    libc.bsearch.restype = ctypes.c_void_p
    key, items = ctypes.c_int(0), (ctypes.c_int * 1)(0)
    libc.bsearch(ctypes.byref(key), items, 1, ctypes.sizeof(ctypes.c_int), compare)


def child_per_call(root, n=20000, repeats=7):
    """What the guard adds to each call it wraps on a clean float32 step, in CPU time: for each
    call the fastest of ``repeats`` loops of ``n`` calls per mode (a shared machine slows some
    loops, never speeds one up), guard off and on alternating round by round in this one process
    (so that neither always runs first). Returns {call: [off, fix]} seconds."""
    torch, runtime_guard = _import(root, "off")
    nn = torch.nn

    def loop(fn, calls):
        start = time.process_time()
        for _ in range(calls):
            fn()
        return (time.process_time() - start) / calls

    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    x = torch.ones(1, 2)
    out = model(x).sum()
    norm = nn.BatchNorm1d(2)
    pair = torch.ones(2, 2)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x), batch_size=1)

    def autocast():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pass

    calls = {"optimizer.step()": (lambda: opt.step(), n),
             "loss.backward()": (lambda: out.backward(retain_graph=True), n // 4),
             ".item()": (lambda: x[0, 0].item(), n),
             "BatchNorm forward": (lambda: norm(pair), n // 4),
             "autocast enter+exit": (autocast, n // 4),
             "iter(loader)": (lambda: iter(loader), n // 10)}
    fastest = {name: {"off": float("inf"), "fix": float("inf")} for name in calls}
    for round_ in range(repeats):
        for mode in (("off", "fix") if round_ % 2 == 0 else ("fix", "off")):
            if mode == "fix":
                runtime_guard.install(mode="fix", device="cpu")
            for name, (fn, count) in calls.items():
                fastest[name][mode] = min(fastest[name][mode], loop(fn, count))
            runtime_guard.uninstall()
    return {name: [best["off"], best["fix"]] for name, best in fastest.items()}


# -- in the parent --------------------------------------------------------------------------------
# glibc's malloc gives large blocks (a conv batch, 196 KB, is over its 128 KB mmap threshold) to
# the kernel and back as its heap's top moves, so how often a step page-faults its tensors in anew
# is decided by where long-lived objects happened to land in that process: measured here, 20 to 730
# faults per conv step, 0.3-1.3 ms of a 4.6 ms step, for the same code in either mode (the guard
# off and on give the same spread). "fixed" pins both thresholds for every arm alike, which takes
# that process-to-process luck out of the comparison; "default" is malloc as a user's run gets it.
ALLOCATORS = {"default": {},
              "fixed": {"MALLOC_MMAP_THRESHOLD_": str(64 << 20),
                        "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}}


def _run_child(kind, root, mode, allocator="default", skip=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--root", root,
           "--mode", mode] + (["--skip", skip] if skip else [])
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RUNTIME_GUARD") and not k.startswith("MALLOC_")}
    env.update(ALLOCATORS[allocator])
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root)
    if proc.returncode != 0:
        raise SystemExit(f"child {cmd} failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


INSTRUCTION_STEPS = {"tiny MLP": 100, "small conv": 10}


def _instructions_per_step(root, mode, case, out_dir):
    """Instructions per step of ``case`` counted by valgrind's callgrind in a fresh process."""
    steps = INSTRUCTION_STEPS[case]
    out = os.path.join(out_dir, f"callgrind.{mode}.{abs(hash((root, case)))}.out")
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=ffi_call",
           "--dump-after=ffi_call", f"--callgrind-out-file={out}", sys.executable,
           os.path.abspath(__file__), "--child", "instructions", "--root", root, "--mode", mode,
           "--case", case, "--steps", str(steps)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNTIME_GUARD")}
    env["PYTHONHASHSEED"] = "0"
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed:\n{proc.stderr[-3000:]}")
    totals = []
    for name in os.listdir(out_dir):
        if name.startswith(os.path.basename(out)):
            with open(os.path.join(out_dir, name)) as fh:
                totals += [int(line.split()[1]) for line in fh if line.startswith("totals:")]
    if not totals:
        raise SystemExit(f"no instruction total in {out}*")
    return max(totals) / steps  # the dump of the measured steps; the others are torch's


def instructions(runs):
    """Per-step instruction counts, guard off and on (and before), each in a fresh process under
    callgrind: a measure the machine's load cannot move (it counts work, not time; it weighs a
    cache miss like any instruction, so it is the guard's added work, next to the timings)."""
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    with tempfile.TemporaryDirectory() as out_dir, ThreadPoolExecutor(2) as pool:
        jobs = {(label, case): pool.submit(_instructions_per_step, root, mode, case, out_dir)
                for case in CASES for label, root, mode in runs}
        counts = {key: job.result() for key, job in jobs.items()}
    print("instructions per step (valgrind callgrind, fresh process each; "
          + ", ".join(f"{c}: {n} steps" for c, n in INSTRUCTION_STEPS.items()) + "):")
    for case in CASES:
        off = counts[("off", case)]
        cells = [f"off {off / 1e6:8.3f}M"]
        for label, _, _ in runs[1:]:
            on = counts[(label, case)]
            cells.append(f"{label} {on / 1e6:8.3f}M ({(on / off - 1) * 100:+.2f}%, "
                         f"{(on - off) / 1e3:+.1f}k)")
        print(f"  {case:11} " + "   ".join(cells) + f"   budget {BUDGETS[case]:+.1f}%")
    return counts


def median_interval(values):
    """A distribution-free ~95 % interval of the median (order statistics of the binomial): the
    k-th smallest and k-th largest value, k the largest with P(Binomial(n, 1/2) < k) <= 2.5 %."""
    xs = sorted(values)
    n = len(xs)
    k, below = 0, 0.0
    while k < n:
        below_next = below + math.comb(n, k) / 2 ** n
        if below_next > 0.025:
            break
        below, k = below_next, k + 1
    if k == 0:
        return xs[0], xs[-1]  # too few pairs for 95 %: the full range
    return xs[k - 1], xs[n - k]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20, help="interleaved rounds of processes")
    ap.add_argument("--baseline", help="another source tree whose guard runs as 'before'")
    ap.add_argument("--no-per-call", action="store_true")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions per step under valgrind (slow: minutes)")
    ap.add_argument("--save", help="write every round's numbers to this JSON file")
    ap.add_argument("--allocator", choices=("both", *ALLOCATORS), default="both",
                    help="malloc as a user's run gets it, with its thresholds pinned for every "
                         "arm alike, or both in each round (default)")
    ap.add_argument("--skip", help="RUNTIME_GUARD_SKIP for the guarded arms: time the guard "
                                   "without these fixes (to find which one costs)")
    ap.add_argument("--child", choices=("steps", "per-call", "instructions"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="off", help=argparse.SUPPRESS)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child == "steps":
        print(json.dumps(child_steps(args.root, args.mode, args.skip)))
        return None
    if args.child == "per-call":
        print(json.dumps(child_per_call(args.root)))
        return None
    if args.child == "instructions":
        child_instructions(args.root, args.mode, args.case, args.steps)
        return None

    results = None
    runs = [("off", ROOT, "off"), ("fix", ROOT, "fix")]
    if args.baseline:
        runs.append(("before", os.path.abspath(args.baseline), "fix"))
    import torch  # only for the heading

    print(f"cpu: {os.cpu_count()} cores, torch {torch.__version__} (1 thread), python "
          f"{sys.version.split()[0]}; {args.pairs} rounds of fresh processes "
          f"({', '.join(r[0] for r in runs)}; order rotated each round); per process "
          + "; ".join(f"{n}: {b} blocks x {s} steps" for n, (b, s) in SIZES.items()))
    if args.baseline:
        print(f"before = the guard from {args.baseline}")
    if args.pairs:
        results = timings(args, runs)
    if args.instructions:
        print()
        instructions(runs)
    return results


def timings(args, runs):
    allocators = list(ALLOCATORS) if args.allocator == "both" else [args.allocator]
    arms = [(alloc, label, root, mode) for alloc in allocators for label, root, mode in runs]
    loads = []
    samples = []  # per round: {allocator: {label: {case: {"cpu":, "wall":, ...}}}}
    started = time.time()
    if args.skip:
        print(f"guarded arms run with RUNTIME_GUARD_SKIP={args.skip}")
    for i in range(args.pairs):
        shift = i % len(arms)
        order = arms[shift:] + arms[:shift]
        if i % 2:
            order = order[::-1]
        got = {alloc: {} for alloc in allocators}
        for alloc, label, root, mode in order:
            loads.append(os.getloadavg()[0])
            got[alloc][label] = _run_child("steps", root, mode, alloc,
                                           args.skip if mode == "fix" else None)
        samples.append(got)
        line = "  ".join(
            f"{alloc[:3]} {case}: " + " ".join(
                f"{label} {(got[alloc][label][case]['cpu'] / got[alloc]['off'][case]['cpu'] - 1) * 100:+.1f}%"
                for label, _, _ in runs[1:]) for alloc in allocators for case in CASES)
        print(f"round {i + 1:2}/{args.pairs} load {loads[-1]:4.1f}  {line}", flush=True)
    if args.save:
        with open(args.save, "w") as fh:
            json.dump({"runs": runs, "allocators": allocators, "skip": args.skip,
                       "loads": loads, "rounds": samples}, fh)
    print(f"load average (1 min) during the run: min {min(loads):.1f}, median "
          f"{statistics.median(loads):.1f}, max {max(loads):.1f}; "
          f"{(time.time() - started) / 60:.1f} min")
    print()
    print(f"{'malloc':7} {'case':11} {'guard':7} {'off cpu':>9} {'on cpu':>9} {'median ratio':>12} "
          f"{'95% interval':>17} {'wall ratio':>10} {'fastest':>8} {'faults off/on':>14} "
          f"{'budget':>7}  verdict")
    results = {}
    for alloc in allocators:
        rounds = [s[alloc] for s in samples]
        for case in CASES:
            for label, _, _ in runs[1:]:
                cpu = [(r[label][case]["cpu"] / r["off"][case]["cpu"] - 1) * 100 for r in rounds]
                wall = [(r[label][case]["wall"] / r["off"][case]["wall"] - 1) * 100
                        for r in rounds]
                # Each process's fastest block: its step with the least interference from others.
                fastest = [(r[label][case]["cpu_min"] / r["off"][case]["cpu_min"] - 1) * 100
                           for r in rounds]
                low, high = median_interval(cpu)
                med = statistics.median(cpu)
                budget = BUDGETS[case]
                verdict = ("met" if high <= budget else
                           "met (median), interval reaches the budget" if med <= budget
                           else "NOT met")
                results[(alloc, case, label)] = med
                off = statistics.median(r["off"][case]["cpu"] for r in rounds)
                on = statistics.median(r[label][case]["cpu"] for r in rounds)
                faults = "/".join(f"{statistics.median(r[arm][case]['page_faults'] for r in rounds):.0f}"
                                  for arm in ("off", label))
                print(f"{alloc:7} {case:11} {label:7} {off * 1e6:7.1f}us {on * 1e6:7.1f}us "
                      f"{med:+11.2f}% [{low:+6.2f}%, {high:+6.2f}%] "
                      f"{statistics.median(wall):+9.2f}% {statistics.median(fastest):+7.2f}% "
                      f"{faults:>14} {budget:+6.1f}%  {verdict}")
    if not args.no_per_call:
        print()
        print("added per wrapped call (fastest of 7 loops per mode, off and on alternating; "
              "process cpu time):")
        per_call = {label: _run_child("per-call", root, "off") for label, root, _ in runs[1:]}
        for name in per_call["fix"]:
            cells = []
            for label in per_call:
                off, fix = per_call[label][name]
                cells.append(f"{label}: {off * 1e6:6.2f}us -> {fix * 1e6:6.2f}us "
                             f"({(fix - off) * 1e6:+5.2f}us)")
            print(f"  {name:20} " + "   ".join(cells))
    return results


if __name__ == "__main__":
    main()
