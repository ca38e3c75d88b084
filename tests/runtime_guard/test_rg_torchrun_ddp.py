"""Real 2-process torchrun runs (gloo on CPU): a DataParallel script becomes DDP."""
import os

import torch
from torch import nn

from _rg_helpers import SCRIPTS, run_python, run_torchrun


def _load(out, rank):
    return torch.load(os.path.join(out, f"rank{rank}.pt"), weights_only=False)


def test_dataparallel_script_becomes_ddp(tmp_path):
    proc = run_torchrun(os.path.join(SCRIPTS, "dp_train.py"), OUT_DIR=tmp_path)
    r0, r1 = _load(tmp_path, 0), _load(tmp_path, 1)
    for r in (r0, r1):
        assert r["type"] == "DataParallelDDP"
        assert r["is_ddp"] and r["is_dp"]  # a DDP that still passes isinstance(m, DataParallel)
        codes = {(c, a) for c, a, _, _ in r["events"]}
        assert ("TPL201", "fixed") in codes
        assert ("TPL204", "fixed") in codes
        # The DataParallel call site of the script, not a torch or guard frame.
        locs = [loc for c, _, loc, d in r["events"] if c == "TPL201" and "Distributed" in d]
        assert locs and locs[0].endswith("dp_train.py:33")
    # Replicas started from different seeds on purpose: DDP broadcast + gradient sync make them equal.
    for a, b in zip(r0["params"], r1["params"]):
        assert torch.equal(a, b)
    # Data sharded: each epoch the two ranks read disjoint halves covering the dataset.
    assert r0["train_len"] == 3
    for e0, e1 in zip(r0["seen"], r1["seen"]):
        assert len(e0) == len(e1) == 12
        assert sorted(e0 + e1) == list(range(24))
    # set_epoch: a new order every epoch.
    assert r0["seen"][0] != r0["seen"][1] != r0["seen"][2]
    # The evaluation loader (model.eval(), no_grad) is not sharded: metrics cover the whole set.
    assert r0["eval_seen"] == list(range(24))
    # Keys are DataParallel's: a checkpoint loads into a DataParallel and back.
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
    dp = nn.DataParallel(model)
    assert list(dp.state_dict().keys()) == r0["keys"]
    dp.load_state_dict(r0["state_dict"])
    assert "runtime_guard report (rank 0)" in proc.stderr


def test_prepare_under_torchrun(tmp_path):
    run_torchrun(os.path.join(SCRIPTS, "prepare_train.py"), OUT_DIR=tmp_path, RUNTIME_GUARD="off")
    r0, r1 = _load(tmp_path, 0), _load(tmp_path, 1)
    assert r0["type"] == r1["type"] == "GuardedDDP"  # a plain model: DDP, not a DataParallel
    assert r0["patched"] is False  # RUNTIME_GUARD=off: nothing patched at import
    # The invariant check prepare() registers before optimizer steps goes with the model.
    assert r0["hooks"] == r1["hooks"] == (1, 0)
    for a, b in zip(r0["params"], r1["params"]):
        assert torch.equal(a, b)
    for e0, e1 in zip(r0["seen"], r1["seen"]):
        assert sorted(e0 + e1) == list(range(16))
    assert r0["seen"][0] != r0["seen"][1]


def test_onecycle_sized_by_len_before_sharding_keeps_its_schedule(tmp_path):
    """OneCycleLR(steps_per_epoch=len(loader)) read after the conversion, before the first pass:
    sharding now would run 14 of the 27 planned steps per epoch and end the schedule early. The
    guard keeps the loader whole and says why; it claims nothing about matching hand-written DDP."""
    script = os.path.join(SCRIPTS, "onecycle_dp_train.py")
    run_torchrun(script, OUT_DIR=tmp_path)
    run_torchrun(script, OUT_DIR=tmp_path, TWIN="1")
    for rank in (0, 1):
        got = torch.load(os.path.join(tmp_path, f"rank{rank}.pt"), weights_only=False)
        twin = torch.load(os.path.join(tmp_path, f"rank{rank}-twin.pt"), weights_only=False)
        assert got["type"] == "DataParallelDDP"
        # The schedule runs to its end, as planned: every planned step is taken.
        assert got["planned"] == got["steps"] == 2 * 27
        assert twin["planned"] == twin["steps"] == 2 * 14  # the twin plans with the shard
        (left,) = [d for c, a, d in got["events"] if c == "TPL201" and a == "left alone"]
        assert left.startswith("loader not sharded: len(loader) = 27 was read at ")
        assert "onecycle_dp_train.py:36" in left and "would be 14" in left
        assert not [d for c, a, d in got["events"] if "sharded with DistributedSampler" in d]


def test_the_group_the_guard_started_is_torn_down_before_the_interpreter_exits():
    """``_destroy_group`` (registered at exit when the guard started the process group) leaves no
    group behind after a DDP step, and the process then exits cleanly: a gloo worker that still
    held a finished allreduce at finalization aborted ranks (see _rg_helpers._aborted_at_shutdown)."""
    proc = run_python("""
        import socket
        import torch, torch.distributed as dist
        from torch import nn
        from runtime_guard.fixes.ddp import _destroy_group
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
        model = nn.parallel.DistributedDataParallel(nn.Linear(3, 1))
        model(torch.ones(2, 3)).sum().backward()
        grad = model.module.weight.grad.clone()
        _destroy_group()
        print(dist.is_initialized(), grad.tolist())
    """, RUNTIME_GUARD="off")
    assert proc.stdout.strip() == "False [[2.0, 2.0, 2.0]]"
