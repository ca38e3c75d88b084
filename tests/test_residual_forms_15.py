"""Forms the tuned scores of holdout35-holdout38 still got wrong (2026-11-27, the fifteenth
session, before the first scores of holdout39-holdout42): each with its flagged and silent twins,
whole diagnostics."""


from torchperf_lint.engine import lint_source

SYNC = ("{what} waits for the device in every iteration; keep values on the device (`total += "
        "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")


def _found(source, codes=("TPL102",), path="train.py"):
    return [(f.code, f.line, f.col, f.message) for f in lint_source(source, path, codes=codes)]


TUPLE_OF_INDICES_COUNTED = """\
import torch


def starts_of(seq):
    stmps = (seq == 22550).nonzero(as_tuple=True)
    if len(stmps[0]) == len(seq):
        return stmps[1] + 2
    return None


def train(model, loader, opt):
    for batch in loader:
        ids = batch.cuda()
        starts = starts_of(ids)
        loss = model(ids, starts).mean()
        loss.backward()
        opt.step()
"""


def test_one_tensor_of_a_nonzero_tuple_counted_is_a_size_the_host_needs():
    """rlhf-length-biases' ``get_starts``: ``nonzero(as_tuple=True)`` whose first tensor's length
    the host compares: the sync is the count of the rows (R3, a size), silent; the same tuple
    whose tensor is only computed with stays flagged, in the helper called every step."""
    assert _found(TUPLE_OF_INDICES_COUNTED) == []
    used = TUPLE_OF_INDICES_COUNTED.replace("if len(stmps[0]) == len(seq):", "if seq.dim() == 2:")
    assert _found(used) == [
        ("TPL102", 5, 12, SYNC.format(what="`.nonzero()`")
         + " (called every step from train.py:14)"),
    ]
