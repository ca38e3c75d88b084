"""Forms the first scores of holdout27-holdout30 missed or got wrong (2026-11-27, the twelfth
session; tuned on those sets after their first scores): each with its flagged and silent twins,
whole diagnostics."""

from torchperf_lint.engine import fix_source, lint_source

from _diagnostics import SCALER, SYNC_TEMPLATE as SYNC, found as _found


LIBRARY_BASED_MODEL = """\
import torch
import pytorch_lightning as pl
from lavis.models.base_model import BaseModel


class Blip2Base(BaseModel):
    pass


class Blip2Qformer(Blip2Base):
    def forward(self, batch):
        return self.lm(batch)


class Blip2OPT(Blip2Base):
    def forward(self, batch):
        outputs = self.opt(batch)
        return {"loss": outputs.loss}


class Stage(pl.LightningModule):
    def __init__(self, args):
        super().__init__()
        self.blip2qformer = Blip2Qformer()
        self.blip2opt = Blip2OPT()

    def training_step(self, batch, batch_idx):
        blip2_loss = self.blip2qformer(batch)
        self.log("train_loss", float(blip2_loss.loss), batch_size=4)
        loss = self.blip2opt(batch)
        self.log("opt_loss", float(loss["loss"]), batch_size=4)
        return blip2_loss.loss + loss["loss"]
"""


def test_a_project_model_built_on_a_library_class_gives_a_models_output():
    """MolCA's ``Blip2Qformer`` derives, through its own ``Blip2Base``, from lavis's ``BaseModel``,
    which the project cannot show: calling an instance runs its ``forward`` only as an ``nn.Module``
    does, so what it returns (an output object, or the dict ``{"loss": loss}``) is a model's output,
    and ``float()`` of it for ``self.log`` syncs every step. A project class on a base of the
    standard library (``abc.ABC``) is no module: silent."""
    float_sync = SYNC.format(what="`float()` of a tensor")
    assert _found(LIBRARY_BASED_MODEL) == [
        ("TPL102", 29, 31, float_sync),
        ("TPL102", 31, 29, float_sync),
    ]
    abstract = LIBRARY_BASED_MODEL.replace("from lavis.models.base_model import BaseModel", "from abc import ABC").replace(
        "class Blip2Base(BaseModel):", "class Blip2Base(ABC):")
    assert _found(abstract) == []


OWN_FORWARD = """\
import torch


class Model(torch.nn.Module):
    def fit(self, dataloader, optimizer, amp=False, train=True):
        losses = []
        with torch.set_grad_enabled(mode=train):
            for batch_idx, (x, y) in enumerate(dataloader):
                if amp:
                    with torch.cuda.amp.autocast():
                        output = self(x, targets=y, training=True)
                else:
                    output = self(x, targets=y, training=True)
                losses.append(float(output["loss"]))
                if train:
                    optimizer.zero_grad()
                    output["loss"].backward()
                    optimizer.step()
        return losses
"""


def test_a_modules_own_call_in_its_training_loop():
    """Transformers4Rec's ``Model.fit``: ``output = self(x, ...)`` in a method of an ``nn.Module``
    runs the module's own forward (a model's output: ``float(output["loss"])`` syncs every step), and
    the float16 autocast around it has no GradScaler although a backward runs in the loop: the
    ``with torch.set_grad_enabled(mode=train):`` around the loop is on whenever that backward runs.
    A class that is no module, and a grad mode set off by a constant or ``no_grad``, stay silent."""
    assert _found(OWN_FORWARD, codes=("TPL102", "TPL301")) == [
        ("TPL301", 10, 25, SCALER),
        ("TPL102", 14, 30, SYNC.format(what="`float()` of a tensor")),
    ]
    plain = OWN_FORWARD.replace("class Model(torch.nn.Module):", "class Model:")
    assert _found(plain) == []
    for off in ("torch.set_grad_enabled(False)", "torch.no_grad()"):
        assert _found(OWN_FORWARD.replace("torch.set_grad_enabled(mode=train)", off), codes=("TPL301",)) == []


INHERITED_EVAL_MODEL = """\
import torch
from text2vec.sentence_model import SentenceModel


class BgeModel(SentenceModel):
    def train_model(self, train_dataloader, optimizer, num_epochs, eval_dataset):
        best_eval_metric = 0
        for epoch in range(num_epochs):
            for step, batch in enumerate(train_dataloader):
                loss = self.calc_loss(self.bert(batch.to(self.device)))
                loss.backward()
                optimizer.step()
            results = self.eval_model(eval_dataset)
            eval_spearman = results["eval_spearman"]
            if eval_spearman > best_eval_metric:
                best_eval_metric = eval_spearman
        return best_eval_metric
"""


def test_an_inherited_eval_model_method_is_no_model():
    """text2vec's ``BgeModel.train_model`` calls ``self.eval_model(eval_dataset)`` once per epoch,
    a method its base ``SentenceModel`` (another file) defines: no model call, so the epoch loop
    runs no step of its own and what ``eval_model`` returns is no model output. Where the module
    binds ``self.eval_model = ...`` (a model kept for evaluation), the call is a model's again."""
    assert _found(INHERITED_EVAL_MODEL) == []
    kept = INHERITED_EVAL_MODEL.replace(
        "        best_eval_metric = 0\n",
        "        best_eval_metric = 0\n        self.eval_model = self.bert\n")
    assert _found(kept) == [("TPL102", 16, 15, SYNC.format(what="testing a tensor's truth"))]


FIRST_BATCH_ONLY = """\
import torch


def train(model, optimizer, train_dataloader, n_epochs):
    for epoch in range(n_epochs):
        for batch_cnt, (input_ids, labels) in enumerate(train_dataloader):
            if batch_cnt == 1 and epoch == 0:
                torch.cuda.empty_cache()
            loss = model(input_ids=input_ids, labels=labels).loss
            loss.backward()
            optimizer.step()
"""


def test_a_batch_cnt_counter_tested_for_one_value_is_an_interval():
    """MOSS's ``if batch_cnt == 1 and epoch == 0: torch.cuda.empty_cache()`` runs once in the whole
    run: ``batch_cnt`` counts batches (rules.md "An interval": a test on the batch counter). A test
    that holds on every batch after the first is none."""
    assert _found(FIRST_BATCH_ONLY, codes=("TPL103",)) == []
    every = FIRST_BATCH_ONLY.replace("batch_cnt == 1 and epoch == 0", "batch_cnt > 1")
    assert _found(every, codes=("TPL103",)) == [(
        "TPL103", 8, 16, "`torch.cuda.empty_cache()` in a loop frees the allocator's cache only for it to be "
        "re-allocated with synchronous cudaMalloc calls; remove it (the caching allocator reuses memory)")]


GRPO_PRINTS = """\
import torch
from transformers import Trainer


class GRPOTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        prompt_inputs = super()._prepare_inputs(inputs)
        prompt_ids = prompt_inputs["input_ids"]
        with unwrap_model_for_generation(self.model, self.accelerator) as unwrapped_model:
            prompt_completion_ids = unwrapped_model.generate(prompt_ids)
        print("prompts_ids", prompt_ids)
        print("prompt_completion_ids", prompt_completion_ids)
        print("prompt len", prompt_ids.size(1))
        return model(**inputs).loss
"""


def test_prepared_inputs_and_generated_ids_live_on_the_device():
    """BioReason's GRPO ``compute_loss`` prints ``super()._prepare_inputs(...)``'s ids (the Hugging
    Face ``Trainer`` moves the batch to its device) and a model's ``generate(...)`` ids every step.
    A size read off them, and what an object that is no model generates, are no tensor."""
    printing = SYNC.format(what="printing a tensor")  # (a framework step method: no chain)
    assert _found(GRPO_PRINTS) == [("TPL102", 11, 8, printing), ("TPL102", 12, 8, printing)]
    other = GRPO_PRINTS.replace("super()._prepare_inputs(inputs)", "self.tokenize(inputs)").replace(
        "unwrapped_model.generate(prompt_ids)", "self.sampler.generate(prompt_ids)")
    assert _found(other) == []


PARENTHESISED_TEST = """\
import torch


def train(model, loader, optimizer, args):
    for inputs in loader:
        tr_loss_step = model(inputs.cuda()).mean()
        if (
            args.logging_nan_inf_filter
            and (torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step))
        ):
            continue
        if (torch.isnan(tr_loss_step)):
            continue
        tr_loss_step.backward()
        optimizer.step()
"""


def test_a_parenthesised_test_opening_on_the_if_line_is_reported_there():
    """DexVLA's (the Hugging Face ``_inner_training_loop``'s) ``if (`` with one operand per line, as
    black writes it: the truth test is reported on the ``if`` line, where a reader and a ``# noqa``
    look, not on the operand's line. A test in parentheses on one line is reported at the test."""
    truth = SYNC.format(what="testing a tensor's truth")
    assert _found(PARENTHESISED_TEST) == [("TPL102", 7, 8, truth), ("TPL102", 12, 12, truth)]


EARLY_CONTINUE_ACCUMULATION = """\
import torch
from torch.nn.parallel import DistributedDataParallel


def train(model, train_loader, optimizer, scaler, args):
    model = DistributedDataParallel(model)
    for data_iter, inputs in enumerate(train_loader):
        loss = model(*[t.cuda() for t in inputs]).mean() / args.update_freq
        scaler.scale(loss).backward()

        if (data_iter + 1) % args.update_freq != 0:
            continue

        scaler.step(optimizer)
        scaler.update()
        model.zero_grad(set_to_none=True)
"""


def test_accumulation_by_an_early_continue_under_an_interval():
    """SLIP's ``main.py`` accumulates with ``if (data_iter + 1) % args.update_freq != 0: continue``
    before the scaler's step: every backward all-reduces, one step in ``update_freq`` uses it.
    A ``continue`` under a test that is no interval leaves the step running every round: silent."""
    from torchperf_lint.rules.tpl207_ddp_accumulation_without_no_sync import RULE
    assert _found(EARLY_CONTINUE_ACCUMULATION, codes=("TPL207",)) == [("TPL207", 9, 8, RULE.message)]
    no_interval = EARLY_CONTINUE_ACCUMULATION.replace("(data_iter + 1) % args.update_freq != 0", "loss is None")
    assert _found(no_interval, codes=("TPL207",)) == []


BAR_ABOVE_ITS_LOADER = """\
import torch
import tqdm


def train(model, device, train_sampler, optimizer):
    pbar = tqdm.tqdm(train_sampler)
    for x, y in pbar:
        x, y = x.to(device), y.to(device)
        model(x, y).backward()
        optimizer.step()


def main(args, dataset, model, optimizer):
    dataloader_kwargs = {"num_workers": 4, "pin_memory": True}
    train_sampler = torch.utils.data.DataLoader(dataset, batch_size=16, **dataloader_kwargs)
    train(model, torch.device("cuda"), train_sampler, optimizer)
"""


def test_a_progress_bar_defined_above_the_loader_it_wraps():
    """open-unmix's ``train()`` iterates ``pbar = tqdm.tqdm(train_sampler)``, and the pinned
    ``train_sampler = DataLoader(..., **dataloader_kwargs)`` is bound further down, in ``main()``:
    the bar still hands out that loader's pinned batches. An unpinned loader stays silent."""
    found = [(f.code, f.line, f.col, f.message) for f in lint_source(BAR_ABOVE_ITS_LOADER, "train.py", codes=("TPL104",))]
    assert [f[:3] for f in found] == [("TPL104", 8, 15), ("TPL104", 8, 29)]
    from torchperf_lint.rules.tpl104_blocking_copy import RULE
    assert {f[3] for f in found} == {RULE.message}
    fixes = [(f.fix.applicability, f.fix.description)
             for f in lint_source(BAR_ABOVE_ITS_LOADER, "train.py", codes=("TPL104",))]
    assert fixes == [("safe", "add non_blocking=True")] * 2
    fixed, count = fix_source(BAR_ABOVE_ITS_LOADER, codes=("TPL104",), filename="train.py")
    assert count == 2 and fixed == BAR_ABOVE_ITS_LOADER.replace(
        "x, y = x.to(device), y.to(device)", "x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)")
    compile(fixed, "train.py", "exec")
    assert fix_source(fixed, codes=("TPL104",), filename="train.py") == (fixed, 0)
    unpinned = BAR_ABOVE_ITS_LOADER.replace('"pin_memory": True', '"pin_memory": False')
    assert _found(unpinned, codes=("TPL104",)) == []


CONVERTED_BEFORE_THE_MOVE = """\
import torch
from torch.utils.data import DataLoader


def generate(model, dataset):
    loader = DataLoader(dataset, batch_size=8, num_workers=4, pin_memory=True)
    for batch in loader:
        inputs = batch["input_ids"].cuda()
        images = batch["images"].half().cuda()
        pixels = batch["pixels"].to(torch.bfloat16).cuda()
        masks = batch["masks"].float().cuda()
        model(inputs, images, pixels, masks)
"""


def test_a_batch_converted_on_the_host_is_no_longer_pinned():
    """RLAIF-V's ``batch['images'].half().cuda()``: ``.half()`` (or ``.to(torch.bfloat16)``)
    makes a new host tensor in pageable memory, whose copy cannot overlap: no TPL104 there. The
    ``input_ids`` moved as the loader pinned them, and ``.float()`` (the batch itself when it is
    float32 already), keep theirs."""
    from torchperf_lint.rules.tpl104_blocking_copy import RULE
    found = [(f.code, f.line, f.col, f.message) for f in lint_source(CONVERTED_BEFORE_THE_MOVE, "gen.py",
                                                                    codes=("TPL104",))]
    assert found == [("TPL104", 8, 17, RULE.message), ("TPL104", 11, 16, RULE.message)]


ASSERT_MESSAGE = """\
import torch


def train(model, loader, optimizer):
    for x in loader:
        loss = model(x.cuda()).mean()
        assert torch.isfinite(loss), f"loss: {loss.item()}"
        assert loss.item() < 1e6, "diverged"
        loss.backward()
        optimizer.step()
"""


def test_a_sync_in_an_asserts_message_runs_only_when_it_fails():
    """nequip's ``assert torch.isclose(...), f"numeric: {numeric.item()}"``: Python builds the
    message only once the assertion has failed (and then raises), never on a step that passes. The
    assertion's test itself runs every step (rules.md: asserts on tensors are read ambiguous, but
    an ``.item()`` in the test is the per-step sync)."""
    assert _found(ASSERT_MESSAGE) == [("TPL102", 8, 15, SYNC.format(what="`.item()`"))]


DICT_STORE_KEYS = """\
import torch
import pytorch_lightning as pl


class Separator(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 4)
        self.estimates = {}
        self.counts = {}

    def training_step(self, batch, batch_idx):
        mixtures, mixture_ids, offsets, names = batch
        out = self.net(mixtures)
        for est, idx, offset, name in zip(out, mixture_ids, offsets, names):
            self.estimates[name][idx.item()][offset.item()] = est.detach()
            self.counts[idx.item()] += 1
        return out.sum()
"""


def test_a_key_a_python_dict_stores_under_is_host_needed():
    """LaSAFT's ``self.test_estimation_dict[target_name][mixture_idx.item()][window_offset.item()] =
    ...``: a Python dict takes its keys on the host, for a store as for a read (R3), also a dict
    kept in a dict. A running count (``self.counts[idx.item()] += 1``) stays a per-step sync (R22)."""
    assert _found(DICT_STORE_KEYS) == [("TPL102", 17, 24, SYNC.format(what="`.item()`"))]


OUTPUT_COUNT_FIELD = """\
import torch
import pytorch_lightning as pl


class LitWrapper(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, **inputs):
        return self.model(**inputs)

    def validation_step(self, batch, batch_idx):
        outputs = self(**batch)
        total_num = outputs.cl_total_num
        accuracy = 0.0
        if total_num > 0:
            accuracy = outputs.cl_correct_num / total_num
        if outputs.loss > 100:
            print("diverging")
        self.log_dict({"val_loss": outputs.loss, "accuracy": accuracy})
"""


def test_a_count_field_of_a_modules_own_output_is_no_tensor():
    """RecFormer's ``validation_step``: ``outputs = self(**batch)`` is the module's own output (R28),
    and its ``loss`` a device tensor (a truth test syncs every validation batch), but
    ``outputs.cl_total_num`` holds the batch size, a Python int: a field named as a count
    (``*_num``, ``*_count``, ``num_*``) is no tensor."""
    assert _found(OUTPUT_COUNT_FIELD) == [("TPL102", 19, 11, SYNC.format(what="testing a tensor's truth"))]


CPU_ATTRIBUTE_METER = """\
import torch


class TestMeter:
    def __init__(self, num_videos, num_cls, multi_label):
        self.video_preds = torch.zeros((num_videos, num_cls))
        self.video_labels = (
            torch.zeros((num_videos, num_cls)) if multi_label else torch.zeros((num_videos)).long()
        )

    def update_stats(self, preds, labels, clip_ids):
        for ind in range(preds.shape[0]):
            vid_id = int(clip_ids[ind])
            if self.video_labels[vid_id].sum() > 0:
                continue
            self.video_labels[vid_id] = labels[ind]


def test(model, test_loader, num_videos, num_cls):
    meter = TestMeter(num_videos, num_cls, False)
    for inputs, labels, video_idx in test_loader:
        preds = model(inputs.cuda())
        meter.update_stats(preds.cpu(), labels, video_idx)
"""


def test_a_self_attribute_only_ever_made_by_a_host_factory_lives_on_the_host():
    """TimeSformer's ``TestMeter`` keeps ``self.video_labels = torch.zeros(...)`` (one of two
    factories, neither given a device) and tests ``if self.video_labels[vid_id].sum() > 0:`` per
    clip: a plain attribute stays where it was made, so the test waits for no device. One moved
    anywhere in the file (``self.video_labels.cuda()``), or registered as a buffer, may live on the
    device: flagged (R27)."""
    assert _found(CPU_ATTRIBUTE_METER) == []
    truth = SYNC.format(what="testing a tensor's truth") + " (called every step from train.py:26)"
    for moved in ("self.video_labels = self.video_labels.cuda()",
                  "self.register_buffer('video_labels', torch.zeros(num_videos))"):
        source = CPU_ATTRIBUTE_METER.replace(
            "    def update_stats(", f"    def place(self):\n        {moved}\n\n    def update_stats(")
        assert _found(source) == [("TPL102", 17, 15, truth)], moved


DEBUG_DUMPS = """\
import torch
import pytorch_lightning as pl


def debug_tensor_content(tensor, name):
    print(name, torch.min(tensor), torch.isnan(tensor).any())


class InputMonitor(pl.Callback):
    def __init__(self):
        self.logged_train_batch = False

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if self.logged_train_batch:
            return
        debug_tensor_content(batch, "train")
        self.logged_train_batch = True


class Speaker(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        try:
            loss = self.net(batch).mean()
        except Exception:
            debug_tensor_content(batch, "train_step")
            raise
        return loss
"""


def test_a_latched_dump_and_a_failure_handlers_dump_run_not_every_step():
    """w2v2-speaker's ``InputMonitor.on_train_batch_start`` returns early once its flag is set and
    sets it after dumping the first batch (a latch: rules.md "An interval", what follows an early
    exit runs once); its ``training_step`` dumps the batch only in an ``except`` handler (when the
    step failed). Neither makes the dump's prints per-step syncs. Without the latch's reset, or
    with the dump in the ``try`` body, they are."""
    assert _found(DEBUG_DUMPS) == []
    chain = " (called every step from train.py:{line} via {via})"
    printing = SYNC.format(what="printing a tensor")
    never_reset = DEBUG_DUMPS.replace("        self.logged_train_batch = True\n", "")
    assert _found(never_reset) == [("TPL102", 6, 4, printing + chain.format(line=16, via="on_train_batch_start"))]
    in_try = DEBUG_DUMPS.replace(
        "            loss = self.net(batch).mean()\n",
        "            loss = self.net(batch).mean()\n            debug_tensor_content(loss, 'loss')\n")
    assert _found(in_try) == [("TPL102", 6, 4, printing + chain.format(line=24, via="training_step"))]


DPO_EVAL_METRICS = """\
import torch
from trl import DPOTrainer


class CustomDPOTrainer(DPOTrainer):
    def get_batch_metrics(self, model, batch, train_eval="train"):
        metrics = {}
        chosen_rewards = model(batch["chosen"]).logits.mean(-1)
        metrics["rewards/chosen"] = chosen_rewards.cpu().mean()
        metrics["rewards/first"] = chosen_rewards[0].item()
        return chosen_rewards.mean(), metrics

    def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
        with torch.no_grad():
            loss, metrics = self.get_batch_metrics(model, inputs, train_eval="eval")
        self.store_metrics(metrics, train_eval="eval")
        return loss.detach(), None, None
"""


def test_the_hugging_face_prediction_step_is_an_evaluation_step():
    """BELLE's ``CustomDPOTrainer``: the ``.cpu()`` metrics of ``get_batch_metrics``, whose only
    visible caller is the Trainer's ``prediction_step`` (its evaluation loop, autograd off), are
    copies in code that trains nothing (R8), as in a Lightning ``validation_step``; the per-batch
    ``.item()`` stays (R7). Called from the project's own ``compute_loss`` too, the copy runs every
    training step."""
    chain = " (called every step from train.py:15 via prediction_step)"
    assert _found(DPO_EVAL_METRICS) == [("TPL102", 10, 35, SYNC.format(what="`.item()`") + chain)]
    trained = DPO_EVAL_METRICS + """
    def compute_loss(self, model, inputs, return_outputs=False):
        return self.get_batch_metrics(model, inputs)[0]
"""
    trained_chain = " (called every step from train.py:20 via compute_loss)"
    assert _found(trained) == [("TPL102", 9, 36, SYNC.format(what="`.cpu()`") + trained_chain),
                               ("TPL102", 10, 35, SYNC.format(what="`.item()`") + trained_chain)]
