"""Forms the first scores of holdout59-holdout62 got wrong (2026-11-27, the eighteenth session):
each with its flagged twin, whole diagnostics."""

from torchperf_lint.engine import lint_source

SYNC = ("{what} waits for the device in every iteration; keep values on the device (`total += "
        "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")
EMPTY_CACHE = ("`torch.cuda.empty_cache()` in a loop frees the allocator's cache only for it to be "
               "re-allocated with synchronous cudaMalloc calls; remove it (the caching allocator reuses memory)")


def _found(source, codes=("TPL102",), path="train.py"):
    return [(f.code, f.line, f.col, f.message) for f in lint_source(source, path, codes=codes)]


CHECKPOINT_IN_AN_EVALUATION_INTERVAL = """\
import torch

for epoch in range(10):
    for i, data in enumerate(train_loader, 0):
        optimizer.zero_grad()
        loss = criterion(model(data[1].cuda()), data[0].cuda())
        loss.backward()
        optimizer.step()
        if (i + 1) % eval_now == 0 and i > 0:
            torch.save({"state_dict": model.state_dict(), "optimizer": optimizer.{method}()}, "best.pth")
            torch.cuda.empty_cache()
"""


def test_a_checkpoint_of_the_optimizer_in_an_interval_block_is_no_update():
    """Uformer: the evaluation block every ``eval_now`` steps saves ``optimizer.state_dict()`` and
    frees the cache; reading the optimizer's state runs no update, so the ``if`` is an interval
    (R9), not the accumulation boundary."""
    assert _found(CHECKPOINT_IN_AN_EVALUATION_INTERVAL.replace("{method}", "state_dict"), codes=("TPL103",)) == []


def test_an_interval_block_that_steps_the_optimizer_is_every_update():
    source = CHECKPOINT_IN_AN_EVALUATION_INTERVAL.replace("{method}", "step")
    assert _found(source, codes=("TPL103",)) == [("TPL103", 11, 12, EMPTY_CACHE)]
