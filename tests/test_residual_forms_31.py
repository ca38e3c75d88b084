"""Forms of the thirty-first session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

from _diagnostics import CPU_SYNC, ITEM_SYNC, SYNC_TEMPLATE as SYNC, all_diagnostics, found as _found

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


METRICS = """\
import torch


def gather(values, world_size):
    if world_size == 1:
        return values
    return torch.cat([values], dim=0)


class Trainer:
    def batch_metrics(self, batch):
        metrics = {}
        chosen, rejected = self.policy(batch)
        losses, chosen_rewards = chosen - rejected, chosen.detach()
        chosen_rewards = gather(chosen_rewards, self.world_size)
        metrics["rewards/chosen"] = chosen_rewards.cpu().numpy(){after}
        return losses.mean(), metrics

    def train(self):
        for batch in self.train_loader:
            loss, metrics = self.batch_metrics(batch)
            loss.backward()
            self.optimizer.step()
"""
CPU_SYNC_CHAIN = CPU_SYNC + " (called every step from <string>:21)"


def test_a_numpy_copy_made_into_python_numbers_in_a_helper_is_a_metric_read():
    """R151 (R48 reads "a copy read as a number" as a metric): the DPO trainers (TDPO, beta-DPO,
    holdout170) keep ``chosen_rewards.cpu().numpy().tolist()`` in the metrics dict of
    ``get_batch_metrics``, called every micro-batch: Python numbers made at once, no array the
    helper works with on the host. Reported at the ``.cpu()``."""
    assert all_diagnostics(METRICS.replace("{after}", ".tolist()"), "TPL102") == [
        ("TPL102", 16, 36, CPU_SYNC_CHAIN, None)]


def test_a_numpy_copy_kept_as_an_array_in_a_helper_is_still_host_work():
    """The twin (R48 unchanged): the helper keeps the numpy array itself (no ``.tolist()``):
    the array is what a host library works with, not reported."""
    assert _found(METRICS.replace("{after}", "")) == []


HF_TRAINER = """\
import torch
from transformers import Trainer


class WeightedTrainer(Trainer):
    def {method}(self, model, inputs, return_outputs=False):
        outputs = model(input_ids=inputs["input_ids"])
        sample_size, sft_size = (1 - inputs["sft_mask"]).sum(), inputs["{key}"].sum()
        sft_loss = outputs.loss / sft_size if sft_size > 0 else sft_size
        return 0.5 * sft_loss + outputs.loss
"""
LIGHTNING = """\
import torch
import pytorch_lightning as pl


class Module(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        positives = batch["{key}"].sum()
        loss = self.net(batch["x"]).mean()
        if positives > 0:
            loss = loss / positives
        return loss
"""
TRUTH = SYNC.format(what="testing a tensor's truth")


def test_an_item_of_the_inputs_a_framework_moved_is_a_device_tensor():
    """R152 (rules.md "Where a value lives"; R35 for a moved batch's attributes): SPAG's
    ``OfflineWeightedPolicyTrainer.compute_loss`` (holdout170) tests ``sft_size > 0``, a sum of
    ``inputs['sft_mask']``: the HF Trainer hands ``compute_loss`` the inputs ``_prepare_inputs``
    moved, as Lightning hands its steps a moved ``batch``; a string key of either is a tensor there."""
    assert all_diagnostics(HF_TRAINER.replace("{method}", "compute_loss").replace("{key}", "sft_mask"),
                           "TPL102") == [("TPL102", 9, 46, TRUTH, None)]
    assert all_diagnostics(LIGHTNING.replace("{key}", "mask"), "TPL102") == [("TPL102", 9, 11, TRUTH, None)]


def test_items_named_as_counts_or_of_an_unprepared_step_stay_unknown():
    """The twins: a key named as a count or a length (``num_items``, ``text_len``) is no tensor
    field (R35's names); the HF Trainer's ``training_step`` override is handed the batch as the
    loader made it (it prepares the inputs itself), so its items are of unknown place."""
    assert _found(HF_TRAINER.replace("{method}", "compute_loss").replace("{key}", "num_items")) == []
    assert _found(LIGHTNING.replace("{key}", "text_len")) == []
    assert _found(HF_TRAINER.replace("{method}", "training_step").replace("{key}", "sft_mask")) == []


METADATA = """\
import torch
import pytorch_lightning as pl


class Module(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        platform = batch["{key}"][0]
        loss = self(batch)
        self.log(f"train_{platform}/loss", loss)
        return loss
"""


def test_a_key_that_names_the_samples_is_no_tensor_of_the_moved_batch():
    """R152's exclusion: clay-model (holdout142) formats ``batch["platform"][0]``, a string, into
    the name it logs under; keys naming file names, platforms, prompts, the task or split hold what
    the samples are, not their data. A key of data formatted so is read as a tensor."""
    for key in ("platform", "file_name", "prompt", "task"):
        assert _found(METADATA.replace("{key}", key)) == [], key
    assert all_diagnostics(METADATA.replace("{key}", "scale"), "TPL102") == [
        ("TPL102", 9, 17, SYNC.format(what="formatting a tensor"), None)]


TEMPLATE = """\
import torch


class BaseTrainer:
    def __init__(self, model, optimizer, loader):
        self.model, self.optimizer, self.loader = model, optimizer, loader

    def train_epoch(self):
        for batch in self.loader:
            loss = self.process_batch(batch)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


class Inferencer(BaseTrainer):
    def __init__(self, model, loader):
{init}
        self.model, self.loader, self.saved = model, loader, []

    def process_batch(self, batch):
        out = self.model(batch.cuda())
        self.saved.append(out.cpu())
        return out.mean()

    @torch.no_grad()
    def run_inference(self):
        for batch in self.loader:
            self.process_batch(batch)
"""


def test_a_subclass_that_does_not_run_its_bases_init_runs_none_of_their_step_loops():
    """R153: AVSS's ``Inferencer`` (holdout171, a pytorch-template project) overrides
    ``BaseTrainer.__init__`` without calling it and runs ``process_batch`` from its own no-grad
    loop: the base's training loop, which would call the override, is never run on an instance
    set up so. Its copies are R8's results of code that trains nothing."""
    assert _found(TEMPLATE.replace("{init}", "        self.device = 'cuda'")) == []


def test_a_subclass_that_runs_its_bases_init_inherits_their_step_loops():
    """The twins: ``super().__init__(...)`` or ``BaseTrainer.__init__(self, ...)`` set the instance
    up for the base's training loop, whose every step runs the override: its copy is reported."""
    reported = [("TPL102", 23, 26, CPU_SYNC + " (called every step from <string>:29)", None)]
    for init in ("        super().__init__(model, None, loader)",
                 "        BaseTrainer.__init__(self, model, None, loader)"):
        assert all_diagnostics(TEMPLATE.replace("{init}", init), "TPL102") == reported, init


MOVING = """\
import torch


def train(net, loader, criterion, optimizer):
    moving_loss = 0
    for image, answer in loader:
        image, answer = image.cuda(), answer.cuda()
        output = net(image)
        loss = criterion(output, answer)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct = (output.detach().argmax(1) == answer).float().mean(){read}
        if moving_loss == 0:
            moving_loss = correct
        else:
            moving_loss = {carried}
"""


def test_a_running_value_tested_against_zero_holds_the_device_tensor_from_the_second_step():
    """R154 (TPL102's carried totals, transformers_tasks' ``if not loss:``): mac-network
    (holdout165) starts ``moving_loss`` at 0, binds it to a device accuracy in the ``if`` and
    carries it on in the ``else`` (``moving_loss * 0.99 + correct * 0.01``): from the second step
    ``moving_loss == 0`` compares a device tensor, and ``if`` waits for it."""
    source = MOVING.replace("{read}", "").replace("{carried}", "moving_loss * 0.99 + correct * 0.01")
    assert all_diagnostics(source, "TPL102") == [("TPL102", 14, 11, TRUTH, None)]


def test_a_running_value_of_python_numbers_or_not_carried_is_not_a_carried_tensor():
    """The twins: the accuracy is read as a number first (``.item()``, itself reported), so the
    running value is a Python float; the ``else`` binds a fresh value without carrying the old one."""
    numbers = MOVING.replace("{read}", ".item()").replace("{carried}", "moving_loss * 0.99 + correct * 0.01")
    assert [f[:2] for f in all_diagnostics(numbers, "TPL102")] == [("TPL102", 13)]
    fresh = MOVING.replace("{read}", "").replace("{carried}", "correct * 0.5")
    assert _found(fresh) == []
