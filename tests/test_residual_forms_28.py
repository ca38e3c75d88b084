"""Forms of round twenty-five (holdout140-142) the engine got wrong (2026-11-29, the twenty-eighth
session): each with its flagged and silent twins, whole diagnostics."""


from _diagnostics import CPU_CREATION_TEMPLATE, SYNC_TEMPLATE as SYNC, found as _found

ONES = CPU_CREATION_TEMPLATE.format(factory="ones")

CAUSAL_MASK = """\
import torch


class Encoder(torch.nn.Module):
    def transformer_encoder(self, input_ids):
        max_len = input_ids.size(-1)
        attn_shape = (1, max_len, max_len)
        subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1)
        subsequent_mask = {rebind}
        subsequent_mask = subsequent_mask.long()
        if self.args.cuda_condition:
            subsequent_mask = subsequent_mask.cuda()
        return subsequent_mask
"""


def test_a_factory_rebound_to_a_comparison_or_arithmetic_with_a_number_stays_fresh():
    """R108 (R79 with the ops ``_fresh_tensor`` reads on the factory itself): CoSeRec's causal mask
    (holdout141) rebinds the name to ``(mask == 0).unsqueeze(1)``, a new host tensor nobody else
    holds, and moves it under the CUDA flag; ``mask + 1`` and ``-mask`` likewise."""
    for rebind in ("(subsequent_mask == 0).unsqueeze(1)", "subsequent_mask + 1", "-subsequent_mask",
                   "(subsequent_mask > 0.5)"):
        source = CAUSAL_MASK.replace("{rebind}", rebind)
        assert _found(source, ("TPL101",)) == [("TPL101", 8, 37, ONES)], rebind


def test_a_rebinding_with_another_tensor_or_a_second_read_keeps_the_factory_silent():
    """The host tensor is combined with another tensor (``* torch.rand(...)``), or read twice
    (``m * m``, ``m == m.t()``): it is worked on where it is, and stays unreported."""
    for rebind in ("subsequent_mask * torch.rand(attn_shape)", "subsequent_mask * subsequent_mask",
                   "(subsequent_mask == subsequent_mask.t())"):
        source = CAUSAL_MASK.replace("{rebind}", rebind)
        assert _found(source, ("TPL101",)) == [], rebind


LIGHTNING_TRAINER = """\
import pytorch_lightning as pl
import torch


def main(_config, callbacks):
    trainer = pl.Trainer(
        gpus=_config["num_gpus"],
        precision=_config["precision"],
        benchmark=True,
        deterministic={deterministic},
        callbacks=callbacks,
    )
    return trainer
"""
TRAINER_MESSAGE = ("Lightning `Trainer(deterministic=True, benchmark=True)`: benchmarking picks cuDNN algorithms by "
                   "timing, which may differ run to run, so the run is not reproducible; pass `benchmark=False` "
                   "when results must be reproducible")


def test_a_lightning_trainer_written_over_lines_is_reported_at_benchmark_true():
    """rules.md reports TPL401 at the ``benchmark = True`` assignment; Lightning's ``Trainer(...,
    benchmark=True, deterministic=True)`` at its ``benchmark=True`` keyword, on its own line when the
    call is written over many (all-in-one, holdout140), not at the call's first line."""
    assert _found(LIGHTNING_TRAINER.replace("{deterministic}", "True"), ("TPL401",)) == [
        ("TPL401", 9, 8, TRAINER_MESSAGE)]
    assert _found(LIGHTNING_TRAINER.replace("{deterministic}", "False"), ("TPL401",)) == []


ORDER_INDEX = """\
import itertools
import torch


def order_class_index(order):
    classes = list(itertools.permutations(list(range(len(order)))))
    return classes.index(tuple(order.tolist()))


def train(model, optimizer, device, train_dataloader):
    for i, data in enumerate(train_dataloader, 1):
        tuple_clips, tuple_orders = data
        inputs = tuple_clips.to(device)
        {targets}
        targets = torch.tensor(targets).to(device)
        optimizer.zero_grad()
        loss = model(inputs).sum()
        loss.backward()
        optimizer.step()
"""
TOLIST = SYNC.format(what="`.tolist()`")


def test_an_item_of_a_host_batch_handed_to_a_helper_is_on_the_host():
    """R109 (R14 through a ``for`` or a comprehension): ``tuple_orders`` is a field of a batch the
    loader hands out and the loop never moves; each ``order`` iterated from it is a host tensor, so
    the helper's ``order.tolist()`` waits for nothing (video-clip-order-prediction, holdout140)."""
    for targets in ("targets = [order_class_index(order) for order in tuple_orders]",
                    "targets = [order_class_index(order) for order in data[1]]",
                    "targets = []\n        for order in tuple_orders:\n            targets.append(order_class_index(order))"):
        assert _found(ORDER_INDEX.replace("{targets}", targets)) == [], targets


def test_an_item_of_a_moved_batch_or_of_a_call_keeps_the_helpers_sync():
    """Moved first (``tuple_orders.to(device)``), the items are on the device; iterated through a
    call (``zip(...)``), nothing is known: the helper's sync stays reported."""
    moved = "orders = tuple_orders.to(device)\n        targets = [order_class_index(order) for order in orders]"
    zipped = "targets = [order_class_index(order) for order, _ in zip(tuple_orders, tuple_clips)]"
    line = ("TPL102", 7, 31, TOLIST + " (called every step from train.py:15)")
    assert _found(ORDER_INDEX.replace("{targets}", moved)) == [line]
    line = ("TPL102", 7, 31, TOLIST + " (called every step from train.py:14)")
    assert _found(ORDER_INDEX.replace("{targets}", zipped)) == [line]
