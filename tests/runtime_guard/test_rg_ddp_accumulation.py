"""TPL207 at run time: gradient all-reduces per optimizer step of a DDP model, under a real
2-process torchrun (gloo on CPU). The script also counts DDP's own all-reduces with a comm hook:
the guard's numbers must equal them."""
import os

import torch

from _rg_helpers import SCRIPTS, run_torchrun

SCRIPT = os.path.join(SCRIPTS, "ddp_accumulation_train.py")


def _run(tmp_path, **env):
    """Run the script; a torch shutdown abort after both ranks wrote their results is not ours."""
    for attempt in range(2):
        try:
            run_torchrun(SCRIPT, OUT_DIR=tmp_path, **env)
            break
        except AssertionError:
            if all(os.path.exists(os.path.join(tmp_path, f"rank{r}.pt")) for r in (0, 1)):
                break
            if attempt:
                raise
    return [torch.load(os.path.join(tmp_path, f"rank{r}.pt"), weights_only=False) for r in (0, 1)]


FP32_FORWARD = "loss = nn.functional.mse_loss(model(x), y) / ACCUM"


def _line_of(text):
    with open(SCRIPT) as f:
        lines = [i for i, line in enumerate(f, 1) if line.strip() == text]
    assert len(lines) == 1, lines
    return lines[0]


def test_a_backward_through_the_wrapped_module_is_no_all_reduce():
    """One rank in this machine's own process group: each step runs one backward through the
    DDP model and one through ``model.module`` (a regulariser, say), which DDP does not reduce.
    The guard counts what DDP's own comm hook counts: one all-reduce a step, nothing to report."""
    from _rg_helpers import run_python

    proc = run_python("""
        import runtime_guard, torch
        import torch.distributed as dist
        from torch import nn
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        from torch.nn.parallel import DistributedDataParallel as DDP

        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        torch.manual_seed(0)
        model = DDP(nn.Linear(4, 1))
        reduced = [0]

        def hook(state, bucket):
            reduced[-1] += 1
            return default_hooks.allreduce_hook(state, bucket)

        model.register_comm_hook(None, hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            model(torch.randn(2, 4)).sum().backward()
            model.module(torch.randn(2, 4)).pow(2).sum().backward()
            opt.step()
            opt.zero_grad()
            reduced.append(0)
        fix = runtime_guard.GUARD.fix("ddp_accumulation")
        print("guard", list(fix.all_reduces_per_step().values()))
        print("ddp", reduced[:-1])
        print("events", [e.code for e in runtime_guard.report() if e.code == "TPL207"])
        dist.destroy_process_group()
    """)
    lines = proc.stdout.splitlines()
    assert lines == ["guard [[1, 1, 1]]", "ddp [1, 1, 1]", "events []"], proc.stdout


def test_accumulation_without_no_sync_is_reported(tmp_path):
    ranks = _run(tmp_path, ACCUM=4, STEPS=3)
    for r in ranks:
        assert r["comm_hook_per_step"] == [4, 4, 4]  # DDP really all-reduced on every backward
        (location, counts), = r["per_step"].items()
        assert counts == [4, 4, 4]
        # The first training forward, not the no_grad evaluation forward before it.
        assert location.endswith(f"ddp_accumulation_train.py:{_line_of(FP32_FORWARD)}")
        events = [e for e in r["events"] if e[0] == "TPL207"]
        assert len(events) == 1
        code, action, where, count, detail = events[0]
        assert (action, where, count) == ("observed", location, 9)  # 12 all-reduces, 3 needed
        assert detail == ("gradient accumulation on DistributedDataParallel: 12 gradient "
                          "all-reduces over 3 optimizer steps (4 per step, at most 4); only the "
                          "last before each step is needed: run the other forward and backward "
                          "passes under `with model.no_sync():` to skip 9 full gradient exchanges")
    for a, b in zip(ranks[0]["params"], ranks[1]["params"]):
        assert torch.equal(a, b)


def test_accumulation_under_no_sync_is_not_reported(tmp_path):
    ranks = _run(tmp_path, ACCUM=4, STEPS=3, NO_SYNC=1)
    for r in ranks:
        assert r["comm_hook_per_step"] == [1, 1, 1]
        assert list(r["per_step"].values()) == [[1, 1, 1]]
        assert not [e for e in r["events"] if e[0] == "TPL207"]


def _fp32_reference(accum, steps):
    """What DDP computes, in one process and float32 (no scaling needed there): each step averages
    over the two ranks the gradients summed over the micro-batches, as the script's data give them."""
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    start = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=1e6)
    data = []
    for rank in (0, 1):
        g = torch.Generator().manual_seed(rank)
        data.append([(torch.randn(4, 8, generator=g), torch.randn(4, 1, generator=g))
                     for _ in range(accum * steps)])
    for step in range(steps):
        opt.zero_grad()
        for i in range(step * accum, (step + 1) * accum):
            for rank in (0, 1):
                x, y = data[rank][i]
                (nn.functional.mse_loss(model(x), y) * 1e-8 / accum / 2).backward()
        opt.step()
    return start, [p.detach().clone() for p in model.parameters()]


def test_float16_accumulation_under_no_sync_trains_like_float32(tmp_path):
    """A DDP script's float16 steps without a GradScaler, two micro-batches a step, the first under
    no_sync (its gradients stay local and join the all-reduce of the second): the guard's loss
    scaling leaves every step with the true averaged gradient. Without scaling every float16
    gradient of a 1e-8 loss underflows and nothing trains."""
    ranks = _run(tmp_path, ACCUM=2, STEPS=3, NO_SYNC=1, FP16=1)
    start, reference = _fp32_reference(2, 3)
    for got, other in zip(ranks[0]["params"], ranks[1]["params"]):
        assert torch.equal(got, other)
    for got, ref, s in zip(ranks[0]["params"], reference, start):
        moved = (ref - s).norm()
        assert moved > 1e-3
        assert (got - ref).norm() <= 0.02 * moved, (got, ref)
    fixed = [e for e in ranks[0]["events"] if e[0] == "TPL301" and e[1] == "fixed"]
    assert fixed and "loss scaled for backward" in fixed[0][4]
