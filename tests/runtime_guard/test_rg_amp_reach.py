"""TPL301 loss scaling that sees every parameter that gets a gradient, checked against
``torch.amp.GradScaler("cpu")`` doing the same run by hand: reentrant and non-reentrant
``torch.utils.checkpoint``, parameters unfrozen or added later, two optimizers stepping from one
backward, the script's own GradScaler, scale growth, sparse and ``create_graph=True`` gradients.

The losses are ~1e-8 in float16 autocast on a CPU: without scaling every gradient underflows to
zero, and a gradient left scaled is 65536x too large, so each comparison can only pass when the
guard scaled and unscaled exactly the right gradients."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from _rg_helpers import backward_and_step, events

TINY = 1e-8


def _x(seed=1, n=8, d=16):
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed))


def _close(got, ref, rtol=2e-2):
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert torch.count_nonzero(r) > 0
        assert (g - r).norm() <= rtol * r.norm(), ((g - r).norm() / r.norm(), g, r)


def _params(*modules):
    return [p.detach().clone() for m in modules for p in m.parameters()]


class _Checkpointed(nn.Module):
    def __init__(self, reentrant):
        super().__init__()
        torch.manual_seed(0)
        self.head = nn.Linear(16, 16)
        self.block = nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 16))
        self.tail = nn.Linear(16, 1)
        self.reentrant = reentrant

    def forward(self, x):
        h = torch.tanh(self.head(x))
        h = checkpoint(self.block, h, use_reentrant=self.reentrant)
        return self.tail(h)


def _train_checkpointed(reentrant, scaler=None, steps=3):
    model = _Checkpointed(reentrant)
    opt = torch.optim.SGD(model.parameters(), lr=1e5)
    x, grads = _x(), []
    for _ in range(steps):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(x).float().mean() * TINY
        if scaler is None:
            loss.backward()
            grads.append([p.grad.clone() for p in model.parameters()])
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            grads.append([p.grad.clone() for p in model.parameters()])
            scaler.step(opt)
            scaler.update()
    return grads, _params(model)


def _check_checkpointed(guard, reentrant):
    ref_grads, ref_params = _train_checkpointed(reentrant, torch.amp.GradScaler("cpu"))
    guard.install(mode="fix", device="cpu")
    grads, params = _train_checkpointed(reentrant)
    for got, ref in zip(grads, ref_grads):
        _close(got, ref)  # right after backward, before the step: true gradients
    _close(params, ref_params)
    assert events(guard, "TPL301", "fixed")


def test_reentrant_checkpoint_parameters_are_unscaled(guard):
    _check_checkpointed(guard, reentrant=True)


def test_non_reentrant_checkpoint_parameters_are_unscaled(guard):
    _check_checkpointed(guard, reentrant=False)


def _train_unfreezing(scaler=None, steps=8, unfreeze_at=5, add_group_at=6):
    torch.manual_seed(0)
    trunk, head, extra = nn.Linear(16, 8), nn.Linear(8, 1), nn.Linear(16, 1)
    for p in trunk.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(list(trunk.parameters()) + list(head.parameters()), lr=1e5)
    x, grads = _x(), []
    for step in range(steps):
        if step == unfreeze_at:
            for p in trunk.parameters():
                p.requires_grad_(True)
        if step == add_group_at:
            opt.add_param_group({"params": list(extra.parameters()), "lr": 1e5})
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            out = head(torch.tanh(trunk(x)))
            if step >= add_group_at:
                out = out + extra(x)
            loss = out.float().mean() * TINY
        trained = [p for g in opt.param_groups for p in g["params"]]
        # Clipping reads .grad between backward and step: a gradient unscaled only at the step
        # would be clipped while still 65536x too large.
        if scaler is None:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trained, 1e-9)
            grads.append([p.grad.clone() for p in trained if p.grad is not None])
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(trained, 1e-9)
            grads.append([p.grad.clone() for p in trained if p.grad is not None])
            scaler.step(opt)
            scaler.update()
    return grads, _params(trunk, head, extra)


def test_parameters_unfrozen_and_added_later_are_unscaled(guard):
    ref_grads, ref = _train_unfreezing(torch.amp.GradScaler("cpu"))
    guard.install(mode="fix", device="cpu")
    grads, got = _train_unfreezing()
    assert [len(g) for g in grads] == [2] * 5 + [4] + [6] * 2
    for step, (g, r) in enumerate(zip(grads, ref_grads)):
        _close(g, r)  # the clipped gradients the step used, unfrozen and added ones included
    _close(got, ref)


def _two_optimizers_one_backward(scaler=None, steps=4, overflow_at=(1,)):
    torch.manual_seed(0)
    a, b = nn.Linear(16, 8), nn.Linear(8, 1)
    opt_a = torch.optim.SGD(a.parameters(), lr=1e5)
    opt_b = torch.optim.SGD(b.parameters(), lr=1e5)
    x, scales = _x(), []
    for step in range(steps):
        opt_a.zero_grad()
        opt_b.zero_grad()
        factor = 1e38 if step in overflow_at else TINY  # 1e38 overflows float16 at any scale
        with torch.autocast("cpu", dtype=torch.float16):
            loss = b(torch.tanh(a(x))).float().mean() * factor
        if scaler is None:
            loss.backward()
            opt_a.step()
            opt_b.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt_a)
            scaler.step(opt_b)
            scaler.update()
        scales.append(scaler.get_scale() if scaler is not None else None)
    return _params(a, b), scales


def test_two_optimizers_from_one_backward_halve_the_scale_once(guard):
    ref, ref_scales = _two_optimizers_one_backward(torch.amp.GradScaler("cpu"))
    assert ref_scales == [65536.0, 32768.0, 32768.0, 32768.0]
    guard.install(mode="fix", device="cpu")
    got, _ = _two_optimizers_one_backward()
    _close(got, ref)
    assert guard.GUARD.fix("amp").state.scale == 32768.0


def _own_scaler_run(steps=4):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=1e5, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    x = _x()
    for _ in range(steps):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(x).float().mean() * TINY
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    return _params(model)


def test_the_scripts_own_grad_scaler_still_trains(guard):
    ref = _own_scaler_run()  # built without the guard
    start = _own_scaler_run(steps=0)  # the untrained model, built the same way
    guard.install(mode="fix", device="cpu")
    got = _own_scaler_run()
    assert len(got) == len(ref) == len(start) == 4
    assert all(torch.equal(g, r) for g, r in zip(got, ref))
    assert all(not torch.equal(g, s) for g, s in zip(got, start))  # every tensor trained
    assert not events(guard, "TPL301")


def test_scale_grows_after_clean_steps_like_grad_scaler(guard, monkeypatch):
    from runtime_guard.fixes import amp

    monkeypatch.setattr(amp, "GROWTH_INTERVAL", 3)
    scaler = torch.amp.GradScaler("cpu", growth_interval=3)
    ref, ref_scales = _two_optimizers_one_backward(scaler, steps=7, overflow_at=())
    assert ref_scales[-1] == 65536.0 * 4
    guard.install(mode="fix", device="cpu")
    got, _ = _two_optimizers_one_backward(steps=7, overflow_at=())
    assert guard.GUARD.fix("amp").state.scale == 65536.0 * 4
    _close(got, ref)


def test_sparse_gradients_are_unscaled(guard):
    def run():
        torch.manual_seed(0)
        emb = nn.Embedding(10, 4, sparse=True)
        lin = nn.Linear(4, 1)
        idx = torch.tensor([1, 3, 3, 7])
        with torch.autocast("cpu", dtype=torch.float16):
            loss = lin(emb(idx)).float().mean() * 1e-4
        loss.backward()
        return emb.weight.grad.to_dense(), lin.weight.grad.clone()

    ref = run()
    guard.install(mode="fix", device="cpu")
    got = run()
    assert events(guard, "TPL301", "fixed")
    _close(list(got), list(ref))


def test_create_graph_gradients_are_unscaled(guard):
    def run():
        torch.manual_seed(0)
        lin = nn.Linear(4, 1)
        x = torch.randn(8, 4, generator=torch.Generator().manual_seed(3))
        with torch.autocast("cpu", dtype=torch.float16):
            loss = (lin(x).float() ** 2).mean() * 1e-4
        loss.backward(create_graph=True)
        grad = lin.weight.grad
        assert grad.requires_grad
        return grad.detach().clone()

    ref = run()
    guard.install(mode="fix", device="cpu")
    got = run()
    assert events(guard, "TPL301", "fixed")
    _close([got], [ref])


def test_non_scalar_backward_without_gradient_still_raises(guard):
    """torch refuses backward() of a non-scalar without a gradient; the guard must not supply one."""
    import pytest

    guard.install(mode="fix", device="cpu")
    lin = nn.Linear(16, 2)
    with torch.autocast("cpu", dtype=torch.float16):
        out = lin(_x()).float()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        out.backward()


def _train_plain_leaf_in_reentrant_segment(scaler=None, steps=3):
    """A plain tensor (not an nn.Parameter) trained inside a reentrant checkpoint: the guard can
    hook it only once an optimizer step shows it is trained."""
    torch.manual_seed(0)
    head = nn.Linear(16, 16)
    weight = (torch.randn(16, 16) * 0.1).requires_grad_()
    tail = nn.Linear(16, 1)
    opt = torch.optim.SGD([weight, *head.parameters(), *tail.parameters()], lr=1e5)
    x = _x()
    for _ in range(steps):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            h = torch.tanh(head(x))
            h = checkpoint(lambda t: torch.tanh(t @ weight), h, use_reentrant=True)
            loss = tail(h).float().mean() * TINY
        backward_and_step(loss, opt, scaler)
    return [weight.detach().clone(), *_params(head, tail)]


def test_plain_leaf_inside_a_reentrant_checkpoint_is_unscaled_at_its_first_step(guard):
    ref = _train_plain_leaf_in_reentrant_segment(torch.amp.GradScaler("cpu"))
    guard.install(mode="fix", device="cpu")
    _close(_train_plain_leaf_in_reentrant_segment(), ref)
    (said,) = [e for e in events(guard, "TPL301", "fixed") if "at the optimizer step" in e.detail]
    assert said.detail.startswith("1 gradient tensor(s) reached outside the walked graph")


def test_sparse_overflow_skips_the_step(guard):
    def run(scaler=None):
        torch.manual_seed(0)
        emb = nn.Embedding(10, 4, sparse=True)
        opt = torch.optim.SGD(emb.parameters(), lr=0.1)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = emb(torch.tensor([1, 3])).float().sum() * 1e38
        backward_and_step(loss, opt, scaler)
        return emb.weight.detach().clone()

    torch.manual_seed(0)
    untouched = nn.Embedding(10, 4, sparse=True).weight.detach().clone()
    assert torch.equal(run(torch.amp.GradScaler("cpu")), untouched)  # GradScaler skips it
    guard.install(mode="fix", device="cpu")
    assert torch.equal(run(), untouched)
    assert guard.GUARD.fix("amp").state.scale == 32768.0
