"""TPL104 through a name bound to a wrapped loader (rules.md TPL104: pinning is a fact of the loader
the loop iterates): ``pbar = tqdm(enumerate(loader))`` and minGPT's trainer idiom
``pbar = tqdm(enumerate(loader), total=len(loader)) if is_train else enumerate(loader)`` hand out
``loader``'s batches (decision-transformer's Atari trainer, holdout10: four moves missed). Whole
diagnostics; the fixed code is run with a CPU stand-in for the copy."""

from __future__ import annotations

import textwrap

import torch

from _diagnostics import PINNED_COPY as MESSAGE, rule_diagnostics as diagnostics
from torchperf_lint.engine import fix_source


MINGPT = """
    import torch
    from torch.utils.data import DataLoader
    from tqdm import tqdm


    def run_epoch(model, optimizer, data, device, is_train):
        loader = DataLoader(data, shuffle=True, pin_memory=True, batch_size=4)
        pbar = tqdm(enumerate(loader), total=len(loader)) if is_train else enumerate(loader)
        for it, (x, y) in pbar:
            x = x.to(device)
            y = y.to(device)
            loss = model(x, y)
            model.zero_grad()
            loss.backward()
            optimizer.step()
        return loss
    """


def test_the_mingpt_conditional_wrapper_iterates_the_pinned_loader():
    assert diagnostics(MINGPT, "TPL104") == [(11, 12, MESSAGE, "safe", "add non_blocking=True"),
                                             (12, 12, MESSAGE, "safe", "add non_blocking=True")]


def test_a_name_bound_to_a_wrapper_iterates_the_pinned_loader():
    source = MINGPT.replace(" if is_train else enumerate(loader)", "")
    assert [d[:2] for d in diagnostics(source, "TPL104")] == [(11, 12), (12, 12)]


def test_an_unpinned_loader_behind_the_wrapper_is_silent():
    assert diagnostics(MINGPT.replace("pin_memory=True", "pin_memory=False"), "TPL104") == []


def test_two_loaders_either_way_are_not_one_loaders_batches():
    """A pinned loader one way and an unpinned one the other: not known pinned."""
    source = MINGPT.replace(
        "        pbar = tqdm(enumerate(loader), total=len(loader)) if is_train else enumerate(loader)\n",
        "        other = DataLoader(data, batch_size=4)\n"
        "        pbar = tqdm(enumerate(loader)) if is_train else enumerate(other)\n")
    assert diagnostics(source, "TPL104") == []


class _Squared(torch.nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, y):
        return (self.net(x) - y).pow(2).mean()


def test_the_fixed_epoch_runs_and_trains_as_before():
    fixed, applied = fix_source(textwrap.dedent(MINGPT), codes=["TPL104"])
    assert applied == 2 and fixed.count("non_blocking=True") == 2
    assert fix_source(fixed, codes=["TPL104"]) == (fixed, 0)  # applying again changes nothing
    results = []
    for text in (textwrap.dedent(MINGPT), fixed):
        namespace = {}
        exec(compile(text.replace("from tqdm import tqdm", "tqdm = lambda it, **k: it"), "<epoch>", "exec"),
             namespace)
        torch.manual_seed(0)
        net = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        data = torch.utils.data.TensorDataset(torch.randn(8, 3), torch.randn(8, 1))
        torch.manual_seed(1)
        loss = namespace["run_epoch"](_Squared(net), opt, data, "cpu", True)
        results.append((float(loss), net.weight.detach().clone()))
    assert results[0][0] == results[1][0] and torch.equal(results[0][1], results[1][1])
