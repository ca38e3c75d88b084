"""Forms of holdout17's and holdout18's first scores (2026-11-26, the lead; tuned on those sets):
each with its flagged and silent twins, whole diagnostics."""

from _diagnostics import CPU_CREATION_TEMPLATE as FACTORY, EMPTY_CACHE, SYNC_TEMPLATE as SYNC, found as _found


LOG_KEYS = """\
import torch
import lightning.pytorch as pl


class Task(pl.LightningModule):
    def __init__(self, criterion):
        super().__init__()
        self.criterion = criterion
        self.model = torch.nn.Linear(4, 4)

    def training_step(self, batch, batch_idx):
        loss, logging_output = self.criterion(self.model(batch), batch)
        for log_key in logging_output:
            log_value = logging_output[log_key]
            self.log(f"train/{log_key}", log_value, on_step=True)
        return loss
"""


def test_a_key_of_the_iterated_mapping_is_a_host_value():
    """ByProt's ``for log_key in logging_output: ... self.log(f"train/{log_key}", ...)``
    (holdout18): the body reads ``logging_output[log_key]``, so ``log_key`` is a key of a mapping
    (a tensor's items index no tensor), and formatting it reads no device value. Iterating the
    same unknown object without using the item as its key still formats a possible tensor."""
    assert _found(LOG_KEYS) == []
    items = LOG_KEYS.replace("            log_value = logging_output[log_key]\n", "            log_value = log_key\n")
    assert _found(items) == [("TPL102", 15, 21, SYNC.format(what="formatting a tensor"))]


SLICE_GUARD = """\
import torch


def train(model, loader, opt, pad):
    for ids in loader:
        ids = ids.cuda()
        out = model(ids)
        padding_len = ids[0].eq(pad).sum()
        if padding_len > 0:
            out = out[:, :-padding_len]
        out.sum().backward()
        opt.step()
"""


def test_a_test_that_guards_a_slice_bound_of_the_same_value_is_host_needed():
    """longformer's ``if padding_len > 0: sequence_output = sequence_output[:, :-padding_len]``
    (holdout18): the body needs the value on the host as a slice bound (R3), and the test only
    guards that use (``:-0`` would empty the slice); one ``int()`` serves both. A body that uses
    the value on the device keeps the test a per-step wait."""
    assert _found(SLICE_GUARD) == []
    scaled = SLICE_GUARD.replace("out[:, :-padding_len]", "out * padding_len")
    assert _found(scaled) == [("TPL102", 9, 11, SYNC.format(what="testing a tensor's truth"))]
    other = SLICE_GUARD.replace("out[:, :-padding_len]", "out[:, :-pad]")
    assert _found(other) == [("TPL102", 9, 11, SYNC.format(what="testing a tensor's truth"))]


EVAL_AFTER_CONTINUE = """\
import torch


class Trainer:
    def run(self):
        for batch in self.train_dataloader:
            self._train_step(batch)
            if not self.update_idx or self.update_idx % self.params.eval_steps != 0:
                continue
            torch.cuda.empty_cache()
            print(self.loss.item())
            self._eval_model()

    def _train_step(self, batch):
        self.loss = self.model(batch)
        self.loss.backward()
        self.optimizer.step()
        self.update_idx += 1
"""


def test_what_follows_an_early_continue_under_an_interval_runs_at_the_interval():
    """seamless_communication's ``if not self.update_idx or self.update_idx % eval_steps != 0:
    continue`` before ``torch.cuda.empty_cache()`` and the evaluation (holdout17): the rest of the
    loop's body runs once per ``eval_steps`` updates (R9, rules.md "An interval"). A ``continue``
    under a setting, or an accumulation ``continue`` before the optimizer's step, is no interval."""
    codes = ("TPL102", "TPL103")
    assert _found(EVAL_AFTER_CONTINUE, codes) == []
    setting = EVAL_AFTER_CONTINUE.replace(
        "not self.update_idx or self.update_idx % self.params.eval_steps != 0", "not self.params.eval")
    assert _found(setting, codes) == [("TPL103", 10, 12, EMPTY_CACHE),
                                      ("TPL102", 11, 18, SYNC.format(what="`.item()`"))]
    accumulation = EVAL_AFTER_CONTINUE.replace("            self._eval_model()\n",
                                               "            self.optimizer.step()\n")
    assert _found(accumulation, codes) == [("TPL103", 10, 12, EMPTY_CACHE),
                                           ("TPL102", 11, 18, SYNC.format(what="`.item()`"))]


LEGACY_SIZES = """\
import torch
import torch.nn as nn


class Linear(nn.Module):
    def __init__(self, cols, device="cpu"):
        super().__init__()
        self.weight = nn.Parameter(torch.Tensor(sum(fc.dimension for fc in cols), 1).to(device))
        self.bias = nn.Parameter(torch.Tensor(cols).to(device))
"""

LEGACY = ("tensor is created on the CPU by the legacy constructor `torch.Tensor(...)` and then copied to the "
          "device; create it there with `torch.empty(..., device=...)`")


def test_a_legacy_constructor_given_several_sizes_of_any_form_makes_an_empty_tensor():
    """DeepCTR's ``torch.Tensor(sum(fc.dimension for fc in cols), 1).to(device)`` (holdout18):
    several positional arguments are sizes whatever expressions give them; one argument of
    unknown form (``torch.Tensor(cols)``: a size or host data) stays silent."""
    assert _found(LEGACY_SIZES, codes=("TPL101",)) == [("TPL101", 8, 35, LEGACY)]


DECODE = """\
import torch
import pytorch_lightning as pl


class TriviaQA(pl.LightningModule):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.model = torch.nn.Linear(4, 4)

    def decode(self, start_logits, end_logits, question_end_index):
        start_indices = start_logits.topk(k=self.args.n_best_size, dim=-1).indices
        end_indices = end_logits.topk(k=self.args.n_best_size, dim=-1).indices
        answers = []
        for i in range(start_indices.size(0)):
            for start in start_indices[i]:
                for end in end_indices[i]:
                    if start <= question_end_index[i]:
                        continue
                    answers.append((start, end))
        return answers

    def validation_step(self, batch, batch_nb):
        start_logits, end_logits = self.model(batch[0])
        return self.decode(start_logits, end_logits, batch[1])
"""


def test_a_parameter_every_per_step_caller_hands_a_device_tensor_is_one():
    """longformer's ``TriviaQA.decode`` (holdout18), called every validation batch with the
    model's logits: the ``topk`` indices it iterates are device tensors, and each candidate's
    truth test waits for the device (R7 keeps evaluation truth tests flagged). Handed host copies
    (``.cpu()``), the same loop reads host tensors (the batch too: Lightning moved it to the device,
    2026-11-27, the thirteenth session)."""
    chain = " (called every step from train.py:25 via validation_step)"
    assert _found(DECODE) == [("TPL102", 18, 23, SYNC.format(what="testing a tensor's truth") + chain)]
    host = DECODE.replace("self.decode(start_logits, end_logits, batch[1])",
                          "self.decode(start_logits.cpu(), end_logits.cpu(), batch[1].cpu())")
    assert _found(host) == []


LATCH = """\
import torch


class Meta(torch.nn.Module):
    def forward_backward(self, images):
        loss = self.student(images).sum()
        loss.backward()
        self.synchronize_streams()
        return loss

    def synchronize_streams(self):
        if self.need_to_synchronize:
            torch.cuda.synchronize()
            self.need_to_synchronize = False
"""


def test_a_branch_that_turns_its_own_flag_off_runs_once():
    """dinov2's ``fsdp_synchronize_streams`` (the plain-script holdout, reached now that a model
    handed to ``do_train`` is followed): ``if self.need...: torch.cuda.synchronize(); self.need...
    = False`` runs once until the flag is set again, not every step. A branch that leaves its flag
    on is a setting, taken every step."""
    assert _found(LATCH) == []
    setting = LATCH.replace("            self.need_to_synchronize = False\n", "            self.synced = True\n")
    chain = " (called every step from train.py:8 via forward_backward)"
    assert _found(setting) == [("TPL102", 13, 12, SYNC.format(what="`torch.cuda.synchronize()`") + chain)]


DEVICE_LOADER = """\
import torch
from torch.utils.data import DataLoader
from helpers import score


def create_dataloader(data, batch_size, **kwargs):
    return DataLoader(data, batch_size=batch_size, **kwargs)


class Trainer(torch.nn.Module):
    def learn(self, memories):
        dl = create_dataloader(memories, self.minibatch_size, device=self.device)
        for sequences, old_log_probs in dl:
            loss = (score(self.actor, sequences) - old_log_probs).exp().mean()
            self.accelerate.backward(loss)
            print(f"policy_loss: {loss.item():.3f}")
            self.optim.step()
"""


def test_a_loader_told_its_device_hands_out_batches_not_known_to_be_on_the_host():
    """PaLM-rlhf's ``dl = create_dataloader(memories, bs, device=self.device)`` (holdout18): the
    loader puts its batches on the device, so a value computed from them is no host tensor and its
    ``.item()`` waits every step. A loader built without a device hands out host batches, and a
    value computed from one of them and something unknown is a host tensor (torch raises when a
    CPU tensor meets a CUDA one)."""
    chain = ""
    assert _found(DEVICE_LOADER) == [("TPL102", 16, 34, SYNC.format(what="`.item()`") + chain)]
    host = DEVICE_LOADER.replace(", device=self.device)", ")")
    assert _found(host) == []


REEXPORTED_TORCH = """\
from byol_a.common import (os, sys, np, torch,
                           nn, DataLoader)
import pytorch_lightning as pl


class Learner(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        def to_np(A): return [a.cpu() for a in A]
        mb, sb = to_np((batch.mean(), batch.std()))
        self.log("mb", float(mb))
        return self.learner(batch)
"""


def test_a_file_that_imports_torch_from_a_project_module_imports_torch():
    """byol-a's ``from byol_a.common import (os, sys, np, torch, nn, ...)`` (holdout17): the project
    re-exports the torch module, so the file imports torch and its step methods are linted (a copy
    in a nested ``def`` called every ``training_step``). A file that imports no ``torch`` at all
    still gets no finding (rules.md)."""
    chain = " (called every step from train.py:9 via training_step)"
    assert _found(REEXPORTED_TORCH) == [("TPL102", 8, 30, SYNC.format(what="`.cpu()`") + chain)]
    no_torch = REEXPORTED_TORCH.replace("np, torch,\n", "np,\n")
    assert _found(no_torch) == []


MOVED_BATCH_FIELDS = """\
import torch


def train(model, device, loader, optimizer):
    for step, batch in enumerate(loader):
        batch = batch.to(device)
        if batch.x.shape[0] == 1 or batch.batch[-1] == 0:
            continue
        if batch.num_graphs == 1:
            continue
        model = model.to(device)
        if step < model.hyperparams["burn_in"]:
            continue
        loss = model(batch).mean()
        loss.backward()
        optimizer.step()
"""


def test_a_field_of_a_moved_batch_object_is_a_device_tensor():
    """ogb's ``batch = batch.to(device)`` then ``if ... or batch.batch[-1] == 0:`` (holdout22,
    after its first score): a field of a batch object moved to the device (a PyG ``Batch``) is a
    tensor there, and testing it waits every step; its counts (``num_graphs``) and a tensor's
    metadata (``shape``) are host values, and so are the attributes of a model moved there
    (PyTorch-YOLOv3's ``model.hyperparams["burn_in"]``, holdout10)."""
    assert _found(MOVED_BATCH_FIELDS) == [("TPL102", 7, 11, SYNC.format(what="testing a tensor's truth"))]


ANY_OF_UNKNOWN = """\
import torch
import numpy as np
import lightning.pytorch as pl


class Model(pl.LightningModule):
    def step(self, x, y, batch_idx):
        if (x["decoder_lengths"] < x["decoder_lengths"].max()).any():
            y = y[0]
        if np.isnan(x["weights"]).any():
            y = y[1]
        return self(x), y

    def training_step(self, batch, batch_idx):
        x, y = batch
        return self.step(x, y, batch_idx)
"""


def test_any_of_a_value_not_known_to_be_on_the_host_counts_as_a_tensor_truth_test():
    """pytorch-forecasting's ``if (x["decoder_lengths"] < x["decoder_lengths"].max()).any():`` in
    ``BaseModel.step``, called every ``training_step`` (holdout19, after its first score): only a
    tensor or an array has ``.any()``, and one not known to be on the host counts as possibly on
    the device (rules.md "Where a value lives"). numpy's result is host."""
    chain = " (called every step from train.py:16 via training_step)"
    assert _found(ANY_OF_UNKNOWN) == [("TPL102", 8, 11, SYNC.format(what="testing a tensor's truth") + chain)]


TOTAL_UNDER_INTERVAL = """\
import numpy as np
import torch


def run_loop(model, train_loader, optimizer, steps, log_every):
    train_iter = iter(train_loader)
    total, count = 0.0, 0
    for step in range(steps):
        x = next(train_iter).cuda()
        loss = model(x).mean()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
        count += len(x)
        if (step + 1) % log_every == 0:
            print(np.around(total / count, 4))
            total, count = 0.0, 0
"""


def test_a_running_total_read_by_numpy_only_under_an_interval_needs_no_sync_per_step():
    """tab-ddpm's ``curr_loss += batch_loss.item() * len(x)``, read by ``np.around`` only under
    ``if (step + 1) % log_every == 0:`` (holdout22, after its first score): one sync per interval
    would do (R22). Read by numpy every step, the value is host-needed (R3)."""
    assert _found(TOTAL_UNDER_INTERVAL) == [("TPL102", 13, 17, SYNC.format(what="`.item()`"))]
    every_step = TOTAL_UNDER_INTERVAL.replace("        if (step + 1) % log_every == 0:\n            print(",
                                              "        if True:\n            print(")
    assert _found(every_step) == []


FACTORY_FORMS = """\
import torch


def f(lr, n, T, device, sigma, mask):
    a = torch.Tensor([lr])[0].cuda()
    b = torch.ByteTensor(size=(n,)).to("cuda")
    c = torch.linspace(0, 1, T).pow(2).to(device)
    d = torch.arange(T)[mask].to(device)
    e = torch.linspace(0, 1, T).pow(mask.cuda()).to(device)
    return a, b, c, d, e
"""

LEGACY_DATA = ("tensor is created on the CPU by the legacy constructor `torch.{f}(...)` and then copied to the device; "
               "create it there with `torch.{modern}(..., device=...)`")


def test_tpl101_through_a_fixed_index_a_size_keyword_and_arithmetic_methods():
    """After the first scores of holdout19/21: ``torch.Tensor([lr])[0].cuda()`` (a fixed position
    of a fresh tensor; cloths_segmentation), ``torch.ByteTensor(size=(n,)).to("cuda")`` (sizes
    by keyword; stylegan2's all_gather) and ``.pow(2)`` as ``** 2`` (AudioLDM's DPM solver). An
    index by a tensor and a power of a tensor are no fresh host tensors."""
    found = [(line, message) for _, line, _, message in _found(FACTORY_FORMS, codes=("TPL101",))]
    assert found == [
        (5, LEGACY_DATA.format(f="Tensor", modern="tensor").replace("torch.tensor(..., device=...)",
                                                                    "torch.tensor(..., dtype=torch.get_default_dtype(), device=...)")),
        (6, LEGACY_DATA.format(f="ByteTensor", modern="empty").replace("torch.empty(..., device=...)",
                                                                       "torch.empty(..., dtype=torch.uint8, device=...)")),
        (7, FACTORY.format(factory="linspace")),
    ]


NUMPY_METHOD = """\
import numpy as np
import torch
from .core import maximum_path_c


def train(model, loader, optimizer):
    for x in loader:
        value, mask = model(x.cuda())
        mask = mask.data.cpu().numpy()
        t_x_max = mask.sum(1)[:, 0].astype(np.int32)
        maximum_path_c(value, t_x_max)
        value.sum().backward()
        optimizer.step()
"""


def test_a_copy_the_host_computes_with_through_a_numpy_only_method_is_host_needed():
    """glow-tts's ``mask = mask.data.cpu().numpy()`` then ``mask.sum(1)[:, 0].astype(np.int32)``
    handed to a compiled extension (holdout14): ``astype`` is a method only numpy arrays have, so
    the host computes with the copy (R3). Without it, what the extension reads is not known."""
    assert _found(NUMPY_METHOD) == []
    plain = NUMPY_METHOD.replace("mask.sum(1)[:, 0].astype(np.int32)", "mask.sum(1)[:, 0]")
    assert _found(plain) == [("TPL102", 9, 15, SYNC.format(what="`.cpu()`"))]


MOVED_MODEL_ATTRIBUTE = '''\
import torch
import torch.nn as nn


class Darknet(nn.Module):
    def __init__(self, path):
        super().__init__()
        self.hyperparams = {"burn_in": 1000}


def load_model(path):
    device = torch.device("cuda")
    model = Darknet(path).to(device)
    return model


def train(path, loader, optimizer):
    model = load_model(path)
    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        if step < model.hyperparams["burn_in"]:
            optimizer.step()
'''


def test_an_attribute_of_a_model_moved_to_the_device_is_no_tensor():
    """PyTorch-YOLOv3's ``if batches_done < model.hyperparams['burn_in']:`` (holdout10): the model
    comes back from ``load_model`` moved to the device, and its attributes are what ``__init__``
    stored (a dict of numbers), not fields of a moved batch. The same test on a moved batch's field
    waits for the device."""
    assert _found(MOVED_MODEL_ATTRIBUTE) == []
    batch = MOVED_MODEL_ATTRIBUTE.replace('if step < model.hyperparams["burn_in"]:',
                                          'if step < x.hyperparams["burn_in"]:').replace(
        "    for step, (x, y) in enumerate(loader):", "    for step, (x, y) in enumerate(loader):\n        x = x.to('cuda')")
    assert _found(batch) == [("TPL102", 23, 11, SYNC.format(what="testing a tensor's truth"))]
