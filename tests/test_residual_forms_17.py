"""Forms the first scores of holdout51-holdout54 got wrong (2026-11-27, the seventeenth session):
each with its flagged twin, whole diagnostics."""

from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found

LEGACY = ("tensor is created on the CPU by the legacy constructor `torch.{factory}(...)` and then copied to "
          "the device; create it there with `torch.tensor(..., dtype={dtype}, device=...)`")


REGISTERED_PROCESS_FUNCTION = """\
import torch
from ignite.engine import Engine

from lemanchot.pipeline.core import pipeline_register


@pipeline_register("simple")
def simple_train_step(engine{annotation}, batch, model, criterion, optimizer):
    inputs, targets = batch
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    loss.backward()
    optimizer.step()
    return {"y_pred": outputs, "loss": loss.item()}
"""


def test_an_ignite_process_function_known_by_its_signature_returns_its_output():
    """thermal-segmentor registers ``(engine: Engine, batch, ...)`` step functions in a dict (of
    another module) that a wrapper hands to ``Engine`` through ``partial``: the signature says Ignite runs the function,
    so the dict it returns is the engine's output, which its handlers log (R43)."""
    assert _found(REGISTERED_PROCESS_FUNCTION.replace("{annotation}", ": Engine")) == []


def test_the_same_function_without_ignites_annotation_is_a_plain_step():
    source = REGISTERED_PROCESS_FUNCTION.replace("{annotation}", "")
    assert _found(source) == [("TPL102", 15, 39, SYNC.format(what="`.item()`"))]


METRIC_STEP_FROM_NO_GRAD_EVALUATION = """\
import numpy as np
import torch


class APCalculator:
    def __init__(self):
        self.gt = []

    def step_meter(self, outputs, targets):
        self.{method}(boxes=outputs["boxes"], labels=targets["labels"])

    def {method}(self, boxes, labels):
        boxes = boxes.cpu().detach()
        labels = labels.cpu().detach()
        self.gt.append(self.make_gt_list(boxes, labels))

    def make_gt_list(self, boxes, labels):
        return [(labels[i], boxes[i]) for i in range(len(labels))]


{decorator}
def evaluate(model, loader, device):
    ap_calculator = APCalculator()
    for batch in loader:
        outputs = model(batch["points"].to(device))
        ap_calculator.step_meter(outputs, batch)
    return ap_calculator
"""


def test_a_metric_method_named_step_under_no_grad_trains_nothing():
    """3detr's ``APCalculator.step``, called from a ``@torch.no_grad()`` evaluation: with autograd
    off along the whole chain nothing can train, so the name ``step`` says nothing; the copies
    bring evaluation's results to numpy (R8)."""
    source = (METRIC_STEP_FROM_NO_GRAD_EVALUATION.replace("{method}", "step")
              .replace("{decorator}", "@torch.no_grad()"))
    assert _found(source) == []


def test_the_same_step_with_autograd_on_may_train():
    """Without ``no_grad`` a method named ``step`` may be a training step the index does not see
    (a name that says it trains keeps R8 off)."""
    source = METRIC_STEP_FROM_NO_GRAD_EVALUATION.replace("{method}", "step").replace("{decorator}", "")
    chain = " (called every step from train.py:26 via step_meter)"
    assert _found(source) == [("TPL102", 13, 16, SYNC.format(what="`.cpu()`") + chain),
                              ("TPL102", 14, 17, SYNC.format(what="`.cpu()`") + chain)]


def test_a_metric_method_named_otherwise_was_never_training():
    source = (METRIC_STEP_FROM_NO_GRAD_EVALUATION.replace("{method}", "accumulate")
              .replace("{decorator}", ""))
    assert _found(source) == []


PREDICTION_RECORDS = """\
import torch


@torch.no_grad()
def predict(model, loader, reader, device):
    predictions = []
    for batch in loader:
        types, scores = model(batch["input_ids"].to(device))
        for i in range(types.shape[0]):
            {line}
    return predictions
"""


def test_numbers_kept_as_fields_of_a_prediction_record_are_evaluation_results():
    """votenet's ``(pred_sem_cls[i, j].item(), corners[i, j], prob)``, YOLOv6's COCO dicts with
    ``"score": round(s.item(), 5)``, spert's ``(start, end, type, score)`` built from names: the
    record is kept for a host evaluator (R44, like R8's copies)."""
    for line in ('predictions.append((types[i].item(), batch["spans"][i], scores[i]))',
                 'predictions.append({"image_id": i, "bbox": batch["boxes"][i], "score": round(scores[i].item(), 5)})',
                 'score = scores[i].item(); predictions.append((i, reader.entity_type(i), score))'):
        assert _found(PREDICTION_RECORDS.replace("{line}", line)) == [], line


def test_numbers_summed_shown_or_kept_alone_stay_flagged():
    """A record made only of numbers read from tensors is a metric, and so is a named number
    (edge-connect's ``logs.append(("psnr", psnr.item()))`` for its progress bar, holdout55); a
    number appended alone, or added up before it is kept, is a running total (R22; alignn's
    ``val_loss1 += loss1.item()``); a field named as a metric is one (SALMONN's ``{"id": ...,
    "loss": loss.item()}``, holdout36); a shown number is read as a metric (R7)."""
    cases = {
        'predictions.append({"loss": types[i].item(), "acc": scores[i].item()})':
            [("TPL102", 10, 40, SYNC.format(what="`.item()`")), ("TPL102", 10, 64, SYNC.format(what="`.item()`"))],
        'predictions.append(scores[i].item())': [("TPL102", 10, 31, SYNC.format(what="`.item()`"))],
        'predictions.append({"id": i, "loss": scores[i].item()})': [("TPL102", 10, 49, SYNC.format(what="`.item()`"))],
        'acc = scores[i].item(); predictions.append((i, batch["spans"][i], acc))':
            [("TPL102", 10, 18, SYNC.format(what="`.item()`"))],
        'total += scores[i].item(); predictions.append((i, batch["spans"][i], total))':
            [("TPL102", 10, 21, SYNC.format(what="`.item()`"))],
        'predictions.append(("psnr", scores[i].item()))': [("TPL102", 10, 40, SYNC.format(what="`.item()`"))],
        'print((i, scores[i].item()))': [("TPL102", 10, 22, SYNC.format(what="`.item()`"))],
    }
    for line, expected in cases.items():
        assert _found(PREDICTION_RECORDS.replace("{line}", line)) == expected, line


EVALUATION_IDS = """\
import torch


@torch.no_grad()
def predict(model, loader, reader, device):
    predictions = []
    for batch in loader:
        types = model(batch["input_ids"].to(device))
        valid = types.nonzero().view(-1)
        chosen = types[valid]
        for i in range(chosen.shape[0]):
            label_idx = chosen[i].item()
            {use}
    return predictions
"""


def test_ids_and_indices_evaluation_decodes_on_the_host_are_host_needed():
    """spert's ``label_idx = types[i].item()`` handed to ``input_reader.get_entity_type`` and
    ``types.nonzero().view(-1)`` indexing the predictions to decode: in code that trains nothing,
    an id handed to a call (R38) and the indices that pick the results (R8) are host-needed."""
    assert _found(EVALUATION_IDS.replace("{use}", "predictions.append(reader.entity_type(label_idx))")) == []


def test_an_id_that_is_shown_stays_flagged():
    source = EVALUATION_IDS.replace("{use}", "print(label_idx)")
    assert _found(source) == [("TPL102", 12, 24, SYNC.format(what="`.item()`"))]


def test_an_id_that_keys_a_container_of_unknown_kind_stays_flagged():
    """A key into a container handed in may index a tensor (R12): only ids handed to calls count.
    (``reader.table``: a container named as a list of names, ``reader.names``, holds strings, R71.)"""
    source = EVALUATION_IDS.replace("{use}", "predictions.append(reader.table[label_idx])")
    assert _found(source) == [("TPL102", 12, 24, SYNC.format(what="`.item()`"))]


def test_nonzero_indices_in_a_training_loop_stay_flagged():
    source = """\
import torch


def train(model, loader, optimizer, device):
    for batch in loader:
        types = model(batch["input_ids"].to(device))
        valid = types.nonzero().view(-1)
        loss = types[valid].sum()
        loss.backward()
        optimizer.step()
"""
    assert _found(source) == [("TPL102", 7, 16, SYNC.format(what="`.nonzero()`"))]


LOOP_OVER_LOADERS = """\
import logging
import torch


class Runner:
    def test(self):
        for loader in {loaders}:
            self.test_dataset_task(loader)

    def test_dataset_task(self, testloader):
        metrics_res = torch.zeros(3, device=self.device)
        with torch.no_grad():
            for batch in testloader:
                metrics_res += self.model(batch.to(self.device))
        for i in range(len(self.metrics)):
            logging.info(f"{self.metrics[i]}: {metrics_res[i]}")
"""


def test_a_loop_over_several_loaders_hands_out_loaders_not_batches():
    """OpenP5: ``for loader in self.testloaders: self.test_dataset_task(loader)`` runs one
    evaluation per loader; the report after each evaluation's loop runs once per loader."""
    assert _found(LOOP_OVER_LOADERS.replace("{loaders}", "self.testloaders")) == []


def test_a_loop_over_one_loader_calls_the_task_every_batch():
    source = LOOP_OVER_LOADERS.replace("{loaders}", "self.test_loader")
    assert _found(source) == [("TPL102", 16, 25, SYNC.format(what="formatting a tensor")
                                          + " (called every step from train.py:8)")]


RANGE_INDICES = """\
import torch


class GeneModel(torch.nn.Module):
    def forward(self, data):
        return self.gene_emb(torch.LongTensor({data}).repeat(data.num_graphs).to(self.args["device"]))
"""


def test_a_legacy_constructor_of_a_counted_range_moved_to_a_settings_device():
    """GEARS: ``torch.LongTensor(list(range(self.num_genes))).repeat(n).to(self.args['device'])``:
    numbers the host counts out, made on the CPU and copied, to the device a settings mapping
    names (as ``args.device``)."""
    for data, col in (("list(range(self.num_genes))", 29), ("range(4)", 29)):
        assert _found(RANGE_INDICES.replace("{data}", data), codes=("TPL101",)) == [
            ("TPL101", 6, col, LEGACY.format(factory="LongTensor", dtype="torch.int64"))], data


def test_a_legacy_constructor_of_an_unknown_value_or_a_non_device_key_is_left_alone():
    assert _found(RANGE_INDICES.replace("{data}", "self.ids"), codes=("TPL101",)) == []
    source = RANGE_INDICES.replace("{data}", "list(range(4))").replace('"device"', '"dtype"')
    assert _found(source, codes=("TPL101",)) == []


FLAG_ATTRIBUTE = """\
import lightning.pytorch as pl
import torch


class Segmentation(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        output = self.model(batch)
        loss = self.criterion(output, batch.y)
        if {test}:
            self.log("train/loss", loss)
        return loss
"""


def test_an_attribute_named_as_a_yes_no_answer_is_a_python_bool():
    """superpoint_transformer: ``if partition_output.has_target:``, ``if batch.has_atoms:``:
    properties named as a yes/no answer are Python bools, like a tensor's own ``is_cuda``."""
    for test in ("output.has_target", "batch.is_multimodal"):
        assert _found(FLAG_ATTRIBUTE.replace("{test}", test)) == [], test


def test_an_attribute_of_the_model_output_is_still_tested_as_a_tensor():
    source = FLAG_ATTRIBUTE.replace("{test}", "output.mask.any()")
    assert _found(source) == [("TPL102", 9, 11, SYNC.format(what="testing a tensor's truth"))]


def test_both_twins_read_a_plural_name_of_loaders_as_handing_out_loaders():
    """The libcst and ast twins of ``iterates_loader`` agree: a plural name of loaders iterated
    directly or through ``enumerate`` hands out loaders; one of them, or ``zip(*loaders)``,
    hands out batches."""
    import ast

    import libcst as cst

    from torchperf_lint.analysis.names import ImportTable
    from torchperf_lint.analysis.step_loops import ModuleSteps

    steps = ModuleSteps(ast.parse("import torch\n"), ImportTable({"torch": "torch"}, True))
    cases = {"self.testloaders": False, "enumerate(val_dataloaders)": False, "self.test_loader": True,
             'loaders["val"]': True, "zip(*loaders)": True, "enumerate(self.loaders[phase])": True}
    for text, expected in cases.items():
        assert steps.iterates_loader(cst.parse_expression(text)) is expected, text
        assert steps.ast_iterates_loader(ast.parse(text, mode="eval").body) is expected, text


METRICS_PER_K = """\
import torch


@torch.no_grad()
def evaluate(model, loader, ks):
    metrics = {}
    for batch in loader:
        scores = model(batch.cuda())
        for k in ks:
            hits = scores[:, :k].sum(1)
            metrics["Recall@%d" % k] = {read}
    return metrics
"""


def test_a_copy_read_as_a_number_at_once_is_a_metric_even_when_kept():
    """LlamaRec (holdout58): ``metrics["Recall@%d" % k] = hits.mean().cpu().item()`` stores a
    number read from the device every batch: R8 keeps copies of results silent, not numbers."""
    expected = [("TPL102", 11, 39, SYNC.format(what="`.cpu()`"))]
    assert _found(METRICS_PER_K.replace("{read}", "hits.mean().cpu().item()")) == expected


def test_a_kept_copy_of_results_stays_silent():
    assert _found(METRICS_PER_K.replace("{read}", "hits.cpu()")) == []


VALIDATION_BY_SLICES = """\
import torch


class BC:
    def train(self, train_buffer, val_buffer, n_val):
        for epoch in range(self.max_epoch):
            for i in range(self.steps_per_epoch):
                batch = train_buffer.sample(self.batch_size)
                loss = self.actor(batch["obs"].to(self.device)).mean()
                self.actor_optim.zero_grad()
                loss.backward()
                self.actor_optim.step()
            with torch.no_grad():
                val_loss = 0
                for i in range(n_val):
                    batch = {taken}
                    out = self.actor(batch["obs"].to(self.device))
                    val_loss += out.mean().item()
            print(val_loss)
"""


def test_a_no_grad_loop_slicing_data_by_its_counter_is_an_evaluation_over_data():
    """OfflineRL's BC (holdout58): ``batch = val_buffer[i * bs:(i + 1) * bs]`` takes a batch each
    time round: an evaluation loop whose per-batch ``.item()`` is a label (R7, R22), not R1's
    sample generation beside the step loop."""
    source = VALIDATION_BY_SLICES.replace("{taken}", "val_buffer[i * self.batch_size:(i + 1) * self.batch_size]")
    assert _found(source) == [("TPL102", 18, 32, SYNC.format(what="`.item()`"))]


def test_a_no_grad_loop_that_takes_no_data_generates_samples():
    source = VALIDATION_BY_SLICES.replace("{taken}", "self.sampler.draw(self.batch_size)")
    assert _found(source) == []


def test_a_tensor_compared_with_none_is_a_python_bool():
    """VoiceCraft (holdout56): ``if out == None: continue`` after the model call; a tensor
    compared with None gives False, a Python bool, and waits for nothing."""
    source = """\
import torch


def train(model, loader, optimizer):
    for batch in loader:
        out = model(batch.cuda())
        if out {op} None:
            continue
        out.sum().backward()
        optimizer.step()
"""
    assert _found(source.replace("{op}", "==")) == []
    assert _found(source.replace("{op}", "!=")) == []
    assert _found(source.replace("{op}", "> 0 or out ==")) == [
        ("TPL102", 7, 11, SYNC.format(what="testing a tensor's truth"))]


def test_both_twins_tell_a_loop_that_slices_data_by_its_counter():
    import ast

    import libcst as cst

    from torchperf_lint.analysis.step_loops import _ast_slices_by_counter, _cst_slices_by_counter

    cases = {
        "for i in range(n):\n    batch = data[i * bs:(i + 1) * bs]\n": True,
        "for i in range(n):\n    batch = data[i]\n": False,  # one item (a timestep), not a batch
        "for i in range(n):\n    x = f(x)\n    y = x[i:i + 1]\n": False,  # made by the loop
        "for i in range(n):\n    batch = data[j:j + bs]\n": False,  # not by the loop's counter
    }
    for text, expected in cases.items():
        assert _ast_slices_by_counter(ast.parse(text).body[0]) is expected, text
        assert _cst_slices_by_counter(cst.parse_module(text).body[0]) is expected, text


def test_a_helper_the_evaluation_over_data_calls_runs_every_batch():
    """The index's side of the same loop: a helper it calls each time round is a step body."""
    source = (VALIDATION_BY_SLICES.replace("{taken}", "val_buffer[i * self.batch_size:(i + 1) * self.batch_size]")
              .replace("val_loss += out.mean().item()", "val_loss += mean_of(out)")
              + "\n\ndef mean_of(t):\n    return t.mean().item()\n")
    assert _found(source) == [("TPL102", 23, 11, SYNC.format(what="`.item()`")
                               + " (called every step from train.py:18)")]


def test_nonzero_indices_whose_picks_stay_on_the_device_still_sync():
    """The indices pick predictions that never reach the host: the ``nonzero`` is a wait of its
    own (a mask keeps it on the device)."""
    source = EVALUATION_IDS.replace("chosen = types[valid]", "chosen = types[valid]; total = chosen.sum()").replace(
        "label_idx = chosen[i].item()", "label_idx = i")
    assert _found(source.replace("{use}", "predictions.append(total)")) == [
        ("TPL102", 9, 16, SYNC.format(what="`.nonzero()`"))]


def test_a_prediction_read_with_item_is_a_kept_result():
    """FrozenBiLM (holdout42): ``res[qid] = {"pred": pred.cpu().detach().item(), ...}`` keeps each
    prediction; only a reduction read so (LlamaRec's mean hit rate) is a metric."""
    assert _found(METRICS_PER_K.replace("{read}", "hits[0].cpu().detach().item()")) == []


CALLBACK_SUBCLASS = """\
import torch
from lightning.pytorch.callbacks import {base}


class SaveCheckpoint({base}):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        loss = outputs["loss"]
        if torch.isnan(loss).any():
            trainer.should_stop = True
"""


def test_a_subclass_of_a_lightning_callback_runs_its_batch_hooks_every_step():
    """scvi-tools (holdout62): ``SaveCheckpoint(ModelCheckpoint)`` overrides
    ``on_train_batch_end``; Lightning's own callbacks are ``Callback`` subclasses."""
    for base in ("Callback", "ModelCheckpoint", "EarlyStopping"):
        assert _found(CALLBACK_SUBCLASS.replace("{base}", base)) == [
            ("TPL102", 8, 11, SYNC.format(what="testing a tensor's truth"))], base


def test_a_class_of_another_library_named_so_is_no_lightning_callback():
    source = CALLBACK_SUBCLASS.replace("from lightning.pytorch.callbacks import {base}",
                                       "from keras.callbacks import ModelCheckpoint").replace("{base}", "ModelCheckpoint")
    assert _found(source) == []


GEOMETRY_LIBRARY = """\
import torch
from {library} import fast_winding_number_for_meshes


def train(model, loader, optimizer, mesh_v, mesh_f):
    for batch in loader:
        query = model(batch.cuda())
        query_np = query.detach().cpu().reshape(-1, 3).numpy()
        alphas = fast_winding_number_for_meshes(mesh_v, mesh_f, query_np)
        loss = (query.sum() - torch.from_numpy(alphas).cuda().sum()) ** 2
        loss.backward()
        optimizer.step()
"""


def test_geometry_libraries_consume_host_arrays():
    """threestudio's shape initialisation hands ``query.cpu().numpy()`` to libigl; polyscope,
    open3d, trimesh and igl are host libraries (R3), like scipy."""
    assert _found(GEOMETRY_LIBRARY.replace("{library}", "igl")) == []
    assert _found(GEOMETRY_LIBRARY.replace("{library}", "mypackage.geometry")) == [
        ("TPL102", 8, 19, SYNC.format(what="`.cpu()`"))]
