"""Forms of holdout15's and holdout16's first scores (2026-11-26 night, the lead; tuned on those
sets): each with its flagged and silent twins, whole diagnostics."""

from _diagnostics import EMPTY_CACHE, SYNC_TEMPLATE as SYNC, found as _found


INLINE_SIZE = """\
import torch


def wrap_emb(model, loader, his_token_id):
    for batch in loader:
        ids = batch["input_ids"].cuda()
        embeds = model(ids)
        for i in range(ids.size(0)):
            if (ids[i] == his_token_id).nonzero().shape[0] > 0:
                embeds[i] = 0
            if len((ids[i] == 0).nonzero()) > 0:
                embeds[i] = 1
            if (ids[i] == 1).nonzero().sum() > 0:
                embeds[i] = 2
        embeds.sum().backward()
"""


def test_a_nonzero_read_in_place_for_its_size_is_host_needed():
    """LLaRA's ``if (input_ids[i] == tok).nonzero().shape[0] > 0:`` (holdout15): the row count of
    ``nonzero`` is a size the host asks for (R3), written in place as well as through a name;
    ``if (...).nonzero().sum() > 0:`` tests the indices' values and stays flagged."""
    assert _found(INLINE_SIZE) == [("TPL102", 13, 15, SYNC.format(what="testing a tensor's truth"))]


EXPERIMENTS = """\
import torch
from models import TimeLLM


def run(train_loader, itr, epochs, make_opt):
    for ii in range(itr):
        model = TimeLLM.Model(ii).float()
        opt = make_opt(model)
        for epoch in range(epochs):
            for x, y in train_loader:
                loss = model(x.cuda())
                loss.backward()
                opt.step()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
"""


def test_building_a_model_class_is_no_step_so_the_experiment_loop_stays_epoch_level():
    """Time-LLM's ``for ii in range(args.itr):`` (holdout15): ``TimeLLM.Model(args)`` builds a
    model, it runs none, so the loop's own body runs no step and what it does after training runs
    once per experiment. Before, the capitalised ``Model`` read as a model call."""
    assert _found(EXPERIMENTS, codes=("TPL102", "TPL103")) == []
    running = EXPERIMENTS.replace("        opt = make_opt(model)\n", "        opt = make_opt(model)\n        model(None)\n")
    assert _found(running, codes=("TPL102", "TPL103")) == [
        ("TPL102", 15, 8, SYNC.format(what="`torch.cuda.synchronize()`")),
        ("TPL103", 16, 8, EMPTY_CACHE),
    ]


OPTIONS = """\
import torch


def evaluate(opt, encoder, decoder, dataloader, disp_to_depth):
    preds = []
    with torch.no_grad():
        for data in dataloader:
            output = decoder(encoder(data.cuda()))
            disp, _ = disp_to_depth(output, opt.min_depth, opt.max_depth)
            preds.append(disp.cpu()[:, 0].numpy())
    return preds


def train(optimizer, encoder, decoder, dataloader, step_with):
    preds = []
    for data in dataloader:
        output = decoder(encoder(data.cuda()))
        step_with(output, optimizer)
        preds.append(output.cpu())
    return preds
"""


def test_an_option_of_argparse_opt_hands_no_optimizer_to_a_call():
    """monodepth2's evaluation loop (holdout15): ``disp_to_depth(out, opt.min_depth, ...)`` reads
    options of ``opt``; it hands no optimizer over, so the loop trains nothing and its copy of the
    predictions is R8's evaluation copy. Handing ``optimizer`` itself to a call keeps the loop a
    training one and its copy flagged."""
    assert _found(OPTIONS) == [("TPL102", 19, 21, SYNC.format(what="`.cpu()`"))]


WINDOW = """\
import collections
import numpy as np
import torch


def train(model, loader, optimizer):
    loss_hist = collections.deque(maxlen=500)
    epoch_loss = []
    for x in loader:
        loss = model(x.cuda())
        loss.backward()
        optimizer.step()
        loss_hist.append(float(loss))
        epoch_loss.append(float(loss))
        print("running loss {:1.5f}".format(np.mean(loss_hist)))
    return np.mean(epoch_loss)
"""


def test_a_window_numpy_reads_every_step_is_host_needed_a_list_read_after_the_loop_is_not():
    """pytorch-retinanet (holdout15): ``loss_hist.append(float(loss))`` with ``np.mean(loss_hist)``
    in the same pass's print: the host reads the window every step (R3). ``epoch_loss`` is read by
    numpy once, after the loop (R22): flagged."""
    assert _found(WINDOW) == [("TPL102", 14, 26, SYNC.format(what="`float()` of a tensor"))]


THROUGHPUT = """\
import time
import torch


@torch.no_grad()
def throughput(data_loader, model, logger):
    for idx, (images, _) in enumerate(data_loader):
        images = images.cuda(non_blocking=True)
        for i in range(50):
            model(images)
        torch.cuda.synchronize()
        logger.info("throughput averaged with 30 times")
        tic1 = time.time()
        for i in range(30):
            model(images)
        torch.cuda.synchronize()
        logger.info(f"throughput {30 * images.shape[0] / (time.time() - tic1)}")
        return


def measure(data_loader, model):
    for images in data_loader:
        for i in range(5):
            model(images.cuda())
        torch.cuda.synchronize()
"""


def test_a_loop_whose_first_pass_returns_runs_once():
    """Swin's and DeiT's ``throughput()`` (plain scripts, found measuring this session's changes):
    the loop over the loader returns at the end of its first pass, so it times one batch, once; a
    loop over the loader that goes on syncs once per batch."""
    assert _found(THROUGHPUT) == [("TPL102", 25, 8, SYNC.format(what="`torch.cuda.synchronize()`"))]
