"""Forms of the twenty-ninth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""


from _diagnostics import SYNC_TEMPLATE as SYNC, all_diagnostics, found as _found

from torchperf_lint.catalog import CATALOG
from torchperf_lint.findings import Edit

ALL = tuple(CATALOG)

TRUTH = SYNC.format(what="testing a tensor's truth")

VALUE_OR_NONE = """\
import torch


def train(model, loader, optimizer, use_aux, self_weight=0.5):
    for batch in loader:
        out = model(batch)
        aux = {choice}
        loss = out.loss
        if {test}:
            loss = loss + aux
        loss.backward()
        optimizer.step()
"""


def test_a_value_or_none_choice_holds_the_value_when_there_is_one():
    """R117: ``out.aux_loss if use_aux else None`` (and its mirror) is the model's output when it is
    anything, as a name bound to the output in one branch and to None before it already reads: the
    step's ``if aux:`` waits for the device every iteration."""
    for choice in ("out.aux_loss if use_aux else None", "None if not use_aux else out.aux_loss"):
        source = VALUE_OR_NONE.format(choice=choice, test="aux")
        assert _found(source) == [("TPL102", 9, 11, TRUTH)], choice


def test_a_value_or_none_choice_tested_against_none_or_of_host_values_stays_silent():
    """``if aux is not None:`` waits for nothing; a choice between a host number and None, or
    between two values of different kinds, is no device tensor."""
    for choice, test in (("out.aux_loss if use_aux else None", "aux is not None"),
                         ("self_weight if use_aux else None", "aux"),
                         ("len(batch) if use_aux else None", "aux"),
                         ("out.aux_loss if use_aux else 0.0", "aux")):
        source = VALUE_OR_NONE.format(choice=choice, test=test)
        assert _found(source) == [], (choice, test)


PINNED_LOOP = (
    "the batch is copied to the device synchronously although its DataLoader pins memory; add "
    "`non_blocking=True` so the copy overlaps with compute")

TWO_LOADERS = """\
import torch
import torch.utils.data as Data


class Execution:
    def train(self, dataset, net):
        dataloader = Data.DataLoader(dataset, batch_size=4, pin_memory=self.pin_mem)
        for step, (feat, ques) in enumerate(dataloader):
            feat = feat.cuda()
            net(feat, ques.cuda()).sum().backward()

    def eval(self, dataset, net):
        dataloader = Data.DataLoader(dataset, batch_size=4, {settings})
        for step, (
                feat,
                ques,
        ) in enumerate(dataloader):
            feat = feat.cuda()
            pred = net(feat, ques.cuda())
"""


def test_the_loader_a_function_makes_for_its_loop_decides_its_pinning():
    """R118 (rules.md TPL104; issue 20: pinning is a fact of the loader the loop iterates): the module
    binds ``dataloader`` to a loader whose pinning is a setting (``train``) and to one that pins
    (``eval``, mcan-vqa, holdout148); the evaluation loop's copies come from the pinned one."""
    source = TWO_LOADERS.format(settings="pin_memory=True")
    assert all_diagnostics(source, "TPL104") == [
        ("TPL104", 18, 19, PINNED_LOOP, ("safe", "add non_blocking=True", (Edit(18, 29, 18, 29, "non_blocking=True"),))),
        ("TPL104", 19, 29, PINNED_LOOP, ("safe", "add non_blocking=True", (Edit(19, 39, 19, 39, "non_blocking=True"),)))]


def test_a_loader_made_without_pinning_or_with_unknown_settings_is_not_known_pinned():
    """The twins: the evaluation loader does not pin, pins by a setting, or takes ``**kwargs``; and
    the training loop, whose loader pins by a setting, stays silent in every case."""
    for settings in ("pin_memory=False", "num_workers=2", "pin_memory=self.pin_mem", "**self.loader_kwargs"):
        assert _found(TWO_LOADERS.format(settings=settings), ("TPL104",)) == [], settings


ANSWER_TABLE = """\
import torch


def get_answer(p, dataloader):
    _m, idx = p.max(0)
    return dataloader.dataset.{table}[idx.item()]


def run(model, loader):
    for v, q in loader:
        logits = model(v.cuda(), q.cuda())
        print(get_answer(logits[0], loader))
"""


def test_an_item_that_is_the_whole_key_of_a_label_to_answer_table_is_host_needed():
    """R119 (R47.3 with a label index as the key): ``label2ans[idx.item()]`` (ban-vqa, holdout148)
    and ``label_to_name[...]`` look a symbol up on the host: no finding."""
    for table in ("label2ans", "label_to_name", "lbl2word"):
        assert _found(ANSWER_TABLE.format(table=table)) == [], table


def test_an_item_keying_a_table_of_numbers_still_waits_every_step():
    """A label-indexed table of numbers (``label2emb``) or one named otherwise could hold tensors: the
    ``.item()`` of the step's logits is reported, with the call that makes it run every step."""
    for table, col in (("label2emb", 40), ("answer_weights", 45)):
        assert _found(ANSWER_TABLE.format(table=table)) == [
            ("TPL102", 6, col, SYNC.format(what="`.item()`") + " (called every step from train.py:12)")], table


EVALUATION_BESIDE_TRAINING = """\
import torch
from utils import *


def main(args, model, opt, criterion):
    train_batches = Batches(args.train_set, 128, shuffle=True)
    test_batches = {test_source}
    for epoch in range(10):
        model.train()
        for i, batch in enumerate(train_batches):
            X, y = batch['input'], batch['target']
            loss = criterion(model(X), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

        model.eval()
        test_loss = 0
        for i, batch in enumerate(test_batches):
            X, y = batch['input'], batch['target']
            loss = criterion(model(X), y)
            test_loss += loss.item() * y.size(0)
"""


def test_a_loop_over_another_instance_of_the_training_loops_batch_class_is_an_evaluation():
    """R120 (R7 over R1): the epoch's training loop iterates a ``Batches(...)``; a loop beside it over
    another ``Batches(...)`` that calls the model evaluates over data, batch by batch: its
    ``.item()`` waits every batch (robust_overfitting's PGD evaluation, holdout147)."""
    source = EVALUATION_BESIDE_TRAINING.format(test_source="Batches(args.test_set, 128, shuffle=False)")
    assert _found(source) == [("TPL102", 22, 25, SYNC.format(what="`.item()`"))]


def test_a_helper_the_evaluation_loop_calls_runs_every_batch_too():
    """R120 on the project index's side (its step-loop calls): a helper called from that
    evaluation loop is a step body, its ``.item()`` reported with the call that runs it."""
    source = EVALUATION_BESIDE_TRAINING.format(
        test_source="Batches(args.test_set, 128, shuffle=False)").replace(
        "test_loss += loss.item() * y.size(0)", "test_loss += weighted(loss, y)") + (
        "\n\ndef weighted(loss, y):\n    return loss.item() * y.size(0)\n")
    assert _found(source) == [
        ("TPL102", 26, 11, SYNC.format(what="`.item()`") + " (called every step from train.py:22)")]


def test_a_loop_beside_training_over_something_else_still_makes_samples():
    """R1 unchanged: a loop over an object of another class (``Sampler(...)``) or over a range
    beside the training loop, calling the model in eval mode, makes samples: silent."""
    for test_source in ("Sampler(args.test_set)", "range(8)"):
        source = EVALUATION_BESIDE_TRAINING.format(test_source=test_source)
        assert _found(source) == [], test_source


AGEM = """\
import torch
import torch.nn.functional as F


def train(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        grad = [p.grad.clone() for p in model.parameters()]
        grad_ref = [p.grad.clone() * 2 for p in model.parameters()]
        prod = sum({items})
        if prod < 0:
            print("project")
        opt.step()
"""


def test_a_builtin_sum_of_tensors_is_a_tensor_where_they_live():
    """R121: ``sum([torch.sum(g * g_r) for ...])`` adds tensors up on the device (A-GEM's gradient
    inner product, online-continual-learning, holdout147): ``if prod < 0:`` waits every step."""
    for items in ("[torch.sum(g * g_r) for g, g_r in zip(grad, grad_ref)]",
                  "(torch.dot(g.flatten(), g_r.flatten()) for g, g_r in zip(grad, grad_ref))"):
        assert _found(AGEM.format(items=items)) == [("TPL102", 13, 11, TRUTH)], items


def test_a_builtin_sum_of_numbers_or_of_host_tensors_stays_silent():
    """A sum of Python numbers (``.item()`` of each: reported there, not at the test) or of
    ``.numel()`` counts is no tensor; the test waits for nothing."""
    assert _found(AGEM.format(items="[p.numel() for p in model.parameters()]")) == []
    found = _found(AGEM.format(items="[torch.sum(g * g_r).item() for g, g_r in zip(grad, grad_ref)]"))
    assert found == [("TPL102", 12, 20, SYNC.format(what="`.item()`"))]


LEGACY_CONSTRUCTOR = "TPL101"
LEGACY_BOOL = ("tensor is created on the CPU by the legacy constructor `torch.BoolTensor(...)` and then copied to "
               "the device; create it there with `torch.empty(..., dtype=torch.bool, device=...)`")

PADDING_MASK = """\
import torch


class Audio2HubertBase:
    def __call__(self, audio):
        with torch.no_grad():
            padding_mask = torch.BoolTensor(audio.shape).fill_(False)
            inputs = {{
                "source": {source},
                "padding_mask": padding_mask.to(self.device),
            }}
            return self.hubert.extract_features(**inputs)
"""


def test_a_legacy_constructor_given_the_shape_of_a_name_used_as_a_torch_tensor_makes_sizes():
    """R123 (R114 with a whole ``.shape``): ``audio.to(self.device)`` says ``audio`` is a torch tensor,
    whose ``.shape`` is a ``torch.Size``: ``torch.BoolTensor(audio.shape)`` is an empty mask of that
    shape, filled and moved (ReFlow-VAE-SVC's padding masks, holdout146)."""
    found = all_diagnostics(PADDING_MASK.format(source="audio.to(self.device)"), "TPL101")
    assert [row[:4] for row in found] == [("TPL101", 7, 27, LEGACY_BOOL)]


def test_the_shape_of_a_name_not_known_as_a_torch_tensor_may_be_numpy_data():
    """``audio`` only indexed, or moved through ``torch.from_numpy`` (a numpy array: its ``.shape`` is
    a tuple, which the constructor reads as data): no finding."""
    for source in ("torch.from_numpy(audio).to(self.device)", "audio[0]"):
        assert all_diagnostics(PADDING_MASK.format(source=source), "TPL101") == [], source


EVALUATION_METRICS = """\
import torch
from torch.utils.data import DataLoader


def main(model, test_dataset, device, eval_errors, keys):
    test_loader = DataLoader(test_dataset, batch_size=1, pin_memory=True)
    values = []
    with torch.no_grad():
        for idx, batch in enumerate(test_loader):
            rays, rgbs = batch
            rays = [getattr(rays, name).to(device) for name in keys]
            out = model(rays)
            {name} = eval_errors(out, rgbs.to(device, non_blocking=True))
            values.append({name}.cpu().item())
    return values
"""


def test_a_metric_copied_and_read_as_a_number_in_an_evaluation_loop_waits_each_batch():
    """R124: ``psnr_values.append(psnr_val.cpu().item())`` reads a metric per batch (R8 keeps a copy
    read as a number flagged; R7's kept results are predictions, not metrics: mipnerf_pl, holdout146);
    and ``getattr(rays, name)`` of a pinned loader's batch is one of its fields, copied without
    ``non_blocking``."""
    found = all_diagnostics(EVALUATION_METRICS.format(name="psnr_val"), "TPL102", "TPL104")
    assert [row[:4] for row in found] == [
        ("TPL104", 11, 20, PINNED_LOOP),
        ("TPL102", 14, 26, SYNC.format(what="`.cpu()`"))]


def test_a_prediction_copied_and_read_as_a_number_is_a_kept_result():
    """The twin: ``pred.cpu().item()`` stored per batch is the result the run is for (R7)."""
    found = all_diagnostics(EVALUATION_METRICS.format(name="pred"), "TPL102")
    assert found == []


SHOWN_LOSSES = """\
import torch


class Trainer:
    def train(self):
        for batch, (inputs, labels) in enumerate(self.train_loader):
            self.optimizer.zero_grad()
            loss = self.loss(self.model(inputs.to(self.device)), labels.to(self.device))
            loss.backward()
            self.optimizer.step()
            self.ckpt.write_log('[{}/{}]\\t{}'.format(batch + 1, len(self.train_loader), self.loss.{method}(batch)))
"""


def test_a_method_that_shows_losses_returns_no_loss_tensor():
    """R126: ``self.loss.display_loss(batch)`` (MGN-pytorch, holdout151) joins formatted strings of
    the losses logged so far; named for showing, it is no loss computation: formatting it waits for
    nothing. ``plot_loss``, ``show_loss`` alike."""
    for method in ("display_loss", "plot_loss", "show_loss"):
        assert _found(SHOWN_LOSSES.replace("{method}", method)) == [], method


def test_a_method_that_computes_a_loss_is_still_one():
    """``self.loss.compute_loss(batch)`` or ``kl_loss``: a loss tensor, formatted every step."""
    for method in ("compute_loss", "kl_loss"):
        assert _found(SHOWN_LOSSES.replace("{method}", method)) == [
            ("TPL102", 11, 32, SYNC.format(what="formatting a tensor"))], method


NUMPY_PI = """\
import numpy as np
import torch

device = torch.device("cuda")
pi = torch.tensor(np.pi, dtype=torch.float32).to(device)
"""
NUMBER_TENSOR = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.tensor(...)` "
                 "to create it there (runtime_guard: device-native creation)")


def test_a_numpy_constant_is_number_data():
    """R127: ``torch.tensor(np.pi, ...)`` writes a number, as ``math.pi`` does (RoPINN, holdout150):
    made on the CPU and moved; the safe fix passes ``device=``."""
    assert all_diagnostics(NUMPY_PI, "TPL101") == [
        ("TPL101", 5, 5, NUMBER_TENSOR, ("safe", "create the tensor with device=device",
                                         (Edit(5, 44, 5, 49, ", device="),)))]


def test_the_fix_of_a_numpy_constant_gives_the_same_tensor():
    """Applied, parsed, applied again (no change), run on the CPU: the same value and dtype."""
    import ast

    import torch

    from torchperf_lint.engine import fix_source

    source = NUMPY_PI.replace('torch.device("cuda")', 'torch.device("cpu")')
    result, count = fix_source(source, codes=["TPL101"])
    ast.parse(result)
    assert count == 1 and "torch.tensor(np.pi, dtype=torch.float32, device=device)" in result
    assert fix_source(result, codes=["TPL101"]) == (result, 0)
    made, original = {}, {}
    exec(compile(result, "<fixed>", "exec"), made)
    exec(compile(source, "<original>", "exec"), original)
    assert torch.equal(made["pi"], original["pi"]) and made["pi"].dtype == torch.float32


def test_a_numpy_array_or_an_unknown_attribute_is_not_number_data():
    """``np.ones(3)`` is host data already (a copy either way); ``cfg.pi`` may be anything."""
    for data in ("np.ones(3)", "cfg.pi"):
        assert all_diagnostics(NUMPY_PI.replace("np.pi", data), "TPL101") == [], data


CONFUSION_MATRIX = """\
import numpy as np
import pytorch_lightning as pl
import torch


class SelfSupervised(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.train_cm = {made}

    def training_step(self, batch, batch_idx):
        loss = self.net(batch).mean()
        self.train_cm += self.confusion(batch)
        if self.train_cm.sum() > 0:
            self.log("iou", self.iou(self.train_cm))
        return loss
"""


def test_an_attribute_only_ever_a_numpy_array_is_on_the_host():
    """R128: ``self.train_cm = np.zeros((2, 2))``, added to in place (ALSO, holdout149): its sum
    tested every step waits for nothing."""
    assert _found(CONFUSION_MATRIX.format(made="np.zeros((2, 2))")) == []


def test_an_attribute_that_is_also_a_tensor_is_not_known_host():
    """Bound to a torch tensor anywhere (here in ``__init__``), the sum is a device reduction: the
    test waits (R27's whole reduction)."""
    source = CONFUSION_MATRIX.format(made="torch.zeros((2, 2), device='cuda')")
    assert _found(source) == [("TPL102", 14, 11, TRUTH)]


PROGRESS_BAR = """\
import torch
from tqdm import tqdm


class Trainer:
    def _train_epoch(self, device):
        t_iter = tqdm(self.train_loader) if self._is_main_proc() else self.train_loader
        for batch in t_iter:
            loss = self.train_step(batch, self.global_step)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if {test}:
                t_iter.set_postfix(loss=loss.item(), version=self.version)
            self.global_step += 1
"""


def test_a_test_of_what_the_bar_is_picks_no_step():
    """R129: ``if hasattr(t_iter, "set_postfix"):`` asks whether the iterable is a progress bar (the
    main process's) or the bare loader; ``t_iter`` is named like a counter, but a builtin that asks
    what a value is hands no step counter to an interval (dyMEAN, holdout150)."""
    for test in ('hasattr(t_iter, "set_postfix")', "isinstance(t_iter, tqdm)"):
        assert _found(PROGRESS_BAR.format(test=test)) == [("TPL102", 14, 40, SYNC.format(what="`.item()`"))], test


def test_a_helper_called_under_that_test_runs_every_step():
    """The project index reads the same test the same way: a helper called in the branch is a
    step body, its ``.item()`` reported with the call that runs it every step."""
    source = PROGRESS_BAR.format(test='hasattr(t_iter, "set_postfix")').replace(
        "t_iter.set_postfix(loss=loss.item(), version=self.version)", "t_iter.set_postfix(**shown(loss))") + (
        "\n\ndef shown(loss):\n    return {\"loss\": loss.item()}\n")
    assert _found(source) == [
        ("TPL102", 19, 20, SYNC.format(what="`.item()`") + " (called every step from train.py:14)")]


def test_a_call_handed_the_step_counter_is_still_an_interval():
    """``if self.check_frequency(self.global_step):`` runs on the steps it picks: silent."""
    assert _found(PROGRESS_BAR.format(test="self.check_frequency(self.global_step)")) == []


SCRIPT_IDS = """\
import torch

if __name__ == "__main__":
    net, test_loader, test_dataset, device = build()
    with torch.no_grad():
        for data in test_loader:
            data = data.to(device)
            predictions = net(data).argmax(1).cpu().numpy()
            {line}
"""


def test_an_id_a_script_hands_to_its_dataset_is_host_needed():
    """R130 (R44.4 at module level): ``test_dataset.get_filename(data["shape_id"].item())`` in a
    script's evaluation loop under ``if __name__ == "__main__":`` (BEVContrast, holdout149) hands an
    id to a lookup, as it would inside a function: no finding."""
    line = 'fname = test_dataset.get_filename(data["shape_id"].item()) + ".xyz"'
    assert _found(SCRIPT_IDS.format(line=line)) == []


def test_an_id_a_script_binds_first_is_read_through_the_module():
    """The same id bound to a name first (``shape_id = ...item()``, then handed to the lookup): its
    later uses are looked for in the module's statements; a score bound so and added up stays
    reported (and the module is walked as a module: image-restoration-sde's ``lp_score``, no
    internal error)."""
    line = 'shape_id = data["shape_id"].item()\n            fname = test_dataset.get_filename(shape_id)'
    assert _found(SCRIPT_IDS.format(line=line), ALL) == []
    line = 'lp_score = lpips_fn(predictions, data).squeeze().item()\n            total = total + lp_score'
    assert _found(SCRIPT_IDS.format(line=line), ALL) == [("TPL102", 9, 23, SYNC.format(what="`.item()`"))]


def test_a_number_a_script_adds_up_still_waits():
    """The twin: ``total += data["loss"].item()`` adds a metric up per batch (R8 keeps it flagged)."""
    line = 'total = total + net.loss(data).item()'
    assert _found(SCRIPT_IDS.format(line=line)) == [("TPL102", 9, 28, SYNC.format(what="`.item()`"))]


NON_FINITE = """\
import warnings

import torch


def training_step(model, batch, optimizer):
    loss_dict = model(batch)
    losses = sum(loss_dict.values())
    if not torch.isfinite(losses):
        non_finite = {{k: v.item() for k, v in loss_dict.items()}}
        {use}
        return None
    losses.backward()
    optimizer.step()
    return losses
"""


def test_items_collected_for_a_non_finite_message_are_read_for_it():
    """R131 (R10 through a name): the ``.item()``s a dict comprehension collects in a branch taken
    only when the loss is not finite, then only formatted into the warning (DeepForest, holdout149),
    are read for the message: only the test is reported."""
    for use in ('warnings.warn(f"Non-finite components: {non_finite}")',
                'warnings.warn("Non-finite components: %s" % non_finite)'):
        assert _found(NON_FINITE.format(use=use)) == [("TPL102", 9, 7, TRUTH)], use


def test_items_collected_for_use_in_that_branch_still_wait():
    """The twin: the collected numbers are added up (``total += sum(non_finite.values())``): a value
    taken for use, reported as before, beside the test."""
    assert _found(NON_FINITE.format(use="total = sum(non_finite.values())")) == [
        ("TPL102", 9, 7, TRUTH), ("TPL102", 10, 25, SYNC.format(what="`.item()`"))]


BEAM_EOS = """\
import torch


def beam_search(model, x, eos, steps):
    scores = torch.zeros(x.size(0), device=x.device)
    for t in range(steps):
        y_prev = model(x).argmax(-1)
        eos_indices = y_prev.view(-1, 1).eq(eos)
        if eos_indices.nonzero().{read} > 0:
            scores.masked_fill_(eos_indices.view(-1), -float("inf"))
    return scores
"""


def test_a_nonzero_read_for_its_shape_is_host_needed():
    """R132 (R3's size reads with ``.dim()``): ``if eos_indices.nonzero().dim() > 0:`` (aster's beam
    search, holdout153) reads only the result's shape, as ``.shape[0]``/``.numel()`` already did."""
    for read in ("dim()", "numel()", "shape[0]"):
        assert _found(BEAM_EOS.format(read=read)) == [], read


def test_a_nonzero_whose_values_are_read_still_waits():
    """The twin: ``.sum()`` of the indices reads their values: the test is reported."""
    assert _found(BEAM_EOS.format(read="sum()")) == [("TPL102", 9, 11, TRUTH)]


VARIABLE_BATCH = """\
import torch
from torch.utils.data import DataLoader


def train(train_set, model, optimizer):
    train_loader = DataLoader(train_set, batch_size=8, num_workers=4, pin_memory=True)
    for it, input in enumerate(train_loader):
        x = dict(template={wrapped})
        model(x).backward()
        optimizer.step()
"""


def test_a_batch_wrapped_in_variable_is_still_the_pinned_batch():
    """R133 (R114 in value flow): ``torch.autograd.Variable(input[0])`` hands the tensor back since
    torch 0.4, so its ``.cuda()`` copies a pinned batch without ``non_blocking`` (SiamMask's three
    training scripts, holdout154); the safe fix adds it."""
    found = all_diagnostics(VARIABLE_BATCH.format(wrapped="torch.autograd.Variable(input[0]).cuda()"), "TPL104")
    assert found == [("TPL104", 8, 26, PINNED_LOOP, ("safe", "add non_blocking=True", (Edit(8, 65, 8, 65, "non_blocking=True"),)))]


def test_a_variable_of_something_else_is_not_a_batch():
    """``Variable(torch.zeros(3)).cuda()`` moves a fresh tensor (TPL101's business), no batch."""
    assert all_diagnostics(VARIABLE_BATCH.format(wrapped="torch.autograd.Variable(torch.zeros(3)).cuda()"),
                           "TPL104") == []


GUIDANCE_MASK = """\
import torch


def register(batch_size, num_images_per_prompt, device):
    uc_mask = (
        torch.Tensor({data})
        .to(device)
        .bool()
    )
    return uc_mask
"""
LEGACY_FLOAT = ("tensor is created on the CPU by the legacy constructor `torch.Tensor(...)` and then copied to the "
                "device; create it there with `torch.tensor(..., dtype=torch.get_default_dtype(), device=...)`")


def test_a_written_list_repeated_several_times_is_written_data():
    """R134 (R85 again): ``[1] * batch_size * num_images_per_prompt * 16`` is a list written in the
    source, repeated; joined with another (AniPortrait's guidance mask, holdout152) it is still data."""
    for data in ("[0] * batch_size * num_images_per_prompt * 2",
                 "[1] * batch_size * num_images_per_prompt * 16 + [0] * batch_size * num_images_per_prompt * 16"):
        assert _found(GUIDANCE_MASK.format(data=data), ("TPL101",)) == [("TPL101", 6, 8, LEGACY_FLOAT)], data


def test_a_repeated_written_list_given_to_torch_tensor_passes_the_ast_prefilter_too():
    """The same data in ``torch.tensor(...)``: the unit's ast prefilter (``_may_be_factory``) reads
    the repeated list as written data as the rule does."""
    source = GUIDANCE_MASK.format(data="[1] * batch_size * num_images_per_prompt * 16").replace(
        "torch.Tensor(", "torch.tensor(")
    assert _found(source, ("TPL101",)) == [("TPL101", 6, 8, NUMBER_TENSOR)]


def test_a_product_of_names_is_no_written_list():
    """``a * b * 2`` (no list written) may be a size or a repeated list: silent here. Named as sizes
    (``batch_size * num_images_per_prompt * 2``) it is a number (R193): the constructor is sized."""
    assert _found(GUIDANCE_MASK.format(data="a * b * 2").replace("batch_size, num_images_per_prompt", "a, b"),
                  ("TPL101",)) == []
    sized = ("tensor is created on the CPU by the legacy constructor `torch.Tensor(...)` and then copied to the "
             "device; create it there with `torch.empty(..., device=...)`")
    assert _found(GUIDANCE_MASK.format(data="batch_size * num_images_per_prompt * 2"), ("TPL101",)) == [
        ("TPL101", 6, 8, sized)]
