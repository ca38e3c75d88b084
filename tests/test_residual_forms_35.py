"""Forms of the thirty-fifth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

from _diagnostics import SYNC_TEMPLATE, found

FORMATTED = SYNC_TEMPLATE.format(what="formatting a tensor")

BACKWARDED_ITEM = """\
import torch
from tqdm import tqdm


def compute_losses(data, pred):
    losses = {{}}
    for i in range(len(pred)):
        losses["mae_{{}}".format(i)] = torch.nn.functional.l1_loss(pred[i], data)
    losses["total"] = sum(losses.values())
    return losses


def run(model, loader, optimizer):
    tbar = tqdm(total=len(loader))
    for data in loader:
        optimizer.zero_grad()
        train_losses = compute_losses(data, model(data))
        {backward}
        optimizer.step()
        {between}
        tbar.set_description("Loss:{{:.3g}}".format(train_losses["total"]))
"""


def test_an_item_whose_backward_ran_is_a_device_tensor_when_formatted():
    """RPMNet's loop (holdout209): ``train_losses["total"].backward()`` then the progress bar formats
    ``train_losses["total"]`` every step. The container comes back from a project helper as a dict
    value flow cannot read, but the item's ``.backward()`` says it is a tensor (R184), as a name's
    does (``loss.backward()``)."""
    source = BACKWARDED_ITEM.format(backward='train_losses["total"].backward()', between="pass")
    assert found(source) == [("TPL102", 21, 29, FORMATTED)]
    # an integer key as well (``losses[0].backward()``)
    source = BACKWARDED_ITEM.format(backward="train_losses[0].backward()", between="pass").replace(
        'train_losses["total"])', "train_losses[0])")
    assert found(source) == [("TPL102", 21, 29, FORMATTED)]


def test_another_key_a_rebound_container_or_no_backward_stays_silent():
    """Only the item whose backward ran: another key of the same dict, the same key after the name
    is bound again (to a dict of numbers), and the item with no backward at all say nothing."""
    other_key = BACKWARDED_ITEM.format(backward='train_losses["mae_0"].backward()', between="pass")
    rebound = BACKWARDED_ITEM.format(backward='train_losses["total"].backward()',
                                     between="train_losses = {k: float(v) for k, v in train_losses.items()}")
    no_backward = BACKWARDED_ITEM.format(backward="pass", between="pass")
    for source in (other_key, rebound, no_backward):
        assert found(source) == [], source
