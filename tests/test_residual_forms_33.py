"""Forms of the thirty-third session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

from _diagnostics import CPU_CREATION_TEMPLATE, SYNC_TEMPLATE, found, rule_diagnostics

SHAKE = """\
import torch


def get_alpha_beta(batch_size, shake_config, device):
    forward_shake, backward_shake, shake_image = shake_config
    if forward_shake and not shake_image:
        alpha = torch.rand(1)
    elif forward_shake and shake_image:
        alpha = torch.rand(batch_size).view(batch_size, 1, 1, 1)
    else:
        alpha = torch.FloatTensor([0.5])
    alpha = alpha.to(device)
    return alpha
"""
RAND = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.rand(...)` "
        "to create it there (runtime_guard: device-native creation)")
LEGACY = ("tensor is created on the CPU by the legacy constructor `torch.FloatTensor(...)` and then copied "
          "to the device; create it there with `torch.tensor(..., dtype=torch.float32, device=...)`")


def test_a_factory_in_each_branch_of_an_if_elif_else_moved_after_it_is_reported_each_time():
    """pytorch_image_classification's ``get_alpha_beta`` (holdout190): each of the three paths makes
    its own host tensor, which the move after the ``if`` copies (R162; R93 kept only the first).
    No fix: each path's tensor needs the move."""
    assert rule_diagnostics(SHAKE, "TPL101") == [
        (7, 16, RAND, None, None), (9, 16, RAND, None, None), (11, 16, LEGACY, None, None)]


def test_a_branch_binding_no_fresh_tensor_or_a_use_first_is_left_out():
    """A branch that binds something else (a tensor handed in) makes no host tensor; a branch that
    uses its tensor before the move (``alpha += 1``) works on it where it is: the whole reading
    stops, as R93's did."""
    handed = SHAKE.replace("        alpha = torch.rand(batch_size).view(batch_size, 1, 1, 1)\n",
                           "        alpha = shake_config[0]\n")
    assert rule_diagnostics(handed, "TPL101") == [(7, 16, RAND, None, None), (11, 16, LEGACY, None, None)]
    used = SHAKE.replace("        alpha = torch.FloatTensor([0.5])\n",
                         "        alpha = torch.FloatTensor([0.5])\n        alpha += 1\n")
    assert rule_diagnostics(used, "TPL101") == []
    moved_inside = SHAKE.replace("        alpha = torch.FloatTensor([0.5])\n    alpha = alpha.to(device)\n",
                                 "        alpha = torch.FloatTensor([0.5])\n        alpha = alpha.to(device)\n")
    assert rule_diagnostics(moved_inside, "TPL101") == []


TOKEN_ACC = """\
import torch


class TokenAccMetric:
    def __init__(self, pad_token_id=0):
        self.pad_token_id = pad_token_id
        self.token_acc = []

    def add(self, tgt_seqs, preds):
        shape_diff = preds.shape[1] - tgt_seqs.shape[1]
        if shape_diff < 0:
            preds = torch.nn.functional.pad(preds, (0, -shape_diff), "constant", self.pad_token_id)
        elif shape_diff > 0:
            tgt_seqs = torch.nn.functional.pad(tgt_seqs, (0, shape_diff), "constant", self.pad_token_id)
        tok_acc = (preds == tgt_seqs).float()
        self.token_acc.append(tok_acc.mean().item())


def train(model, loader, opt):
    metric = TokenAccMetric()
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        out = model(x)
        out.mean().backward()
        opt.step()
        metric.add({target}, {prediction})
"""
CPU = SYNC_TEMPLATE.format(what="`.cpu()`")
TRUTH = SYNC_TEMPLATE.format(what="testing a tensor's truth")
PRINT = SYNC_TEMPLATE.format(what="printing a tensor")
ITEM = SYNC_TEMPLATE.format(what="`.item()`")


def test_a_pad_of_host_copies_with_a_fill_value_of_unknown_kind_stays_on_the_host():
    """nougat-latex-ocr's ``TokenAccMetric.add`` (holdout186): its only caller hands it ``.cpu()``
    copies (the waits are there), and ``F.pad(preds, ..., "constant", self.pad_token_id)`` pads them
    on the host whatever the fill value's name holds: the ``.item()`` reads a host tensor (R163)."""
    copies = TOKEN_ACC.format(target="y.cpu()", prediction="out.argmax(-1).cpu()")
    assert found(copies) == [("TPL102", 26, 19, CPU), ("TPL102", 26, 28, CPU)]


def test_a_pad_of_a_device_tensor_stays_on_the_device():
    """Handed the device tensors themselves, the padded tensors are on the device and the
    ``.item()`` waits every step (the wait moves into the helper)."""
    device = TOKEN_ACC.format(target="y", prediction="out.argmax(-1)")
    assert found(device) == [
        ("TPL102", 16, 30, ITEM + " (called every step from train.py:26)")]


HALTON = """\
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def get_network(self, model):
        return DDP(model, device_ids=[0])

    def train_one_epoch(self):
        for i_bar, data in enumerate(self.train_data):
            update_grad = (i_bar % self.args.grad_cum) == self.args.grad_cum - 1
            pred = self.vit(data)
            loss = pred.mean() / self.args.grad_cum
            loss.backward()
            if update_grad:
                self.optim.step()
                self.optim.zero_grad(set_to_none=True)
"""


def test_accumulation_under_a_name_that_holds_the_interval_test_is_reported():
    """Halton-MaskGIT's ``train_one_epoch`` (holdout192): ``update_grad = (i % accum) == accum - 1``,
    then ``if update_grad: optim.step()`` on a DDP model: every backward all-reduces (R164)."""
    from torchperf_lint.rules.tpl207_ddp_accumulation_without_no_sync import DdpAccumulationWithoutNoSync

    assert rule_diagnostics(HALTON, "TPL207") == [(14, 12, DdpAccumulationWithoutNoSync.message, None, None)]


def test_a_flag_that_is_no_interval_or_a_no_sync_keeps_it_silent():
    """The name holds no interval test (a setting: the step runs every time round it is set), or the
    module controls DDP's sync itself: nothing is accumulated over all-reduces."""
    setting = HALTON.replace("update_grad = (i_bar % self.args.grad_cum) == self.args.grad_cum - 1",
                             "update_grad = self.args.update")
    assert rule_diagnostics(setting, "TPL207") == []
    synced = HALTON.replace("            loss.backward()\n",
                            "            with self.vit.no_sync():\n                loss.backward()\n")
    assert rule_diagnostics(synced, "TPL207") == []


EPOCHS = """\
import torch


def train(data_loader, model, optimizer):
    for images, _ in data_loader:
        loss = model(images).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def test(data_loader, model):
    with torch.no_grad():
        loss_recons = 0.
        for images, _ in data_loader:
            loss_recons += model(images).mean()
        loss_recons /= len(data_loader)
    return loss_recons.item()


def generate_samples(images, model):
    with torch.no_grad():
        return model(images)


def main(model, train_loader, valid_loader, test_loader, optimizer, n):
    for epoch in range(n):
        train(train_loader, model, optimizer)
        loss_rec = test(valid_loader, model)
        images, _ = {draw}
        rec = generate_samples(images, model)
"""


def test_a_first_batch_drawn_with_next_iter_each_epoch_makes_no_step_loop():
    """CVQ-VAE's epoch loop (holdout192) trains and evaluates through its helpers and draws
    ``next(iter(test_loader))`` once per epoch for its reconstructions: a fresh iterator's first
    batch is a sample, not a stream of steps (R165), so ``test``'s ``.item()`` after its own loop runs
    once per epoch."""
    assert found(EPOCHS.format(draw="next(iter(test_loader))")) == []
    logged = EPOCHS.format(draw="next(iter(test_loader))") + "        print(rec.mean().item())\n"
    assert found(logged) == []  # (the loop's own body: once per epoch too)
    warmed = logged.replace("    for epoch in range(n):\n",
                            "    for x, _ in train_loader:\n        model(x).mean().backward()\n    for epoch in range(n):\n")
    assert found(warmed) == []  # (beside a step loop of the same function: the walk's own reading)


def test_a_persistent_iterator_still_streams_batches():
    """``next(batches)`` of an iterator made once takes the next batch each time round: the loop
    iterates the loader, and what it calls runs every step (rules.md "A step loop")."""
    streaming = EPOCHS.format(draw="next(batches)").replace(
        "    for epoch in range(n):\n", "    batches = iter(test_loader)\n    for epoch in range(n):\n")
    assert found(streaming) == [("TPL102", 18, 11, ITEM + " (called every step from train.py:30)")]


FIRST_PLOTS = """\
import torch


def plot_mel(y):
    if torch.min(y) < -1.:
        print("min value is", torch.min(y))
    return y


def train(model, loader, optimizer, args):
    for j, batch in enumerate(loader):
        y = batch.cuda()
        loss = model(y).mean()
        loss.backward()
        optimizer.step()
        if {test}:
            plot_mel(y)
            print(loss.item())
"""


def test_the_loop_counter_below_a_setting_picks_the_first_few_steps():
    """xcodec's validation (holdout196) plots the first ``args.num_plots`` batches: ``j <
    args.num_plots`` picks the first few times round, as ``j < 5`` does (R166); neither the helper's
    range test nor the ``.item()`` beside it runs every step."""
    assert found(FIRST_PLOTS.format(test="j < args.num_plots")) == []
    assert found(FIRST_PLOTS.format(test="j < args.num_plots and args.plot")) == []
    assert found(FIRST_PLOTS.format(test="args.num_plots > j")) == []


def test_a_bound_that_is_no_number_or_a_value_that_is_no_counter_keeps_the_findings():
    """A bound the loop computes (``j < len(batch)``: every step when batches are long) or a compared
    value that is not the loop's counter (``loss_scale < args.max_scale``) picks no first steps."""
    expected = [
        ("TPL102", 5, 7, TRUTH + " (called every step from train.py:17)"),
        ("TPL102", 6, 8, PRINT + " (called every step from train.py:17)"),
        ("TPL102", 18, 18, ITEM),
    ]
    assert found(FIRST_PLOTS.format(test="j < len(batch)")) == expected
    assert found(FIRST_PLOTS.format(test="args.scale < args.max_scale")) == expected


GET_MASK = """\
import torch


def get_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max())
    batch_size = lengths.size(0)
    seq_range = torch.arange(0, max_len).long()
    seq_range_expand = seq_range.unsqueeze(0).expand(batch_size, max_len).to(lengths.device)
    seq_length_expand = lengths.unsqueeze(1).expand_as(seq_range_expand)
    return (seq_range_expand < seq_length_expand).float()
"""
ARANGE = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.arange(...)` "
          "to create it there (runtime_guard: device-native creation)")


def test_a_factory_moved_into_another_name_at_its_one_read_is_reported():
    """ppg-vc's ``MaskedMSELoss.get_mask`` (holdout196): ``seq_range`` is made on the host and read
    once, by the move bound to ``seq_range_expand`` (R167). No fix: creation and move are apart."""
    assert rule_diagnostics(GET_MASK, "TPL101") == [(8, 16, ARANGE, None, None)]


def test_a_factory_read_again_after_the_move_is_kept_where_it_is():
    """The host tensor is read again after the copy (``seq_range.numel()``): it is used on the host,
    and making it on the device would change that use."""
    kept = GET_MASK.replace("    return (seq_range_expand", "    print(seq_range.numel())\n    return (seq_range_expand")
    assert rule_diagnostics(kept, "TPL101") == []


EARLY_RETURN = """\
import torch
from torch import nn


KEPT = []


def knn_interpolate(x, pos):
    KEPT.append(x.cpu())
    return x


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, batch):
        logits = self.fc(x)
        if {test}:
            return logits
        scores = logits.softmax(-1).cpu()
        return knn_interpolate(logits, scores)


def train(loader, optimizer):
    model = Head().cuda()
    for x, b in loader:
        out = model(x.cuda(), b)
        out.mean().backward()
        optimizer.step()
"""


def test_what_follows_a_return_in_training_runs_only_in_evaluation():
    """myria3d's ``Model.forward`` (holdout194) returns at once ``if self.training or "copies" not in
    batch``: the copies after it (and those of the helper it calls there) run only in evaluation,
    R8's evaluation branch (R168)."""
    assert found(EARLY_RETURN.format(test="self.training")) == []
    assert found(EARLY_RETURN.format(test='self.training or "copies" not in batch')) == []


def test_a_return_that_training_does_not_take_keeps_the_copies():
    """A test that holds in evaluation (``not self.training``), one of unknown sense (``batch.flag``),
    or an ``and`` that training may fail (``self.training and batch.flag``): what follows runs in
    training steps, every step."""
    expected = [("TPL102", 9, 16, CPU + " (called every step from train.py:29 via forward)"),
                ("TPL102", 22, 17, CPU + " (called every step from train.py:29)")]
    for test in ("not self.training", "batch.flag", "self.training and batch.flag"):
        assert found(EARLY_RETURN.format(test=test)) == expected, test


JITTERS = """\
import pytorch_lightning as pl
import torch


class JBUFeatUp(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        img, _ = batch
        full_crf_loss = 0.0
        for i in range(self.n_jitters):
            rec_loss = self.upsampler(img).square().mean()
            if self.crf_weight > 0 and i == 0:
                crf_loss = self.crf(img)
                full_crf_loss += crf_loss.item()
            else:
                crf_loss = 0.0
            self.manual_backward(rec_loss + crf_loss)
        self.log("crf", full_crf_loss)
        opt.step()
        opt.zero_grad()
"""


def test_manual_backward_passes_before_one_optimizer_step_make_no_steps_of_their_own():
    """FeatUp's ``training_step`` (holdout194) backpropagates each jitter with ``manual_backward``
    and steps the optimizer once after the loop: the passes accumulate one step, so ``i == 0`` holds
    once in every step and its ``.item()`` waits every step (R169; R69's search iterations step the
    optimizer in each pass, or nowhere else)."""
    assert found(JITTERS) == [("TPL102", 14, 33, ITEM)]


def test_manual_backward_passes_with_no_step_outside_stay_steps_of_their_own():
    """The optimizer stepped inside the loop (each pass an update: rl4co's active search), or nowhere
    in the function: the passes are steps, and ``i == 0`` picks one of them."""
    inside = JITTERS.replace("            self.manual_backward(rec_loss + crf_loss)\n",
                             "            self.manual_backward(rec_loss + crf_loss)\n            opt.step()\n")
    inside = inside.replace("        opt.step()\n        opt.zero_grad()\n", "")
    assert found(inside) == []
    nowhere = JITTERS.replace("        opt.step()\n        opt.zero_grad()\n", "")
    assert found(nowhere) == []


GATHER = """\
import torch as th
import torch.distributed as dist


def update_with_local_losses(local_ts, local_losses, batch_sizes):
    max_bs = max(batch_sizes)
    loss_batches = [th.zeros(max_bs).to(local_losses) for bs in batch_sizes]
    dist.all_gather(loss_batches, {handed})
    return loss_batches
"""


def test_a_name_handed_to_a_collective_is_a_tensor_for_r4():
    """CogACT's loss-aware timestep sampler (holdout195): ``local_losses`` is used only as the
    tensor ``dist.all_gather`` gathers, so ``th.zeros(n).to(local_losses)`` moves a host tensor to
    its device (R170, R4's evidence of a tensor). The fix makes it there and keeps the cast."""
    fixed = "create the tensor with device=local_losses.device"
    assert rule_diagnostics(GATHER.format(handed="local_losses"), "TPL101") == [
        (7, 20, "tensor is created on the CPU and then copied to the device of `local_losses`; pass "
                "`device=local_losses.device` to `torch.zeros(...)` to create it there (the "
                "`.to(local_losses)` then only casts)", "safe", fixed)]


def test_a_name_handed_to_an_object_collective_or_not_at_all_is_not_known_a_tensor():
    """``all_gather_object`` takes any Python object, and a name the function never uses as a tensor
    may be a device or a dtype: ``.to(local_losses)`` says nothing then."""
    assert rule_diagnostics(GATHER.format(handed="local_ts"), "TPL101") == []
    objects = GATHER.format(handed="local_losses").replace("dist.all_gather(", "dist.all_gather_object(")
    assert rule_diagnostics(objects, "TPL101") == []


RESUMED = """\
import torch


def clip_norm(parameters):
    total = 0.0
    for p in parameters:
        total += p.grad.norm().item()
    return total


def train(model, loader, optimizer, args):
    global_step = 0
    for i, batch in enumerate(loader):
        if global_step < args.start_global_step:
            global_step += 1
            continue
        loss = model(batch.cuda()).mean()
        loss.backward()
        grad_norm = clip_norm(model.parameters())
        optimizer.step()
        print(loss.item())
"""


def test_a_resumed_run_skipping_its_first_steps_runs_every_later_step():
    """nougat-latex-ocr's resume (holdout186): ``if global_step < start_global_step: continue`` skips
    the steps a resumed run has done; what follows runs every later step, so R166's first steps are
    only what such an ``if``'s own body runs, never what follows its early exit."""
    assert found(RESUMED) == [
        ("TPL102", 7, 17, ITEM + " (called every step from train.py:19)"),
        ("TPL102", 21, 14, ITEM)]


FIRST_SKIPPED = """\
import torch


def log_norm(model):
    return model.weight.grad.norm().item()


def train(model, loader, optimizer):
    for i, batch in enumerate(loader):
        loss = model(batch.cuda()).mean()
        loss.backward()
        optimizer.step()
        if {test}:
            continue
        log_norm(model)
        print(loss.item())
"""


def test_what_follows_an_early_exit_at_the_first_steps_runs_every_later_step():
    """``if i == 0: continue`` (or ``i < 5``) skips the first steps only: what follows runs at every
    later one, in the loop and in the helper it calls (R171; before it, such a test made what
    followed an interval, as ``if i % 10: continue`` does)."""
    expected = [("TPL102", 5, 11, ITEM + " (called every step from train.py:15)"),
                ("TPL102", 16, 14, ITEM)]
    assert found(FIRST_SKIPPED.format(test="i == 0")) == expected
    assert found(FIRST_SKIPPED.format(test="i < 5")) == expected


def test_what_follows_an_early_exit_off_the_interval_runs_at_the_interval():
    """``if i % 10: continue``: what follows runs every ten steps, the remedy (rules.md "An interval")."""
    assert found(FIRST_SKIPPED.format(test="i % 10")) == []


RUN_TIME_DEVICE = """\
import torch


class RevIN(torch.nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.num_features = num_features
        self.affine_weight = torch.ones(self.num_features)
        self.affine_weight = self.affine_weight.to(device=torch.device({device}))


def make_offsets(n):
    return torch.arange(n).to(torch.device({device}))
"""
RUN_TIME = "'cuda:0' if torch.cuda.is_available() else 'cpu'"


def test_a_device_chosen_at_run_time_inline_is_a_move():
    """KDD2023-DCdetector's RevIN (holdout198) moves with ``.to(device=torch.device('cuda:0' if
    torch.cuda.is_available() else 'cpu'))``: the accelerator wherever there is one, a move as ``.to(
    device)`` with that device in a name is (R172). The direct form gets the safe fix, whose code
    runs (here on the CPU) and gives the same tensor; a second pass changes nothing."""
    from torchperf_lint.engine import fix_source

    source = RUN_TIME_DEVICE.format(device=RUN_TIME)
    ones = CPU_CREATION_TEMPLATE.format(factory="ones")
    arange = CPU_CREATION_TEMPLATE.format(factory="arange")
    assert rule_diagnostics(source, "TPL101") == [
        (8, 29, ones, None, None),
        (13, 11, arange, "safe", f"create the tensor with device=torch.device({RUN_TIME})")]
    fixed, applied = fix_source(source, codes=["TPL101"])
    assert applied == 1 and f"torch.arange(n, device=torch.device({RUN_TIME}))" in fixed
    assert fix_source(fixed, codes=["TPL101"]) == (fixed, 0)
    namespace = {}
    exec(compile(fixed, "<fixed>", "exec"), namespace)
    assert namespace["make_offsets"](4).tolist() == [0, 1, 2, 3]


def test_a_choice_between_the_host_and_an_unknown_place_is_no_move():
    """Both branches on the host, or one of them a device the linter cannot read: nothing known to
    reach the accelerator, nothing reported."""
    for device in ("'cpu' if torch.cuda.is_available() else 'cpu'", "'cpu' if flag else other"):
        assert rule_diagnostics(RUN_TIME_DEVICE.format(device=device).replace("(n):", "(n, flag=0, other=None):"),
                                "TPL101") == [], device


MICRO_BATCHES = """\
import torch


class Worker:
    def _optimizer_step(self):
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=1.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return grad_norm.item()


class Actor(Worker):
    def ppo_update(self, batches):
        for batch in batches:
            for minibatch in batch:
                loss = self.model(minibatch).mean()
                loss.backward()
            grad_norm = self.{step}()
"""


def test_a_loop_whose_body_steps_the_optimizer_by_name_runs_a_step_each_time_round():
    """RL2's ``FSDPActor.ppo_update`` (holdout199): each batch accumulates the backward of its micro
    batches, then ``self._optimizer_step()`` (a project base's method named for the step) updates:
    the batch loop runs a step each time round, not an epoch (R173), and the norm's ``.item()`` in
    the base method waits every step."""
    assert found(MICRO_BATCHES.format(step="_optimizer_step")) == [
        ("TPL102", 9, 15, ITEM + " (called every step from train.py:18)")]
    logged = MICRO_BATCHES.format(step="_optimizer_step") + "            print(loss.item())\n"
    assert found(logged) == [("TPL102", 9, 15, ITEM + " (called every step from train.py:18)"),
                             ("TPL102", 19, 18, ITEM)]


def test_a_call_not_named_for_the_step_leaves_the_batch_loop_an_epoch():
    """A method named otherwise that steps no optimizer (``self._report()``: a norm for the log): the
    batch loop stays epoch-level, its nested loop the step loop, and the report once per pass."""
    reported = MICRO_BATCHES.format(step="_report").replace("def _optimizer_step(self):", "def _report(self):")
    reported = reported.replace("        self.optimizer.step()\n        self.optimizer.zero_grad()\n", "")
    assert found(reported) == []


COPIED_TRAINER_LOOP = """\
import torch
from transformers import Trainer


class LMMTrainer(Trainer):
    def _inner_training_loop(self, batch_size=None, args=None):
        tr_loss = torch.tensor(0.0).to(args.device)
        for step, inputs in enumerate(self.get_train_dataloader()):
            tr_loss += self.training_step(self.model, inputs)
            self.optimizer.step()
            self._maybe_log_save_evaluate(tr_loss)

    def _maybe_log_save_evaluate(self, tr_loss):
        if {test}:
            tr_loss_scalar = self._nested_gather(tr_loss).mean().item()
            self.log({{"loss": tr_loss_scalar}})
"""


def test_the_trainer_control_flags_are_intervals():
    """MM-Interleaved copies the HF Trainer's loop (holdout197): ``if self.control.should_log:`` is
    set by the callback handler every ``logging_steps``, an interval (R174), also for
    ``should_evaluate`` and ``should_save``."""
    for flag in ("should_log", "should_evaluate", "should_save"):
        assert found(COPIED_TRAINER_LOOP.format(test=f"self.control.{flag}")) == [], flag
    # (a helper called there is no per-step call either: the index reads the flag alike)
    helper = COPIED_TRAINER_LOOP.format(test="self.control.should_log").replace(
        "            tr_loss_scalar = self._nested_gather(tr_loss).mean().item()\n",
        "            tr_loss_scalar = mean_loss(tr_loss)\n") + "\n\ndef mean_loss(t):\n    return t.mean().item()\n"
    assert found(helper) == []


def test_another_flag_of_the_control_or_a_setting_is_no_interval():
    """``self.control.should_training_stop`` (set once) or a setting (``self.args.verbose``): the
    ``.item()`` runs every step it is on."""
    for test in ("self.control.should_training_stop", "self.args.verbose"):
        assert found(COPIED_TRAINER_LOOP.format(test=test)) == [
            ("TPL102", 15, 29, ITEM + " (called every step from train.py:11)")], test


PRIOR_SCORES = """\
from typing import List

import torch
from torch import nn


class InteractionHead(nn.Module):
    def __init__(self, object_class_to_target_class: {annotation}):
        super().__init__()
        self.object_class_to_target_class = object_class_to_target_class
        self.fc = nn.Linear(4, 4)

    def forward(self, x, object_class):
        target_cls_idx = [self.object_class_to_target_class[obj.item()] for obj in object_class]
        return self.fc(x), target_cls_idx


def train(loader, optimizer):
    model = InteractionHead([[0], [1]]).cuda()
    for x, classes in loader:
        out, _ = model(x.cuda(), classes.cuda())
        out.mean().backward()
        optimizer.step()
"""


def test_an_attribute_handed_in_as_an_annotated_list_is_a_python_container():
    """UPT's interaction head (holdout165) keeps ``object_class_to_target_class: List[list]`` from
    ``__init__`` and indexes it with ``obj.item()``: the index of a Python list is needed on the
    host (R3, R31's container lookup; R175)."""
    for annotation in ("List[list]", "list", "typing_List"):
        source = PRIOR_SCORES.format(annotation=annotation.replace("typing_List", "List"))
        assert found(source) == [], annotation


def test_an_attribute_handed_in_without_a_container_annotation_is_of_unknown_kind():
    """Annotated as a tensor, or not at all: indexing it with ``.item()`` may be a device lookup."""
    for annotation in ("torch.Tensor", "object"):
        assert found(PRIOR_SCORES.format(annotation=annotation)) == [
            ("TPL102", 14, 60, ITEM + " (called every step from train.py:21)")], annotation


METERS = """\
import torch
from collections import defaultdict


class SmoothedValue:
    def __init__(self):
        self.total = 0.0

    def update(self, value):
        self.total += value


class MetricLogger:
    def __init__(self):
        self.meters = defaultdict(SmoothedValue)

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            self.meters[k].update(v)


def train(model, loader, optimizer):
    {made}
    for x in loader:
        loss = model(x.cuda()).mean()
        loss.backward()
        optimizer.step()
        {call}
"""


def test_a_call_on_an_instance_of_one_class_reaches_that_class_s_method_only():
    """DETR-style meters (MM-Interleaved, holdout197; Mugs, holdout183): the step loop updates a
    ``SmoothedValue``; ``MetricLogger.update``, a method of the same name that no step calls, runs no
    step, and its ``kwargs.items()`` loop is no step loop (R176)."""
    assert found(METERS.format(made="meter = SmoothedValue()", call="meter.update(loss.detach())")) == []


def test_a_call_on_an_instance_of_the_logger_still_reaches_its_update():
    """The step loop calls ``logger.update(loss=loss)`` on the ``MetricLogger`` itself: its loop runs
    every step and reads ``.item()`` of the device loss."""
    assert found(METERS.format(made="logger = MetricLogger()", call="logger.update(loss=loss)")) == [
        ("TPL102", 20, 20, ITEM + " (called every step from train.py:30)")]
