"""Forms the first scores of holdout59-holdout62 got wrong (2026-11-27, the eighteenth session):
each with its flagged twin, whole diagnostics."""

from torchperf_lint.engine import lint_source

from _diagnostics import (
    CPU_CREATION_TEMPLATE as CPU_THEN_DEVICE,
    EMPTY_CACHE,
    PINNED_COPY as BLOCKING,
    SYNC_TEMPLATE as SYNC,
    found as _found,
)


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


LINE_SEARCH = """\
import torch


def search_step_size(policy, obs, loss_pi, theta_old, step_direction, loss_before, target_kl, total_steps=15):
    step_frac = 1.0
    for step in range(total_steps):
        set_param_values_to_model(policy, theta_old + step_frac * step_direction)
        with torch.no_grad():
            loss = loss_pi(obs)
            kl = kl_divergence(policy(obs)).mean()
        loss_improve = loss_before - loss
        if not torch.isfinite(loss):
            print("loss not finite")
        elif loss_improve.item() < 0:
            print("did not improve")
        elif kl > target_kl:
            print("violated KL constraint")
        else:
            {leave}
        step_frac *= 0.8
"""


def test_every_test_of_a_chain_whose_else_leaves_decides_the_loop_stop():
    """omnisafe's TRPO line search: ``if not finite: ... elif worse: ... elif kl too far: ...
    else: break``: each test picks whether the ``else`` runs and the search stops; the host must
    know every time round (rules.md: a value that decides whether a loop stops is host-needed)."""
    assert _found(LINE_SEARCH.replace("{leave}", "break")) == []


def test_a_chain_that_never_leaves_the_loop_syncs_every_time_round():
    source = LINE_SEARCH.replace("{leave}", "step_frac = 1.0")
    assert _found(source) == [
        ("TPL102", 12, 11, SYNC.format(what="testing a tensor's truth")),
        ("TPL102", 14, 13, SYNC.format(what="`.item()`")),
    ]


CUDA_EVENT_TIMING = """\
import numpy as np
import torch


def benchmark(model, data, r=100):
    timings = np.zeros((r, 1))
    starter = torch.cuda.Event(enable_timing=True)
    ender = torch.cuda.Event(enable_timing=True)
    with torch.no_grad():
        for rep in range(r):
            starter.record()
            _ = model(data)
            ender.record()
            torch.cuda.synchronize()
            {read}
    return timings
"""


def test_a_synchronize_before_a_cuda_event_timer_read_is_host_needed():
    """glue-factory's benchmark times each pass with CUDA events: ``synchronize()`` then
    ``starter.elapsed_time(ender)``; the wait is what makes the reading mean something (rules.md
    "Where a value lives": a ``synchronize()`` that brackets a timer)."""
    assert _found(CUDA_EVENT_TIMING.replace("{read}", "timings[rep] = starter.elapsed_time(ender)")) == []


def test_a_synchronize_followed_by_no_timer_read_is_a_sync():
    source = CUDA_EVENT_TIMING.replace("{read}", "timings[rep] = rep")
    assert _found(source) == [("TPL102", 14, 12, SYNC.format(what="`torch.cuda.synchronize()`"))]


PINNED_LOADERS_ON_SELF = """\
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from tqdm import tqdm


class RewardModelTrainer:
    def __init__(self, train_dataset):
        self.device = "cuda"
        self.train_dataloader = DataLoader(train_dataset, batch_size=8, num_workers=4, pin_memory=True)
        self.test_dataloader = iter(DataLoader(train_dataset, batch_size=8, pin_memory=True))

    def fit(self, model, optimizer):
        for step, (completions, masks) in enumerate(pbar := tqdm(self.train_dataloader)):
            completions = completions.to(self.device)
            loss = model(completions, masks)
            loss.backward()
            optimizer.step()
        while True:
            x, y = next(self.test_dataloader)
            x = x.to(self.device)
            loss = model(x, y)
            loss.backward()
            optimizer.step()


class AcceleratorRewardModelTrainer(RewardModelTrainer):
    def fit(self, model, optimizer):
        accelerator = Accelerator()
        model, optimizer, {prepared} = accelerator.prepare(model, optimizer, self.train_dataloader)
        for step, (completions, masks) in enumerate(train_dataloader):
            completions = completions.to(self.device)
            loss = model(completions, masks)
            accelerator.backward(loss)
            optimizer.step()
"""


def test_pinned_loaders_kept_on_self_are_pinned_whatever_a_local_of_the_same_name_is():
    """minChatGPT: each trainer keeps ``self.train_dataloader = DataLoader(..., pin_memory=True)``
    (one as ``iter(DataLoader(...))`` read with ``next``) and iterates it through ``enumerate(pbar
    := tqdm(...))``; another class prepares a local ``train_dataloader`` with Accelerate, whose
    batches are on the device: that local says nothing of the attribute."""
    source = PINNED_LOADERS_ON_SELF.replace("{prepared}", "train_dataloader")
    assert [(code, line, col) for code, line, col, _ in _found(source, codes=("TPL104",))] == [
        ("TPL104", 15, 26), ("TPL104", 21, 16)]
    assert {message for *_, message in _found(source, codes=("TPL104",))} == {BLOCKING}


def test_a_pinned_attribute_prepared_by_accelerate_hands_out_device_batches():
    """The same module where the attribute itself is prepared: not known to be pinned (line 15)."""
    source = PINNED_LOADERS_ON_SELF.replace("{prepared}", "self.train_dataloader")
    assert _found(source, codes=("TPL104",)) == [("TPL104", 21, 16, BLOCKING)]


BATCH_MOVED_BUT_ITS_NAMES = """\
import torch


def test(args, model, loader_test):
    with torch.no_grad():
        for bidx, data in enumerate(loader_test):
            for k in data.keys():
                if {keep}:
                    data[k] = data[k].to(args.device)
            print(">>", data["name"][0])
            mel = model(data["units"], data["f0"])
"""


def test_a_key_the_moving_loop_leaves_out_stays_on_the_host():
    """DDSP-SVC's test loop moves every key of the batch but the file names
    (``if not k.startswith("name"):``); printing ``data["name"][0]`` reads a host value."""
    for keep in ('not k.startswith("name")', 'k != "name"', 'k not in ("name", "wav")', '"name" not in k'):
        assert _found(BATCH_MOVED_BUT_ITS_NAMES.replace("{keep}", keep)) == [], keep


def test_a_key_the_moving_loop_moves_is_on_the_device():
    for keep in ('not k.startswith("wav")', 'k != "mel"', 'k in ("name", "units", "f0")'):
        assert _found(BATCH_MOVED_BUT_ITS_NAMES.replace("{keep}", keep)) == [
            ("TPL102", 10, 12, SYNC.format(what="printing a tensor"))], keep


TIMESTEP_EMBEDDING = """\
import math

import torch as th


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = th.exp(
        -math.log(max_period) * th.arange(start=0, end=half, dtype=th.float32) / {scale}
    ).to(device=timesteps.device)
    args = timesteps[:, None].float() * freqs[None]
    return th.cat([th.cos(args), th.sin(args)], dim=-1)


def pixel_grid(kpts, width, height):
    return th.arange(width).view(1, -1).tile(height, 1).to(kpts.device)
"""


def test_a_factory_kept_fresh_through_elementwise_functions_and_tile_is_moved():
    """Guided diffusion's ``timestep_embedding`` (copied into DifFace, naifu and countless other
    projects) makes ``arange`` on the CPU, scales it by numbers, takes ``exp`` and moves the result
    every forward; mickey tiles an ``arange`` grid then moves it (rules.md TPL101: ops that keep it
    a fresh host tensor). No fix: ops stand between factory and move."""
    found = lint_source(TIMESTEP_EMBEDDING.replace("{scale}", "half"), "train.py", codes=("TPL101",))
    assert [(f.code, f.line, f.col, f.message, f.fix) for f in found] == [
        ("TPL101", 9, 32, CPU_THEN_DEVICE.format(factory="arange"), None),
        ("TPL101", 16, 11, CPU_THEN_DEVICE.format(factory="arange"), None)]


def test_a_factory_combined_with_another_tensor_before_the_move_is_not_fresh():
    found = lint_source(TIMESTEP_EMBEDDING.replace("{scale}", "timesteps.float().mean()"), "train.py", codes=("TPL101",))
    assert [(f.line, f.col) for f in found] == [(16, 11)]


OR_OF_TENSOR_TESTS = """\
import torch


def train(model, loader, optimizer, skip_nan):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        loss = model(x, y)
        loss.backward()
        grad = model.weight.grad
        invalid = ({left} or torch.isinf(grad).any())
        if skip_nan and invalid:
            optimizer.zero_grad()
            continue
        optimizer.step()
"""


def test_an_or_of_tensor_tests_calls_bool_on_its_left_operand():
    """mickey's ``backward_step``: ``invalid = (torch.isnan(g).any() or torch.isinf(g).any())``
    waits for the device to choose which operand to hand back; the later ``if`` tests the tensor
    handed back again."""
    assert _found(OR_OF_TENSOR_TESTS.replace("{left}", "torch.isnan(grad).any()")) == [
        ("TPL102", 10, 19, SYNC.format(what="testing a tensor's truth")),
        ("TPL102", 11, 11, SYNC.format(what="testing a tensor's truth")),
    ]


def test_an_or_whose_left_operand_is_a_python_bool_waits_for_nothing():
    assert _found(OR_OF_TENSOR_TESTS.replace("{left}", "skip_nan is None")) == []


INTERVAL_PROPERTY = """\
import numpy as np
import pytorch_lightning as pl
import torch


class WeightCheck(pl.Callback):
    def __init__(self, update_freq=50):
        self.update_freq = update_freq
        self.batch_idx = 0

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.batch_idx = batch_idx
        if self.is_active:
            pos = batch["pos"]
            min_pos, max_pos = pos.min().item(), pos.max().item()
            print(min_pos, max_pos)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.is_active:
            self.compare(pl_module)

    def compare(self, pl_module):
        norms = []
        for parameter in pl_module.encoder.parameters():
            norms.append(parameter.detach().norm().item())
        return np.array(norms)

    @property
    def is_active(self) -> bool:
        return {active}
"""


def test_a_property_that_returns_an_interval_test_is_an_interval():
    """matsciml's callbacks test ``if self.is_active:``, a property returning ``(self.batch_idx %
    self.update_freq) == 0`` (rules.md "An interval"): inline and through a helper it calls."""
    assert _found(INTERVAL_PROPERTY.replace("{active}", "(self.batch_idx % self.update_freq) == 0")) == []


def test_a_property_that_returns_a_flag_is_no_interval():
    source = INTERVAL_PROPERTY.replace("{active}", "self.update_freq > 0")
    assert _found(source) == [
        ("TPL102", 15, 31, SYNC.format(what="`.item()`")),
        ("TPL102", 15, 49, SYNC.format(what="`.item()`")),
        ("TPL102", 25, 25, SYNC.format(what="`.item()`") + " (called every step from train.py:20 via on_train_batch_end)"),
    ]


METHOD_WITH_A_DEMO = """\
import torch


class MEND(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def edit(self, batch):
        loss = self.model(batch).mean()
        loss.backward()
        info = {"grad": self.model.weight.grad.norm(2).item()}
        return info


{guard}
    mend = MEND(torch.nn.Linear(4, 4).cuda())
    print(mend.edit(torch.randn(2, 4, device="cuda")))
"""


def test_a_demo_under_the_main_guard_does_not_make_a_method_run_once():
    """EasyEdit's ``MEND.edit`` runs its own backward (a step body, rules.md "A step body"); the
    only caller the project shows is the demo under ``if __name__ == "__main__":``, which says
    nothing of how the trainers (through a registry) run it: it stays a step body (R2 needs every
    caller of the project's own runs to run it once)."""
    assert _found(METHOD_WITH_A_DEMO.replace("{guard}", 'if __name__ == "__main__":')) == [
        ("TPL102", 12, 24, SYNC.format(what="`.item()`"))]


def test_a_module_level_call_outside_the_guard_runs_the_method_once():
    assert _found(METHOD_WITH_A_DEMO.replace("{guard}", "if torch.cuda.is_available():")) == []


FIRST_SAMPLE_OF_EACH_STEP = """\
import torch


class Trainer:
    def train_step(self, data):
        self.optimizer.zero_grad()
        loss = self.loss_train(data)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def loss_train(self, data):
        offset, occupancy = self.model(data)
        loss = 0
        stages = []
        for i in range(offset.size(0)):
            loss += self.point_loss(offset[i])
            if {test}:
                stages.append(loss.item())
        return loss


def train(trainer, loader):
    for batch in loader:
        trainer.train_step(batch)
"""


def test_the_first_item_of_a_loop_inside_a_step_body_is_taken_every_step():
    """occupancy networks' DMC loss: ``for i in range(batchsize): ... if i == 0:
    stages.append(loss.item())`` in a function every step calls: the loop runs whole in every
    call, so its first time round is every step (no interval: rules.md "An interval")."""
    assert _found(FIRST_SAMPLE_OF_EACH_STEP.replace("{test}", "i == 0"), codes=("TPL102",)) == [
        ("TPL102", 10, 15, SYNC.format(what="`.item()`")),
        ("TPL102", 19, 30, SYNC.format(what="`.item()`") + " (called every step from train.py:7 via train_step)"),
    ]


def test_a_step_interval_inside_a_step_body_is_still_one():
    assert _found(FIRST_SAMPLE_OF_EACH_STEP.replace("{test}", "self.step % 100 == 0"), codes=("TPL102",)) == [
        ("TPL102", 10, 15, SYNC.format(what="`.item()`"))]


BUILTIN_ANY_OF_A_TENSOR = """\
import torch


def pg_loss(model, batch, optimizer):
    logprobs = model(batch.cuda())
    if {test}:
        print("inf in logprobs")
    loss = -logprobs.mean()
    loss.backward()
    optimizer.step()


def train(model, loader, optimizer):
    for batch in loader:
        pg_loss(model, batch, optimizer)
"""


def test_builtin_any_of_a_tensor_syncs_once_per_element():
    """minillm's PPO loss: ``if any(torch.isinf(logprobs).view(-1)):`` iterates the tensor and
    calls ``bool()`` on every element."""
    assert _found(BUILTIN_ANY_OF_A_TENSOR.replace("{test}", "any(torch.isinf(logprobs).view(-1))")) == [
        ("TPL102", 6, 7, SYNC.format(what="builtin `any()` of a tensor"))]


def test_builtin_any_of_python_values_waits_for_nothing():
    assert _found(BUILTIN_ANY_OF_A_TENSOR.replace("{test}", "any(n > 3 for n in range(4))")) == []


MARGIN_MATRIX = """\
import torch


def forward(logits, margin):
    labels = torch.zeros(logits.size()).{fill}(margin).to(logits.device)
    return logits - labels
"""


def test_fill_diagonal_keeps_a_factory_fresh_before_its_move():
    """SimKGC's contrastive margin: ``torch.zeros(logits.size()).fill_diagonal_(margin).to(device)``."""
    found = lint_source(MARGIN_MATRIX.replace("{fill}", "fill_diagonal_"), "train.py", codes=("TPL101",))
    assert [(f.code, f.line, f.col, f.message, f.fix) for f in found] == [
        ("TPL101", 5, 13, CPU_THEN_DEVICE.format(factory="zeros"), None)]


def test_a_method_of_another_kind_between_factory_and_move_is_no_fresh_tensor():
    assert lint_source(MARGIN_MATRIX.replace("{fill}", "masked_fill"), "train.py", codes=("TPL101",)) == []


LOSS_FIELD_OF_A_MODEL_OUTPUT = """\
import torch
from accelerate import Accelerator


def train(model, loader, optimizer):
    accelerator = Accelerator()
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    train_loss = []
    for step, batch in enumerate(loader):
        loss = model(**batch["context"]).{field} / 2
        accelerator.backward(loss)
        train_loss.append(float(loss))
        optimizer.step()
"""


def test_a_loss_field_of_a_model_output_is_a_tensor_where_the_output_is():
    """UniCRS: ``model(**batch).conv_loss`` of the project's own ``ModelOutput`` dataclass (fields
    ``conv_loss``, ``rec_loss``, ``rec_logits``): named a loss, it is the output's tensor, so
    ``float(loss)`` every step waits for the device."""
    assert _found(LOSS_FIELD_OF_A_MODEL_OUTPUT.replace("{field}", "conv_loss")) == [
        ("TPL102", 12, 26, SYNC.format(what="`float()` of a tensor"))]


def test_a_field_named_otherwise_is_not_known_to_be_a_tensor():
    assert _found(LOSS_FIELD_OF_A_MODEL_OUTPUT.replace("{field}", "num_tokens")) == []


ZIPPED_PINNED_LOADERS = """\
import torch
from torch.utils.data import DataLoader


def train(model, optimizer, trainset_l, trainset_u):
    trainloader_l = DataLoader(trainset_l, batch_size=8, pin_memory=True, num_workers=4)
    trainloader_u = DataLoader(trainset_u, batch_size=8, pin_memory={pinned}, num_workers=4)
    for epoch in range(10):
        loader = zip(trainloader_l, trainloader_u)
        for i, ((img_x, mask_x), (img_u_w, img_u_s)) in enumerate(loader):
            img_x, mask_x = img_x.cuda(), mask_x.cuda()
            loss = model(img_x, mask_x)
            loss.backward()
            optimizer.step()
"""


def test_a_zip_of_pinned_loaders_hands_out_pinned_batches():
    """UniMatch's semi-supervised loop zips the labelled and unlabelled loaders, both pinned: each
    time round's batches come from pinned memory, and their blocking ``.cuda()`` is TPL104."""
    found = lint_source(ZIPPED_PINNED_LOADERS.replace("{pinned}", "True"), "train.py", codes=("TPL104",))
    assert [(f.code, f.line, f.col, f.message) for f in found] == [
        ("TPL104", 11, 28, BLOCKING), ("TPL104", 11, 42, BLOCKING)]


def test_a_zip_with_an_unpinned_loader_is_not_known_pinned():
    assert lint_source(ZIPPED_PINNED_LOADERS.replace("{pinned}", "False"), "train.py", codes=("TPL104",)) == []


LOSS_COLLECTION = """\
import torch
from accelerate import Accelerator


def train(model, {losses}, train_loader, optimizer, accelerator: Accelerator, step: int):
    for i, image_batch in enumerate(train_loader):
        logits = model(image_batch["image"])
        total_loss = 0
        for name in {losses}:
            loss = {losses}[name](logits, image_batch["label"])
            accelerator.log({"Train/" + name: float(loss)}, step=step)
            total_loss += loss
        accelerator.backward(total_loss)
        optimizer.step()
"""


def test_an_item_of_a_collection_of_loss_functions_returns_a_loss():
    """ZTomorTrain's Accelerate scripts: ``loss = loss_functions[name](logits, label)`` then
    ``float(loss)`` for ``accelerator.log`` every step."""
    assert _found(LOSS_COLLECTION.replace("{losses}", "loss_functions")) == [
        ("TPL102", 11, 46, SYNC.format(what="`float()` of a tensor"))]


def test_an_item_of_a_collection_named_otherwise_is_not_known_to_return_a_tensor():
    assert _found(LOSS_COLLECTION.replace("{losses}", "handlers")) == []


SEARCH_ITERATIONS_IN_A_STEP = """\
import logging

import pytorch_lightning as pl
import torch

log = logging.getLogger(__name__)


class ActiveSearch(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        for i in range(self.hparams.max_iters):
            out = self.policy(batch.clone())
            if i == 0:
                log.info(f"Initial reward: {out['reward'].max():.2f}")
            loss = -out["reward"].mean()
            self.manual_backward(loss)
"""


def test_the_first_time_round_of_a_loop_that_runs_a_model_in_a_step_is_once():
    """rl4co's active search: each time round of ``for i in range(max_iters)`` runs the policy (a
    step loop of its own), so its ``if i == 0:`` picks one time round, as in any step loop."""
    assert _found(SEARCH_ITERATIONS_IN_A_STEP) == []


LOOKUP_FALLBACK_IN_A_STEP_LOOP = """\
import torch


def train_one_epoch(loader, model, criterion, optimizer):
    for i, (images, masks) in enumerate(loader, 1):
        preds = model(images.cuda())
        loss = criterion(preds, masks.cuda())
        try:
            loss_name = criterion._get_name()
        except {error}:
            loss_name = criterion.__name__
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()
"""


def test_a_lookup_fallback_makes_no_retry_loop():
    """UCTransNet: ``try: loss_name = criterion._get_name() except AttributeError: ...`` picks a
    name; the loop tries nothing again, so its ``empty_cache()`` every step is TPL103."""
    assert _found(LOOKUP_FALLBACK_IN_A_STEP_LOOP.replace("{error}", "AttributeError"), codes=("TPL103",)) == [
        ("TPL103", 15, 8, EMPTY_CACHE)]


def test_a_loop_that_catches_a_runtime_error_and_goes_on_is_a_retry_loop():
    assert _found(LOOKUP_FALLBACK_IN_A_STEP_LOOP.replace("{error}", "RuntimeError"), codes=("TPL103",)) == []
