"""Where a value lives: a loader batch moved to the device item by item, in place (OpenNRE's
``for i in range(len(data)): data[i] = data[i].cuda()``, ``for k in batch: batch[k] =
batch[k].to(device)``, ``for k, v in batch.items(): batch[k] = v.to(device)``), lives on the
device afterwards: its items' syncs are syncs (holdout10, OpenNRE ``bag_re.py:127``: a truth test
on a count of the moved labels was missed, the batch read as still on the host). Whole diagnostics;
twins: one item moved, or a loop over something else, leaves the batch on the host."""

from __future__ import annotations

import pytest

from _diagnostics import SYNC_TEMPLATE, rule_diagnostics as diagnostics

TRUTH = SYNC_TEMPLATE.format(what="testing a tensor's truth")

LOOP = """
    import torch


    def train(model, train_loader, opt, device):
        for data in train_loader:
    {move}
            label = data[0]
            loss = torch.nn.functional.cross_entropy(model(data[1]), label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if (label != 0).long().sum() > 0:
                print("positives")
    """


@pytest.mark.parametrize("move", [
    "        for i in range(len(data)):\n                data[i] = data[i].cuda()",
    "        for k in data:\n                data[k] = data[k].to(device)",
    "        for k in data.keys():\n                data[k] = data[k].to(device)",
    "        for k, v in data.items():\n                data[k] = v.to(device)",
])
def test_a_batch_moved_item_by_item_lives_on_the_device(move):
    assert diagnostics(LOOP.format(move=move), "TPL102") == [(14, 11, TRUTH, None, None)]


@pytest.mark.parametrize("move", [
    "        data[1] = data[1].cuda()",  # one item: the labels stay on the host
    "        for i in range(2):\n                data[i] = data[i].cuda()",  # not every index
    "        for k, v in other.items():\n                data[k] = v.to(device)",  # another container's keys
    "        for i in range(len(data)):\n                data[i] = data[i].float()",  # not a move
])
def test_a_batch_not_moved_whole_stays_on_the_host(move):
    assert diagnostics(LOOP.format(move=move), "TPL102") == []
