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


METRIC_LOGGER = """\
import torch


class MetricLogger:
    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            self.meters[k].update(v)


def train(model, loader, optimizer, media_type, loss_names):
    metric_logger = MetricLogger()
    for batch in loader:
        loss = model(batch.cuda()).loss
        loss.backward()
        optimizer.step()
        for name in loss_names:
            {log}
"""
UPDATE_ITEM = ("TPL102", 8, 20, ITEM := SYNC.format(what="`.item()`"))


def test_keyword_arguments_splatted_from_a_dict_display_are_placed_one_by_one():
    """R111: ``update(**{"loss": loss.item()})`` hands ``update`` a Python float as surely as
    ``update(loss=loss.item())``; a computed key (``f"{media}-{name}"``) with a Python value too. The
    helper's ``isinstance(v, torch.Tensor)`` branch then never runs on a tensor. A splatted
    device tensor keeps the helper's ``.item()`` reported."""
    for log in ('metric_logger.update(**{"loss": loss.item()})',
                'metric_logger.update(**{f"{media_type}-{name}": loss.item()})',
                'value = loss\n            value = value if isinstance(value, float) else value.item()\n'
                '            metric_logger.update(**{f"{media_type}-{name}": value})'):
        source = METRIC_LOGGER.replace("{log}", log)
        assert [f for f in _found(source) if f[1] == 8] == [], log
    for log in ('metric_logger.update(**{"loss": loss.detach()})',
                'metric_logger.update(**{f"{media_type}-{name}": loss.detach()})'):
        source = METRIC_LOGGER.replace("{log}", log)
        assert _found(source)[0][:3] == UPDATE_ITEM[:3], log


GATHER = """\
import pickle
import faiss
import torch
import torch.distributed as dist


def all_gather_list(data, max_size=16384):
    buffer = torch.cuda.ByteTensor(max_size)
    dist.all_reduce(buffer)
    result = []
    for i in range(4):
        out_buffer = buffer[i * max_size: (i + 1) * max_size]
        result.append({unpack})
    return result


def train(model, loader, opt, vector):
    for x, y in loader:
        q = model(x.cuda())
        {copy}
        gathered = all_gather_list(q)
        loss = q.sum()
        loss.backward()
        opt.step()
"""
CPU = SYNC.format(what="`.cpu()`")
TOLIST_MESSAGE = SYNC.format(what="`.tolist()`")


def test_bytes_handed_to_pickle_and_arrays_handed_to_faiss_are_host_needed():
    """R112: ``pickle.loads(bytes(t.tolist()))`` unpickles what the host must have (a builtin that
    only repacks its one argument hands it on: ANCE's ``all_gather_list``, holdout145), and faiss
    searches and trains on numpy arrays (``faiss.copy_array_to_vector(q.cpu().numpy().ravel(),
    ...)``: JPQ). Printed instead, or handed to a function that is no host library's, they wait."""
    host = GATHER.replace("{unpack}", "pickle.loads(bytes(out_buffer[4: 100].tolist()))").replace(
        "{copy}", "faiss.copy_array_to_vector(q.detach().cpu().numpy().ravel(), vector)")
    assert _found(host) == []
    waiting = GATHER.replace("{unpack}", "str(bytes(out_buffer[4: 100].tolist()))").replace(
        "{copy}", "print(q.detach().cpu().numpy().ravel())")
    assert _found(waiting) == [("TPL102", 13, 32, TOLIST_MESSAGE + " (called every step from train.py:21)"),
                               ("TPL102", 20, 14, CPU)]


DPO_METRICS = """\
import torch
from transformers import Trainer


class DPOTrainer(Trainer):
    def store_metrics(self, metrics):
        for key, value in metrics.items():
            self._stored_metrics[key].append(value)

    def compute_loss(self, model, inputs, {flag}=False):
        chosen_rewards, rejected_rewards, losses = model(**inputs)
        outputs = {
            "loss": losses.mean(),
            "rewards/chosen": chosen_rewards.mean().cpu(),
        }
        self.store_metrics(outputs)
        if {flag}:
            return losses.mean(), outputs
        return losses.mean()
"""


def test_a_return_under_return_outputs_hands_nothing_back_in_training_steps():
    """R113 (R49 revised): the Trainer's ``training_step`` calls ``compute_loss`` with
    ``return_outputs`` left False; only its evaluation asks for the outputs. The ``.cpu()`` copies a
    DPO trainer stores every step (LLaVA-MoD, holdout143) are syncs of every training step, whether
    the outputs are returned under ``return_outputs`` or under a flag of the project's own."""
    for flag in ("return_outputs", "return_metrics"):
        assert _found(DPO_METRICS.replace("{flag}", flag)) == [("TPL102", 14, 30, CPU)], flag


LEGACY_SIZES = """\
import torch
from torch.autograd import Variable


class CRF(torch.nn.Module):
    def forward(self, feats, left):
        score = torch.FloatTensor({size}).to(self.device)
        cost = Variable(torch.FloatTensor(left.size()[0], 4).zero_(){volatile}).cuda()
        return score, cost
"""
LEGACY = ("tensor is created on the CPU by the legacy constructor `torch.FloatTensor(...)` and then copied to the "
          "device; create it there with `torch.empty(..., dtype=torch.float32, device=...)`")


def test_a_legacy_constructor_given_one_dimension_or_wrapped_in_a_volatile_variable_is_reported():
    """R114: ``torch.FloatTensor(feats.shape[0])`` is given one dimension, an int (CLUENER's CRF,
    holdout145); ``Variable(..., volatile=...)`` hands its tensor back as ``Variable(...)`` does
    (``volatile`` has done nothing since torch 0.4: PSMNet's cost volume, holdout144). One name
    (``torch.FloatTensor(values)``) may be data and stays unreported (R65), as does a Variable
    given ``requires_grad=`` (a leaf of its own)."""
    assert _found(LEGACY_SIZES.replace("{size}", "feats.shape[0]").replace("{volatile}", ", volatile=True"),
                  ("TPL101",)) == [("TPL101", 7, 16, LEGACY), ("TPL101", 8, 24, LEGACY)]
    assert _found(LEGACY_SIZES.replace("{size}", "feats").replace("{volatile}", ", requires_grad=True"),
                  ("TPL101",)) == []


RANK_TEST = """\
import torch


def main_worker(model, loader, optimizer, args, ngpus_per_node):
    for step, sample in enumerate(loader):
        loss = model(sample["image"].cuda(non_blocking=True)).mean()
        loss.backward()
        optimizer.step()
        if {test}:
            print("loss: {:.12f}".format(loss))
"""
FORMATTING = SYNC.format(what="formatting a tensor")


def test_a_rank_modulo_picks_a_process_not_an_interval():
    """R115: ``args.rank % ngpus_per_node == 0`` holds for the first process of each node at every
    step (NeWCRFs, holdout144): a test of the process, as ``rank == 0`` is (R70 reads ``x % world_size
    != rank`` so). ``step % 100 == 0`` stays an interval."""
    for test in ("args.rank % ngpus_per_node == 0",
                 "not args.multiprocessing_distributed or (args.rank % ngpus_per_node == 0)"):
        assert _found(RANK_TEST.replace("{test}", test)) == [("TPL102", 10, 18, FORMATTING)], test
    assert _found(RANK_TEST.replace("{test}", "step % 100 == 0")) == []
