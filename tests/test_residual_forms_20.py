"""Forms the end measure of the nineteenth session left false (2026-11-28, the twentieth session,
reading R47): each with its flagged twin, whole diagnostics."""

from torchperf_lint.engine import lint_source

from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found


# -- R47.1: blocks that never run ------------------------------------------------------------------

DEBUG_BLOCK = """\
import torch

for x, y in loader:
    x = x.cuda()
    loss = model(x).mean()
    if {test}:  # visualize the batch
        print(loss.item())
    loss.backward()
    optimizer.step()
"""


def test_a_sync_under_if_false_never_runs():
    """GVHMR's ``training_step`` keeps its visualisation under ``if False:`` (holdout79): it never
    runs, so it waits for nothing."""
    for test in ("False", "0", "None"):
        assert _found(DEBUG_BLOCK.replace("{test}", test)) == [], test


def test_a_sync_under_a_debug_setting_is_every_step():
    """A name is a setting the user may turn on (``DEBUG = False`` today): still per step."""
    assert _found(DEBUG_BLOCK.replace("{test}", "args.debug")) == [
        ("TPL102", 7, 14, SYNC.format(what="`.item()`"))]


def test_the_body_of_if_true_runs_and_its_else_does_not():
    source = """\
import torch

for x, y in loader:
    loss = model(x.cuda()).mean()
    if True:
        print(loss.item())
    else:
        print(float(loss))
    loss.backward()
    optimizer.step()
"""
    assert _found(source) == [("TPL102", 6, 14, SYNC.format(what="`.item()`"))]


def test_the_else_of_while_false_runs():
    """``while False: ... else: ...``: the loop ends at once and its ``else`` runs."""
    source = """\
import torch

for x, y in loader:
    loss = model(x.cuda()).mean()
    while False:
        print(loss.item())
    else:
        print(float(loss))
    loss.backward()
    optimizer.step()
"""
    assert _found(source) == [("TPL102", 8, 14, SYNC.format(what="`float()` of a tensor"))]


def test_a_helper_called_only_from_a_block_that_never_runs_is_no_step_body():
    """GVHMR's ``to_numpy`` and ``compute_T_ayfz2ay`` are reached only from ``if False:`` blocks of
    the steps: no call there runs, so they are not step bodies."""
    source = """\
import torch


def to_numpy(x):
    return x.clone().cpu().numpy()


def train(model, loader, optimizer):
    for x in loader:
        out = model(x.cuda())
        if {test}:
            draw(to_numpy(out))
        out.mean().backward()
        optimizer.step()
"""
    assert _found(source.replace("{test}", "False")) == []
    assert _found(source.replace("{test}", "self.visualize")) == [
        ("TPL102", 5, 11, SYNC.format(what="`.cpu()`") + " (called every step from train.py:12)")]


# -- R47.2: what a tokenizer makes with return_tensors="pt" is on the host until moved ---------------

TOKENIZED = """\
import torch


class Explainer(torch.nn.Module):
    def forward(self, input_text):
        tokenized = self.tokenizer(input_text, padding=True, return_tensors={kind})
        positions = (tokenized["input_ids"] == self.user_token_id).nonzero()
        return self.model(tokenized["input_ids"].cuda(), positions)


model = Explainer()
for text in loader:
    loss = model(text)
    loss.backward()
    optimizer.step()
"""


def test_what_a_tokenizer_returns_as_torch_tensors_is_on_the_host():
    """XRec (holdout82): ``self.tokenizer(text, padding=True, return_tensors='pt')`` makes CPU
    tensors; a ``.nonzero()`` of them before any move waits for nothing."""
    assert _found(TOKENIZED.replace("{kind}", '"pt"')) == []


def test_a_tokenizer_output_moved_to_the_device_is_there():
    source = TOKENIZED.replace('return_tensors={kind})', 'return_tensors="pt").to("cuda")')
    assert _found(source) == [
        ("TPL102", 7, 20, SYNC.format(what="`.nonzero()`") + " (called every step from train.py:13)")]


def test_a_call_that_asks_for_other_tensors_says_nothing_of_where_they_are():
    """``return_tensors="np"`` or a value the call does not show: nothing known, the step's own
    facts decide (here: a tokenizer of unknown output in a step body, flagged)."""
    assert _found(TOKENIZED.replace("{kind}", "self.kind")) == [
        ("TPL102", 7, 20, SYNC.format(what="`.nonzero()`") + " (called every step from train.py:13)")]


# -- R47.3: a table from indices to symbols is a Python container ------------------------------------

DECODED_ANSWERS = """\
import torch


def train(model, loader, optimizer, {table}):
    for x, y in loader:
        out = model(x.cuda())
        answers = [{table}[pred.item()] for pred in out.argmax(-1)]
        record(answers)
        out.mean().backward()
        optimizer.step()
"""


def test_an_item_that_keys_a_table_of_answers_is_host_needed():
    """METER and BridgeTower (holdout75): ``[id2answer[pred.item()] for pred in vqa_preds]``: the
    table from answer ids to answer strings is a Python dict, which takes a Python number."""
    for table in ("id2answer", "idx2word", "ix_to_label", "itos", "vocab_id_to_token"):
        assert _found(DECODED_ANSWERS.replace("{table}", table)) == [], table


def test_an_item_that_indexes_a_table_of_other_values_is_a_sync():
    for table in ("id2emb", "features", "idx2vec"):
        assert _found(DECODED_ANSWERS.replace("{table}", table)) == [
            ("TPL102", 7, 20 + len(table), SYNC.format(what="`.item()`"))], table


# -- R47.4: a method a project class defines is not a tensor's -------------------------------------

AVERAGER = """\
import torch


class Averager:
    def __init__(self):
        self.n, self.v = 0.0, 0.0

    def add(self, v, n=1.0):
        self.v = (self.v * self.n + v * n) / (self.n + n)
        self.n += n

    def {method}(self):
        return self.v


def train(model, loader, optimizer, pbar):
    train_loss = Averager()
    for x, y in loader:
        loss = model(x.cuda()).mean()
        train_loss.add(loss.detach())
        pbar.set_description("loss {:.4f}".format(train_loss.item()))
        loss.backward()
        optimizer.step()
"""


def test_item_of_a_project_averager_is_its_own_method():
    """liif (holdout65): ``val_res = utils.Averager()`` ... ``val_res.item()``: ``Averager.item``
    returns the mean it keeps; no tensor is read there."""
    assert _found(AVERAGER.replace("{method}", "item")) == []


def test_item_of_an_instance_whose_class_has_no_such_method_is_a_tensor_s():
    """The class does not define ``item`` (here: ``value``): the call is not known to be its own,
    and the name is read as the step's facts say (an unknown value in a step: flagged)."""
    assert _found(AVERAGER.replace("{method}", "value")) == [
        ("TPL102", 21, 50, SYNC.format(what="`.item()`"))]


# -- R47.5: ``model.modules()`` lists submodules; it runs no model -----------------------------------

EPOCH_WITH_FROZEN_NORMS = """\
import torch
import torch.nn as nn


def evaluate(model, loader):
    outputs = []
    for x, y in loader:
        outputs.append(model(x.cuda()))
    return torch.cat(outputs).float().cpu()


for epoch in range(epochs):
    model.train()
    if bn_freeze:
        modules = model.model.{method}()
        for m in modules:
            if isinstance(m, nn.BatchNorm2d):
                m.eval()
    for x, y in train_loader:
        loss = criterion(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        recalls = evaluate(model, eval_loader)
"""


def test_listing_a_model_s_submodules_in_the_epoch_body_runs_no_step():
    """Proxy-Anchor (holdout77) freezes its BatchNorms each epoch with ``for m in
    model.model.modules()``: the epoch loop's own body runs no step, so the evaluation it calls once
    per epoch is no step body (R1)."""
    assert _found(EPOCH_WITH_FROZEN_NORMS.replace("{method}", "modules")) == []


def test_a_submodule_called_in_the_epoch_body_is_a_model_run():
    """``model.model.module(...)``-like calls of a model's part are forwards: the epoch body then
    runs the model itself, and what it calls is per step."""
    source = EPOCH_WITH_FROZEN_NORMS.replace("modules = model.model.{method}()", "modules = model.module(x0)")
    assert _found(source) == [
        ("TPL102", 9, 11, SYNC.format(what="`.cpu()`") + " (called every step from train.py:25)")]


# -- R47.6: what a tokenizer's methods are handed is host-needed ------------------------------------

MASK_TOKENS = """\
import torch


def mask_tokens(inputs, tokenizer, mlm_probability):
    labels = inputs.clone()
    probability_matrix = torch.full(labels.shape, mlm_probability, device=labels.device)
    special = [{call} for val in labels.tolist()]
    probability_matrix.masked_fill_(torch.tensor(special, dtype=torch.bool, device=labels.device), value=0.0)
    return inputs, labels


def train(model, loader, optimizer, tokenizer):
    for batch in loader:
        batch = batch.cuda()
        inputs, labels = mask_tokens(batch, tokenizer, 0.15)
        loss = model(inputs, labels=labels).loss
        loss.backward()
        optimizer.step()
"""


def test_ids_iterated_for_a_tokenizer_method_are_host_needed():
    """The MLM scripts' ``mask_tokens`` (OpenBackdoor, holdout63): ``[tokenizer.get_special_tokens_mask(
    val, already_has_special_tokens=True) for val in labels.tolist()]``: the tokenizer reads each
    row's ids on the host (R3)."""
    call = "tokenizer.get_special_tokens_mask(val, already_has_special_tokens=True)"
    assert _found(MASK_TOKENS.replace("{call}", call)) == []
    assert _found(MASK_TOKENS.replace("{call}", "self.tokenizer.convert_ids_to_tokens(val)")) == []


def test_ids_iterated_for_another_object_s_method_are_a_sync():
    assert _found(MASK_TOKENS.replace("{call}", "masker.lookup(val)")) == [
        ("TPL102", 7, 45, SYNC.format(what="`.tolist()`") + " (called every step from train.py:15)")]


def test_a_cpu_factory_moved_at_once_in_a_block_that_never_runs_is_still_reported():
    """TPL101 describes the code as written (GVHMR's ``torch.ones(3).float().cuda()`` in an ``if
    False:`` render block is a label of holdout79); only per-iteration costs are dropped there."""
    source = """\
import torch

if False:
    color = torch.ones(3).float().cuda() * 0.8
"""
    found = lint_source(source, "train.py", codes=["TPL101"])
    assert [(f.code, f.line, f.col, f.message, f.fix) for f in found] == [
        ("TPL101", 4, 12, "tensor is created on the CPU and then copied to the device; pass `device=` to "
                          "`torch.ones(...)` to create it there (runtime_guard: device-native creation)", None)]


# -- R47.8: a container returned up the chain to a framework step ----------------------------------

RETURNED_STATS = """\
import numpy as np
import torch
import pytorch_lightning as pl


class Standard(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        metrics = self._get_all_metrics(batch)
        self.log("train/loss", metrics["loss"], on_step=False, on_epoch=True)
        return metrics

    def _get_all_metrics(self, batch):
        x, y = batch
        logits = self.model(x)
        loss = self.loss(logits, y)
        with torch.no_grad():
            stats = self._get_stats(logits, y)
        stats["loss"] = loss
        return {returned}

    def _get_stats(self, logits, y):
        preds = torch.argmax(logits, dim=1)
        return {"preds": preds.cpu(), "y": y.cpu()}
"""


def test_copies_returned_up_to_a_lightning_step_are_for_its_framework():
    """stability (holdout85): ``_get_stats`` returns numpy copies; ``_get_all_metrics`` returns them
    (``stats = self._get_stats(...)``, ``return stats``); ``training_step`` returns that to Lightning
    for its epoch-end tracking: a container the step returns to its framework (rules.md "A step
    body")."""
    assert _found(RETURNED_STATS.replace("{returned}", "stats")) == []


def test_copies_a_caller_does_not_return_are_per_step_syncs():
    """The caller keeps its own dict: the copies go nowhere the framework sees."""
    chain = " (called every step from train.py:8 via training_step → _get_all_metrics)"
    assert _found(RETURNED_STATS.replace("{returned}", '{"loss": loss}')) == [
        ("TPL102", 23, 25, SYNC.format(what="`.cpu()`") + chain),
        ("TPL102", 23, 43, SYNC.format(what="`.cpu()`") + chain)]



# -- R47.9: a loop inside a branch taken only on a non-finite value runs only then ---------------------

NAN_REPORT = """\
import torch
import pytorch_lightning as pl


class Enhancement(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        mix, target = batch
        losses = self.losses(self(mix), target)
        train_loss = sum(losses.values())
        if {test}:
            print("Found NaN!! Please investigate.")
            for lkey, lval in losses.items():
                print(f"- is {lkey} nan ?", torch.isnan(lval).any())
        return train_loss
"""


def test_a_report_in_a_loop_of_a_nan_branch_is_no_per_step_sync():
    """open-universe (holdout96): the NaN branch of ``training_step`` prints, loss by loss, which one
    is NaN; the loop runs only when the loss already is (R10), as its test is the per-step sync."""
    assert _found(NAN_REPORT.replace("{test}", "torch.isnan(train_loss)"), codes=("TPL102",)) == [
        ("TPL102", 10, 11, SYNC.format(what="testing a tensor's truth"))]


def test_the_same_loop_under_a_setting_prints_every_step():
    assert _found(NAN_REPORT.replace("{test}", "self.debug_losses")) == [
        ("TPL102", 13, 16, SYNC.format(what="printing a tensor"))]
