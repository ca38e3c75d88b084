"""DataParallel -> DDP under torchrun (2 CPU processes, gloo): the invariants that used to break.

Each test runs the script a user would write (tests/runtime_guard/scripts/dp_invariants_train.py)
and checks the numbers: every rank ends with the same model, equal to a single-process reference
that trains on both ranks' batches together (what DDP computes), and the checkpoints the script
saves load into the bare network in a process without the guard.
"""
import os

import torch
from torch import nn

from _rg_helpers import SCRIPTS, run_python, run_torchrun

SCRIPT = os.path.join(SCRIPTS, "dp_invariants_train.py")


def _data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(16, 4, generator=g)
    y = torch.randn(16, 1, generator=g)
    return x, y


def _run(tmp_path, case):
    proc = run_torchrun(SCRIPT, OUT_DIR=tmp_path, CASE=case)
    ranks = [torch.load(tmp_path / f"rank{r}.pt", weights_only=False) for r in (0, 1)]
    return proc, ranks


def _reference(model, steps0, steps1):
    """Single-process training on both ranks' batches at once: DDP's averaged gradient of two
    equal-sized halves is the full batch's gradient."""
    x, y = _data()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for i0, i1 in zip(steps0, steps1):
        idx = torch.tensor(i0 + i1)
        loss = nn.functional.mse_loss(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [p.detach() for p in model.parameters()]


def _assert_same(a, b, tol=1e-5):
    assert len(a) == len(b)
    for p, q in zip(a, b):
        assert torch.allclose(p, q, atol=tol, rtol=0), (p, q)


def _sharded(r0, r1):
    for i0, i1 in zip(r0["steps"], r1["steps"]):
        assert not set(i0) & set(i1)
    assert sorted(sum(r0["steps"][:2] + r1["steps"][:2], [])) == list(range(16))


def test_parameter_without_gradient_does_not_crash_and_ranks_agree(tmp_path):
    proc, (r0, r1) = _run(tmp_path, "unused")
    assert "finished reduction" not in proc.stderr
    _assert_same(r0["params"], r1["params"], tol=0)
    _sharded(r0, r1)
    # The reference starts from rank 0's model (DDP broadcasts it) and trains the full batches.
    from dp_invariants_helpers import two_heads
    model = two_heads(r0["start"])
    _assert_same(r0["params"], _reference(model, r0["steps"], r1["steps"]))
    details = [d for c, a, _, d in r0["events"] if c == "TPL201" and a == "fixed"]
    assert any("find_unused_parameters=True" in d for d in details), details


def test_parameter_without_gradient_and_no_optimizer_step(tmp_path):
    # Nothing to check before a step: DDP raises at the next forward; the guard rebuilds and
    # re-broadcasts rank 0's values instead of crashing, so the ranks end equal.
    proc, (r0, r1) = _run(tmp_path, "manual")
    _assert_same(r0["params"], r1["params"], tol=0)
    details = [d for c, a, _, d in r0["events"] if c == "TPL201" and a == "fixed"]
    assert any("re-broadcast from rank 0" in d for d in details), details


def test_forward_without_backward_trains_right(tmp_path):
    # torch 2.13's DDP accepts a training forward that is never backpropagated when no bucket
    # was reduced; the guard must not disturb that (no rebuild, right numbers).
    proc, (r0, r1) = _run(tmp_path, "nobackward")
    _assert_same(r0["params"], r1["params"], tol=0)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
    with torch.no_grad():
        for p, v in zip(model.parameters(), r0["start"]):
            p.copy_(v)
    _assert_same(r0["params"], _reference(model, r0["steps"], r1["steps"]))
    assert "finished reduction" not in proc.stderr


def test_submodule_dataparallel_keeps_every_rank_equal(tmp_path):
    proc, (r0, r1) = _run(tmp_path, "submodule")
    assert r0["inner_type"] == "DataParallelDDP"
    # Ranks started from different seeds; the classifier is outside DDP: broadcast + averaged.
    assert not torch.equal(r0["start"][-1], r1["start"][-1])
    _assert_same(r0["params"], r1["params"], tol=0)
    _sharded(r0, r1)
    # The initial validation pass over the training loader saw the whole set, unsharded.
    assert r0["val_seen"] == r1["val_seen"] == list(range(16))
    from dp_invariants_helpers import features_classifier
    model = features_classifier(r0["start"])
    _assert_same(r0["params"], _reference(model, r0["steps"], r1["steps"]))
    details = " ".join(d for c, a, _, d in r0["events"] if c == "TPL201" and a == "fixed")
    assert "outside the DataParallel module" in details and "broadcast from rank 0" in details


def test_float16_two_losses_under_ddp_match_a_grad_scaler(tmp_path):
    proc, (r0, r1) = _run(tmp_path, "fp16")
    _assert_same(r0["params"], r1["params"], tol=0)
    _sharded(r0, r1)
    x, y = _data()
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
    with torch.no_grad():
        for p, v in zip(model.parameters(), r0["start"]):
            p.copy_(v)
    opt = torch.optim.SGD(model.parameters(), lr=1e6, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    for step, (i0, i1) in enumerate(zip(r0["steps"], r1["steps"])):
        idx = torch.tensor(i0 + i1)
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            out = model(x[idx]).float()
            loss_a = nn.functional.mse_loss(out, y[idx]) * 1e-8
            loss_b = out.abs().mean() * 1e-8
        scaler.scale(loss_a).backward(retain_graph=True)
        scaler.scale(loss_b).backward()
        scaler.unscale_(opt)
        # The gradients each rank's step used (all-reduced, true scale) are the hand-scaled ones.
        for got, ref in zip(r0["grads"][step], [p.grad for p in model.parameters()]):
            assert torch.count_nonzero(ref) > 0
            assert (got - ref).norm() <= 0.02 * ref.norm(), (step, got, ref)
        scaler.step(opt)
        scaler.update()
    start = r0["start"]
    for got, ref, s in zip(r0["params"], model.parameters(), start):
        assert (got - ref.detach()).norm() <= 0.02 * (ref.detach() - s).norm()


def test_checkpoints_load_into_the_bare_network_without_the_guard(tmp_path):
    _run(tmp_path, "unused")
    code = f"""
    import torch
    from torch import nn
    import sys
    sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
    from dp_invariants_helpers import two_heads
    assert "runtime_guard" not in sys.modules
    bare = two_heads(None)
    # `model.module if isinstance(model, nn.DataParallel) else model`: keys without module.
    bare.load_state_dict(torch.load({str(tmp_path / "bare0.pt")!r}))
    whole = torch.load({str(tmp_path / "whole0.pt")!r}, weights_only=False)
    assert type(whole) is nn.DataParallel, type(whole)
    assert "runtime_guard" not in sys.modules
    for a, b in zip(whole.module.parameters(), bare.parameters()):
        assert torch.equal(a, b)
    out = whole(torch.ones(2, 4))
    assert out.shape == (2, 1)
    """
    run_python(code, RUNTIME_GUARD="off")
