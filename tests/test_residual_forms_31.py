"""Forms of the thirty-first session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

from _diagnostics import ITEM_SYNC, all_diagnostics, found as _found

ACCUMULATED = """\
import torch


def train(model, optimizer, dataset, N, batch):
    loss_total = 0
    i = 0
    items = []
    for data in dataset:
        i = i + 1
        items.append(data)
        if i % 8 == 0 or i == N:
{gated}
            items = []
        else:
            continue
{after}
        loss_total += loss.item()
    return loss_total
"""
BACKWARD = """\
            loss = model(torch.stack(items))
            loss.backward()"""
STEP_AFTER = """\
        if i % batch == 0 or i == N:
            optimizer.step()
            optimizer.zero_grad()"""


def test_an_if_else_gate_whose_interval_branch_runs_the_backward_is_no_interval():
    """R150 (rules.md "In a loop": an interval ``if`` that runs the step itself is no remedy):
    transformerCPI's ``Trainer.train`` (holdout167) packs 8 samples, runs ``backward`` under
    ``if i % 8 == 0 or i == N:`` and ``continue``s otherwise; the ``.item()`` after it runs after
    every backward. Also when the optimizer step follows the gate in the same loop round."""
    for after, line in ((STEP_AFTER, 20), ("        pass", 18)):
        assert all_diagnostics(ACCUMULATED.format(gated=BACKWARD, after=after), "TPL102") == [
            ("TPL102", line, 22, ITEM_SYNC, None)], after


def test_an_if_else_gate_with_no_update_in_the_round_is_an_interval():
    """The twin: the gated branch logs, nothing in the round after the gate steps or runs a
    backward (the model is trained elsewhere): what follows runs every 8 rounds, not flagged."""
    logged = "            loss = model(torch.stack(items)).detach()"
    assert _found(ACCUMULATED.format(gated=logged, after="        pass")) == []
