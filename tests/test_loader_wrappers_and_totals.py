"""Two forms of the framework sets' misses (2026-11-26 night, the lead; found on holdout8/9, tuned
there): a loop over a progress bar wrapped around a loader (``with tqdm(loader) as bar:``,
``enumerate(bar)``) iterates that loader, and a running total read by the host once after the loop
is no per-step host need (rules.md TPL102 and "Where a value lives"; the lead's reading R3)."""

from _diagnostics import ITEM_SYNC as SYNC, found as _found


EPOCH = """\
import torch
from tqdm import tqdm


def train(model, train_loader, valid_loader, opt):
    for epoch in range(10):
        for batch in train_loader:
            loss = model(batch)
            loss.backward()
            opt.step()
        with torch.no_grad():
            total = 0
{validation}
"""

WITH_BAR = """\
            with tqdm(valid_loader, mininterval=5.0) as it:
                for batch_no, batch in enumerate(it, start=1):
                    loss = model(batch)
                    total += loss.item()
                    it.set_postfix(avg=total / batch_no)"""

NAMED_BAR = """\
            it = tqdm(valid_loader)
            for batch_no, batch in enumerate(it, start=1):
                loss = model(batch)
                total += loss.item()"""

SAMPLES = """\
            with tqdm(range(4)) as it:
                for i in it:
                    sample = model(torch.randn(1, 8))
                    total += sample.mean().item()"""


def test_a_validation_loop_over_a_bar_wrapped_around_the_loader_is_a_step_loop():
    """CSDI's ``with tqdm(valid_loader) as it: for batch_no, valid_batch in enumerate(it, start=1)``
    beside the training loop: every batch of the validation loader syncs. Before, only a bar the
    loop iterates directly (``for b in bar``) counted, so the loop read as R1's sample generation."""
    assert _found(EPOCH.format(validation=WITH_BAR)) == [("TPL102", 16, 29, SYNC)]
    assert _found(EPOCH.format(validation=NAMED_BAR)) == [("TPL102", 16, 25, SYNC)]


def test_a_loop_beside_the_training_loop_over_a_bar_of_no_loader_still_makes_samples():
    """R1: a loop under ``no_grad`` beside the epoch's step loop that iterates no loader (a bar
    over ``range``) and only calls the model is sample generation: silent."""
    assert _found(EPOCH.format(validation=SAMPLES)) == []


TOTALS = """\
import numpy as np
import torch


def evaluate(model, loader):
    xe_loss, n_words = 0, 0
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        xe_loss += loss.item() * len(y)
        n_words += len(y)
    return np.exp(xe_loss / n_words)


def train(model, loader, opt):
    total = 0.0
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        loss.backward()
        opt.step()
        total = total + loss.item()
        if np.isnan(total):
            break
    return total


def fit(model, loader, opt):
    offset = 0
    for x, lengths in loader:
        loss = model(x.cuda()[offset:])
        loss.backward()
        opt.step()
        offset += lengths.sum().item()
"""


def test_a_total_the_host_reads_after_the_loop_is_flagged_one_it_reads_every_step_is_not():
    """XLM's ``xe_loss += loss.item() * len(y)`` with ``np.exp(xe_loss / n_words)`` after the loop:
    numpy needs the sum once, not every step (keep it on the device, sync once). A total handed to
    numpy inside the loop (``np.isnan(total)`` deciding a ``break``) or a running offset that
    bounds the next step's slice is needed on the host every step (R3): silent."""
    assert _found(TOTALS) == [("TPL102", 9, 19, SYNC)]


INTERVAL_SAMPLES = """\
import torch
from itertools import cycle
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, vae, ema_vae, ds):
        self.vae, self.ema_vae = vae, ema_vae
        self.dl = cycle(DataLoader(ds, batch_size=8, shuffle=True))
        self.save_every = 100

    def train_step(self, steps, opt):
        imgs = next(self.dl).cuda()
        loss = self.vae(imgs)
        loss.backward()
        opt.step()
        if not (steps % self.save_every):
            for model, name in ((self.ema_vae, "ema"), (self.vae, "vae")):
                recons = model(next(self.dl).cuda())
                grid = recons.detach().cpu()
                save(grid, name)
"""


def test_a_few_models_sampled_under_an_interval_from_a_cycled_loader_stay_held():
    """DALLE2's and muse-maskgit's VQGAN trainers: under ``if not (steps % save_every):`` a loop over
    the two models takes one batch each with ``next(self.dl)`` of ``cycle(dl)``: a few samples at
    each interval, not a validation pass (a cycled loader fetched by ``next`` is no loop over the
    loader: the bar-wrapper reading above must not reach it)."""
    assert _found(INTERVAL_SAMPLES) == []


MONTE_CARLO = """\
import torch


def validate(model, val_dataloader, loaders, eval_iters):
    losses = torch.zeros(eval_iters, device="cuda")
    for k, val_data in enumerate(val_dataloader):
        mc_loss = torch.zeros(128, device="cuda")
        for i in range(128):
            mc_loss[i] = model(val_data.cuda()).sum()
        losses[k] = mc_loss.mean().item()
    for loader in loaders:
        flags = torch.zeros(1, device="cuda")
        if not torch.all(flags == 0):
            print("flags")
        for x in loader:
            model(x.cuda()).sum().backward()
    return losses.mean()
"""


def test_a_loop_over_a_loader_is_no_epoch_whatever_its_nested_loops_do():
    """SMDM's validation (holdout16, tuned there): each pass of ``for k, val_data in
    enumerate(val_dataloader)`` takes a batch, and its 128 Monte Carlo passes of the model sit in a
    nested loop; the outer loop is no epoch-level loop, so ``losses[k] = mc_loss.mean().item()``
    waits once per batch. A loop over several loaders (``for loader in loaders:``) takes loaders,
    not batches: it stays epoch-level and its own truth test runs once per loader."""
    assert _found(MONTE_CARLO) == [("TPL102", 10, 20, SYNC)]
