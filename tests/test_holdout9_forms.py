"""Forms from holdout9's judged findings (issue 20): the items of a dict or list built by a
comprehension whose every item is a copy to the host are host values (dpr-scale's
``contexts_repr = {k: v.detach().cpu() for k, v in contexts_repr.items()}``, then
``zip(contexts_repr["expert_ids"][i], ...)`` and ``.item()`` of what it yields: no sync, the copy
was it). Whole diagnostics, each with a flagged twin."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")
CPU = SYNC.format(what="`.cpu()`")

COPIED = """
    import torch
    def evaluate(model, loader, total):
        for batch in loader:
            out = model(batch.cuda())
            reprs = {k: v.detach().cpu() for k, v in out.items()}
            total += reprs["a"].sum().item()
            for ids in reprs["expert_ids"][0]:
                total += ids.sum().item()
            firsts = [v[0].cpu().float() for v in out.values()]
            total += firsts[0].item()
            kept = {k: v.detach() for k, v in out.items()}
            total += kept["a"].sum().item()
        return total
    """


def test_items_of_a_comprehension_of_host_copies_are_host_values():
    """Only the comprehension that keeps its values where they were (``kept``) is read with a sync;
    the copies themselves are evaluation results (R8)."""
    assert diagnostics(COPIED, "TPL102") == [(13, 17, ITEM, None, None)]


def test_in_a_loop_that_trains_the_copies_are_the_syncs_and_their_items_still_are_not():
    source = COPIED.replace("        return total\n", "            out.loss.backward()\n        return total\n")
    assert diagnostics(source, "TPL102") == [
        (6, 20, CPU, None, None),
        (10, 18, CPU, None, None),
        (13, 17, ITEM, None, None),
    ]
