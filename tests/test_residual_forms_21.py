"""Forms the end measure of the twentieth session left false (2026-11-28, the twenty-first session,
reading R48): each with its flagged twin, whole diagnostics."""

from _diagnostics import CPU_SYNC, EMPTY_CACHE, ITEM_SYNC, SYNC_TEMPLATE as SYNC, found as _found


# -- R48: a copy made into a numpy array by a helper that a step body calls ----------------------

HELPER = """\
import numpy as np
import torch


def iou_score(output, target):
    output = torch.sigmoid(output).data.cpu().numpy()
    target = {target}
    return score(output > 0.5, target)


for x, y in loader:
    x, y = x.cuda(), y.cuda()
    out = model(x)
    loss = criterion(out, y)
    iou = iou_score(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
CHAIN = " (called every step from train.py:15)"


def test_numpy_copies_in_a_helper_called_every_step_are_host_work():
    """pytorch-nested-unet's ``iou_score`` (holdout67): the helper copies the output and target into
    numpy arrays to compute on the host; a helper one call away does host work value flow no
    longer follows (R3 via R48)."""
    assert _found(HELPER.replace("{target}", "target.data.cpu().numpy()")) == []
    assert _found(HELPER.replace("{target}", "target.detach().cpu().data.numpy()")) == []


def test_a_copy_left_a_tensor_in_the_helper_is_still_reported():
    """``.cpu()`` without numpy (a CPU tensor kept for logging) is no sign of host work."""
    assert _found(HELPER.replace("{target}", "target.cpu()")) == [("TPL102", 7, 13, CPU_SYNC + CHAIN)]


def test_a_metric_copied_into_numpy_in_a_helper_is_still_reported():
    """A loss or metric copied to numpy is a metric's read (EDGE's ``loss.detach().cpu().numpy()``):
    the remedy, keeping it on the device, holds wherever it is copied."""
    source = HELPER.replace("    target = {target}\n", "    loss_np = target_loss.detach().cpu().numpy()\n")
    assert _found(source) == [("TPL102", 7, 14, CPU_SYNC + CHAIN)]
    source = HELPER.replace("    target = {target}\n", "    v = (output_acc).clone().detach().cpu().numpy()\n")
    assert _found(source) == [("TPL102", 7, 8, CPU_SYNC + CHAIN)]


def test_a_numpy_copy_read_as_a_number_in_a_helper_is_still_reported():
    """Rethinking_of_PAR's ``vt.detach().cpu().numpy().flatten().item()``: a number, like ``.item()``."""
    source = HELPER.replace("    target = {target}\n", "    v = target.detach().cpu().numpy().flatten().item()\n")
    assert _found(source) == [("TPL102", 7, 8, CPU_SYNC + CHAIN)]


def test_a_numpy_copy_in_the_step_loop_itself_is_still_reported():
    """In the loop (or a framework step method) value flow reads where the copy goes: R48 is for
    helpers only."""
    source = """\
import torch

for x, y in loader:
    x = x.cuda()
    pred = model(x)
    loss = criterion(pred, y.cuda())
    preds.append(pred.data.cpu().numpy())
    loss.backward()
    optimizer.step()
"""
    assert _found(source) == [("TPL102", 7, 17, CPU_SYNC)]


def test_a_numpy_copy_in_a_lightning_step_method_is_still_reported():
    source = """\
import torch
import lightning as L


class Model(L.LightningModule):
    def training_step(self, batch, batch_idx):
        out = self.net(batch["x"])
        self.kept.append(out.detach().cpu().numpy())
        return out.mean()
"""
    assert _found(source) == [("TPL102", 8, 25, CPU_SYNC)]


def test_a_numpy_copy_shown_or_computed_from_a_loss_in_a_helper_is_still_reported():
    """PPLM's ``print(' pplm_loss', (loss - kl_loss).data.cpu().numpy())`` in ``perturb_past``
    (holdout78): printed, and computed from a loss: a metric's read."""
    source = HELPER.replace("    target = {target}\n", "    print('kl', (output_loss - kl).data.cpu().numpy())\n")
    assert _found(source) == [("TPL102", 7, 16, CPU_SYNC + CHAIN)]
    source = HELPER.replace("    target = {target}\n", "    m = (output_loss - kl).data.cpu().numpy()\n")
    assert _found(source) == [("TPL102", 7, 8, CPU_SYNC + CHAIN)]
    source = HELPER.replace("    target = {target}\n", "    print('v', (target - kl).data.cpu().numpy())\n")
    assert _found(source) == [("TPL102", 7, 15, CPU_SYNC + CHAIN)]


def test_a_converter_that_returns_the_numpy_copy_is_still_reported():
    """``def to_numpy(t): return t.cpu().detach().numpy()`` does no host work of its own: what its
    callers do with the array decides (mace logs its loss with it; tests/project/test_r8_chains.py)."""
    source = HELPER.replace("    target = {target}\n    return score(output > 0.5, target)\n",
                            "    return target.cpu().detach().numpy()\n")
    assert _found(source) == [("TPL102", 7, 11, CPU_SYNC + " (called every step from train.py:14)")]


def test_an_item_of_a_record_goes_by_its_key():
    """``batch["errs"][mask].cpu().numpy()`` copies the record's errors, a metric (LoFTR's
    ``_compute_metrics`` twin, tests/test_r7_reach.py); ``batch["coords"]`` is no metric."""
    source = HELPER.replace("    target = {target}\n", "    e = target[\"errs\"][target[\"ids\"] == 0].cpu().numpy()\n")
    assert _found(source) == [("TPL102", 7, 8, CPU_SYNC + CHAIN)]
    source = HELPER.replace("    target = {target}\n", "    e = target[\"coords\"][target[\"ids\"] == 0].cpu().numpy()\n")
    assert _found(source) == []


# -- R49: a return under a flag the framework never hands --------------------------------------

METRICS_FLAG = """\
import torch
from transformers import Trainer


class CalibrationTuner(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, {flag}=False):
        lm_loss = model(**inputs).loss
        q_loss = lm_loss * 2
        loss_metrics = {
            "lm_loss": lm_loss.detach().item(),
            "q_loss": q_loss.detach().item(),
        }
        if {flag}:
            return loss_metrics
        loss = lm_loss + q_loss
        return (loss, None) if return_outputs else loss
"""


def test_a_container_returned_only_under_a_flag_the_trainer_never_hands_is_no_framework_return():
    """calibration-tuning's ``compute_loss`` (holdout97): ``if return_metrics: return loss_metrics``;
    the HF Trainer calls it without ``return_metrics``, so on its path the dict of ``.item()``s is
    built every step and returned to no one."""
    assert _found(METRICS_FLAG.replace("{flag}", "return_metrics")) == [
        ("TPL102", 10, 23, ITEM_SYNC), ("TPL102", 11, 22, ITEM_SYNC)]


def test_a_container_returned_under_return_outputs_is_no_framework_return_in_training():
    """``return_outputs`` is the Trainer's own argument, but only its evaluation (``prediction_step``)
    passes True: its ``training_step`` leaves it False, so the dict of ``.item()``s is built every
    training step and handed to no one there (R113, revising this test's earlier reading of R49)."""
    source = METRICS_FLAG.replace(", {flag}=False", "").replace("{flag}", "return_outputs")
    assert _found(source) == [("TPL102", 10, 23, ITEM_SYNC), ("TPL102", 11, 22, ITEM_SYNC)]


def test_a_numpy_copy_compared_in_a_helper_is_still_reported():
    """cem's ``if self.current_steps.detach().cpu().numpy()[0] < self.rollout_init_steps:`` in a loss
    helper of ``training_step`` (holdout97): a number read for a decision, as ``.item()`` is."""
    source = HELPER.replace("    target = {target}\n", "    if target.detach().cpu().numpy()[0] < 3:\n        output = 0\n")
    chain = " (called every step from train.py:16)"
    assert _found(source) == [("TPL102", 7, 7, CPU_SYNC + chain)]
    source = HELPER.replace("    target = {target}\n", "    if not target.cpu().numpy().any():\n        output = 0\n")
    assert _found(source) == [("TPL102", 7, 11, CPU_SYNC + chain)]


# -- a try around the freeing call alone retries nothing -----------------------------------------

GUARDED_EMPTY_CACHE = """\
import torch

for step, batch in enumerate(loader):
    loss = model(batch.cuda()).mean()
    loss.backward()
    if (step + 1) % accumulation_steps == 0:
        optimizer.step()
        model.zero_grad()
        if device.type == "cuda":
            try:
                {guarded}
            except:
                pass
"""


def test_a_try_around_empty_cache_alone_makes_no_retry_loop():
    """transformer-uncertainty's copy of run_glue (holdout97): ``try: torch.cuda.empty_cache()
    except: pass`` after every optimizer step guards the call and tries nothing again: TPL103."""
    assert _found(GUARDED_EMPTY_CACHE.replace("{guarded}", "torch.cuda.empty_cache()"), codes=("TPL103",)) == [
        ("TPL103", 11, 16, EMPTY_CACHE)]
    source = GUARDED_EMPTY_CACHE.replace("{guarded}", "gc.collect(); torch.cuda.empty_cache()")
    assert _found(source, codes=("TPL103",)) == [("TPL103", 11, 30, EMPTY_CACHE)]


def test_a_try_around_the_step_with_empty_cache_in_its_handler_is_recovery():
    """The step itself in the ``try``: a failed step is what the handler's freeing answers."""
    source = GUARDED_EMPTY_CACHE.replace("{guarded}", "out = model(batch.cuda())").replace(
        "                pass\n", "                torch.cuda.empty_cache()\n")
    assert _found(source, codes=("TPL103",)) == []


# -- R52: the accumulation boundary with a last-step disjunct runs at every update ---------------

RUN_GLUE_BOUNDARY = """\
import torch

for step, batch in enumerate(epoch_iterator):
    loss = model(batch.cuda()).mean()
    loss.backward()
    if {test}:
        optimizer.step()
        model.zero_grad()
        global_step += 1
        torch.cuda.empty_cache()
"""
LAST_OF_SHORT_EPOCH = ("(step + 1) % accumulation_steps == 0 or (\n"
                       "            len(epoch_iterator) <= accumulation_steps and (step + 1) == len(epoch_iterator))")


def test_the_accumulation_boundary_with_a_last_step_disjunct_runs_every_update():
    """run_glue's ``if (step + 1) % accum == 0 or (len(it) <= accum and step + 1 == len(it)):``
    around ``optimizer.step()`` (transformer-uncertainty, holdout97): the block runs at every
    optimizer update; the last-step comparison only adds a short epoch's last batch (R52)."""
    source = RUN_GLUE_BOUNDARY.replace("{test}", LAST_OF_SHORT_EPOCH)
    assert _found(source, codes=("TPL103",)) == [("TPL103", 11, 8, EMPTY_CACHE)]
    # the plain boundary, as before
    source = RUN_GLUE_BOUNDARY.replace("{test}", "(step + 1) % accumulation_steps == 0")
    assert _found(source, codes=("TPL103",)) == [("TPL103", 10, 8, EMPTY_CACHE)]


def test_a_last_step_block_without_the_optimizer_still_runs_once():
    """``if step % log_every == 0 or step + 1 == len(loader):`` holding no optimizer call is a
    logging or saving block: its empty_cache runs once per interval or at the end, silent."""
    source = RUN_GLUE_BOUNDARY.replace("{test}", "step % log_every == 0 or step + 1 == len(epoch_iterator)").replace(
        "        optimizer.step()\n        model.zero_grad()\n", "        save(model)\n")
    assert _found(source, codes=("TPL103",)) == []
    # and a last-step block alone, with the optimizer, still runs once
    source = RUN_GLUE_BOUNDARY.replace("{test}", "step + 1 == len(epoch_iterator)")
    assert _found(source, codes=("TPL103",)) == []


# -- R53: tensor-only methods of a value of unknown origin give a tensor, possibly on the device ---

EMBEDDING_NORM = """\
import torch


def train(text_encoder, loader, optimizer, index_updates):
    for step, batch in enumerate(loader):
        loss = text_encoder(batch.cuda()).mean()
        loss.backward()
        if step % accum_iter == 0:
            optimizer.step()
            optimizer.zero_grad()
            with torch.no_grad():
                current_norm = text_encoder.get_input_embeddings().weight[index_updates, :]{method}
                print(f"Current Norm : {current_norm}")
"""


def test_the_norm_of_a_parameter_of_unknown_origin_is_a_device_tensor():
    """Forget-Me-Not's textual-inversion loop (holdout102) prints the norm of the embeddings it
    trains after every optimizer update: ``.norm(dim=-1)`` is a tensor method no numpy array or Python
    value has, so its result is a tensor, and of an operand of unknown origin possibly on the device,
    as ``torch.norm(x)`` already was (rules.md "Where a value lives"; R53)."""
    assert _found(EMBEDDING_NORM.replace("{method}", ".norm(dim=-1)"), codes=("TPL102",)) == [
        ("TPL102", 13, 16, SYNC.format(what="printing a tensor"))]
    assert _found(EMBEDDING_NORM.replace("{method}", ".detach()"), codes=("TPL102",)) == [
        ("TPL102", 13, 16, SYNC.format(what="printing a tensor"))]


def test_a_method_numpy_arrays_have_too_keeps_the_unknown_silent():
    """``.sum()``, ``.mean()``: numpy arrays have them; an operand of unknown origin stays unknown."""
    assert _found(EMBEDDING_NORM.replace("{method}", ".sum()"), codes=("TPL102",)) == []


def test_the_norm_of_a_parameter_of_a_model_never_moved_is_on_the_host():
    """A model the file builds and never moves keeps its parameters on the host (a CPU script)."""
    source = """\
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    model(x).sum().backward()
    optimizer.step()
    print(model.fc.weight.norm(dim=-1))
"""
    assert _found(source, codes=("TPL102",)) == []
    assert _found(source.replace("model = Net()", "model = Net().cuda()"), codes=("TPL102",)) == [
        ("TPL102", 18, 4, SYNC.format(what="printing a tensor"))]


# -- R54: text is text, and ``i_batch`` counts batches --------------------------------------------

GENERATED_TEXT = """\
import torch

for step, batch in enumerate(loader):
    loss = model(batch.cuda()).mean()
    loss.backward()
    optimizer.step()
    outputs = {value}
    print(outputs)
"""


def test_string_methods_give_text_whatever_the_receiver_was_taken_for():
    """concept-ablation's prompt generation (holdout102): ``pipeline(messages)[0]["generated_text"]
    [-1]["content"].split("\\n")`` is a list of strings; no tensor splits by a string or has
    ``.lower()`` (R54)."""
    value = 'model(messages)[0]["generated_text"][-1]["content"].split("\\\\n")[1:-1]'
    assert _found(GENERATED_TEXT.replace("{value}", value), codes=("TPL102",)) == []
    assert _found(GENERATED_TEXT.replace("{value}", "model(messages)[0].strip().lower()"), codes=("TPL102",)) == []


def test_a_tensor_split_by_sizes_is_still_a_tensor():
    assert _found(GENERATED_TEXT.replace("{value}", "model(batch.cuda()).split(2)"), codes=("TPL102",)) == [
        ("TPL102", 8, 4, SYNC.format(what="printing a tensor"))]


FIRST_BATCH = """\
import torch

for epoch in range(epochs):
    for {counter}, sample_batched in enumerate(dataloader):
        loss = model(sample_batched.cuda()).mean()
        loss.backward()
        optimizer.step()
        if {counter} == 0:
            print("Loss: ", loss.item())
"""


def test_i_batch_is_a_batch_counter():
    """DSR's ``for i_batch, sample_batched in enumerate(dataloader):`` then ``if i_batch == 0:
    print(loss.item())`` (holdout101): the first batch of each epoch, once per epoch (rules.md "An
    interval"; R54)."""
    assert _found(FIRST_BATCH.replace("{counter}", "i_batch"), codes=("TPL102",)) == []
    assert _found(FIRST_BATCH.replace("{counter}", "i_layer"), codes=("TPL102",)) == [
        ("TPL102", 9, 28, ITEM_SYNC)]


# -- R55: the total norm clip_grad_norm_ returns is a tensor where the parameters are ------------

GRAD_NORM = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


model = Net(){moved}
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    model(x{moved}).sum().backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    stats = {{"grad_norm": float(grad_norm)}}
"""


def test_the_gradient_norm_is_a_tensor_of_the_device():
    """tdmpc's ``'grad_norm': float(grad_norm)`` after ``grad_norm = clip_grad_norm_(...)`` in every
    update (holdout105): the total norm is a tensor on the parameters' device (R55)."""
    source = GRAD_NORM.replace("{moved}", ".cuda()").replace("{{", "{").replace("}}", "}")
    assert _found(source, codes=("TPL102",)) == [("TPL102", 20, 26, SYNC.format(what="`float()` of a tensor"))]


def test_the_gradient_norm_of_a_model_never_moved_is_on_the_host():
    source = GRAD_NORM.replace("{moved}", "").replace("{{", "{").replace("}}", "}")
    assert _found(source, codes=("TPL102",)) == []


# -- R56: a parameter every per-step call leaves false closes an ``and`` at its first operand -----

CLOSED_CONJUNCTION = """\
import torch


def clip_grad_norm_(parameters, max_norm, clip_grad=True, error_if_nonfinite=False):
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.norm(torch.stack([torch.norm(g.detach(), 2) for g in grads]), 2)
    if clip_grad:
        if error_if_nonfinite and torch.logical_or(total_norm.isnan(), total_norm.isinf()):
            raise RuntimeError("non-finite")
    return total_norm


model = Net().cuda()
for x in loader:
    loss = model(x.cuda()).mean()
    loss.backward()
    clip_grad_norm_(model.parameters(), 1.0, clip_grad=True{more})
    optimizer.step()
"""
NONFINITE_CHAIN = " (called every step from train.py:17)"


def test_a_flag_left_at_its_false_default_closes_the_and_before_the_tensor():
    """Latte's copy of ``clip_grad_norm_`` (holdout109): ``if error_if_nonfinite and
    torch.logical_or(...)``, and no per-step call hands ``error_if_nonfinite``: ``and`` stops at the
    flag, the tensor is never tested in a step (R40 for an ``and``'s first operand; R56)."""
    assert _found(CLOSED_CONJUNCTION.replace("{more}", ""), codes=("TPL102",)) == []
    assert _found(CLOSED_CONJUNCTION.replace("{more}", ", error_if_nonfinite=False"), codes=("TPL102",)) == []


def test_a_flag_a_per_step_call_sets_or_hands_unknown_keeps_the_test():
    source = CLOSED_CONJUNCTION.replace("{more}", ", error_if_nonfinite=True")
    assert _found(source, codes=("TPL102",)) == [("TPL102", 8, 11, SYNC.format(what="testing a tensor's truth")
                                                  + NONFINITE_CHAIN)]
    source = CLOSED_CONJUNCTION.replace("{more}", ", error_if_nonfinite=strict")
    assert _found(source, codes=("TPL102",)) == [("TPL102", 8, 11, SYNC.format(what="testing a tensor's truth")
                                                  + NONFINITE_CHAIN)]
