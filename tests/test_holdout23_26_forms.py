"""Forms the first scores of holdout23-holdout26 missed or got wrong (2026-11-27, the lead; tuned on
those sets after their first scores): each with its flagged and silent twins, whole diagnostics."""

from torchperf_lint.engine import lint_source

from _diagnostics import PINNED_COPY as PINNED, SYNC_TEMPLATE as SYNC, found as _found


FROM_PRETRAINED = """\
import torch
from transformers import BertForTokenClassification


class Ner(BertForTokenClassification):
    def forward(self, input_ids, valid_ids=None, labels=None):
        sequence_output = self.bert(input_ids)[0]
        for i in range(sequence_output.size(0)):
            if valid_ids[i][0].item() == 1:
                sequence_output[i] = 0
        return self.classifier(sequence_output).sum()


def main(args, loader, optimizer):
    model = Ner.from_pretrained(args.bert_model)
    model.cuda()
    for input_ids, valid_ids in loader:
        loss = model(input_ids.cuda(), valid_ids.cuda())
        loss.backward()
        optimizer.step()
"""


def test_a_model_built_by_from_pretrained_runs_its_classes_forward():
    """BERT-NER's ``model = Ner.from_pretrained(...)`` builds an instance of its own
    ``BertForTokenClassification`` subclass: the step loop's ``model(...)`` runs ``Ner.forward``,
    whose per-token ``.item()`` syncs every step. A model built by a function of unknown result is
    not followed."""
    assert _found(FROM_PRETRAINED) == [
        ("TPL102", 9, 15, SYNC.format(what="`.item()`") + " (called every step from train.py:18)")]
    unknown = FROM_PRETRAINED.replace("Ner.from_pretrained(args.bert_model)", "build_model(args.bert_model)")
    assert _found(unknown) == []


CONDITIONAL_EXPRESSION = """\
import torch


def train(model, loader, opt):
    for x in loader:
        out = model(x.cuda())
        y = out.mean() if (out != 0).sum() != 0 else out.sum()
        zs = [s.mean() if (s != 0).sum() != 0 else s.sum() for s in torch.split(out, 2)]
        y.backward()
        opt.step()
"""


def test_a_conditional_expression_tests_a_tensors_truth():
    """TransformerSum's token pooling picks ``mean`` or a zero vector with ``a if (seq != 0).sum()
    != 0 else b`` for every sentence of every batch: ``bool()`` of a device tensor, as in an ``if``
    statement. A test of a Python value, or outside a step loop, is silent."""
    assert _found(CONDITIONAL_EXPRESSION) == [
        ("TPL102", 7, 26, SYNC.format(what="testing a tensor's truth")),
        ("TPL102", 8, 26, SYNC.format(what="testing a tensor's truth")),
    ]
    host = CONDITIONAL_EXPRESSION.replace("(out != 0).sum() != 0", "out.dim() != 0").replace(
        "(s != 0).sum() != 0", "len(s) != 0")
    assert _found(host) == []
    # a function without a loop that trains nothing (it computes, once per call, what it returns)
    once = CONDITIONAL_EXPRESSION.replace("    for x in loader:\n", "    if loader:\n        x = loader[0]\n").replace(
        "        y.backward()\n        opt.step()\n", "        return y, zs\n")
    assert _found(once) == []


NUMPY_THROUGH_A_COMPARISON = """\
import numpy as np
import torch


def predict_check(pred_variable, gold_variable):
    pred = pred_variable.cpu().data.numpy()
    gold = gold_variable.cpu().data.numpy()
    overlaped = (pred == gold)
    return np.sum(overlaped), overlaped.shape[0]


def train(model, loader, optimizer):
    right = 0
    for x, y in loader:
        out = model(x.cuda())
        loss = out.mean()
        loss.backward()
        optimizer.step()
        r, t = predict_check(out.argmax(-1), y.cuda())
        right += r
"""


def test_a_host_copy_numpy_reads_through_a_comparison_is_host_needed():
    """NCRFpp's ``predict_check``: ``pred = pred_variable.cpu().data.numpy()``, ``overlaped = (pred
    == gold)``, ``np.sum(overlaped)`` every step: numpy reads the copies (rules.md "A step body",
    handed to ``np.*``) through an elementwise comparison. Compared and only printed, the copies
    are syncs the step does not need."""
    assert _found(NUMPY_THROUGH_A_COMPARISON) == []
    printed = NUMPY_THROUGH_A_COMPARISON.replace("    return np.sum(overlaped), overlaped.shape[0]\n",
                                                  "    print(overlaped)\n    return 0, 0\n")
    # a helper that copies into numpy arrays does host work (R48): silent whatever it does with them
    assert _found(printed) == []
    # in the step body itself value flow reads where the arrays go: compared and only printed, the
    # copies are syncs the step does not need
    inline = """\
import numpy as np
import torch


def train(model, loader, optimizer):
    right = 0
    for x, y in loader:
        out = model(x.cuda())
        out.mean().backward()
        optimizer.step()
        pred = out.argmax(-1).cpu().data.numpy()
        gold = y.cuda().cpu().data.numpy()
        overlaped = (pred == gold)
        {use}
"""
    assert _found(inline.replace("{use}", "right += np.sum(overlaped)")) == []
    assert [f[:2] for f in _found(inline.replace("{use}", "print(overlaped)"))] == [("TPL102", 11), ("TPL102", 12)]


PINNING_KWARGS = """\
import torch

kwargs = {"num_workers": 4, "pin_memory": True} if torch.cuda.is_available() else {}
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=64, shuffle=True, **kwargs)


def train(model, optimizer, device):
    for batch_idx, data in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        loss = -model.log_probs(data).mean()
        loss.backward()
        optimizer.step()
"""


def test_a_loader_pinned_through_a_settings_dict():
    """pytorch-flows (and the PyTorch examples): ``kwargs = {"num_workers": 4, "pin_memory": True}
    if args.cuda else {}`` then ``DataLoader(..., **kwargs)``: the loader pins whenever a GPU runs
    it, so its batch's blocking copy is TPL104, with the safe fix. Settings that do not pin, and a
    splat of something the module does not show, leave the loader unpinned."""
    found = lint_source(PINNING_KWARGS, "train.py", codes=("TPL104",))
    assert [(f.code, f.line, f.col, f.message) for f in found] == [("TPL104", 9, 15, PINNED)]
    assert found[0].fix.applicability == "safe" and found[0].fix.description == "add non_blocking=True"
    unpinned = PINNING_KWARGS.replace('"pin_memory": True', '"pin_memory": False')
    assert lint_source(unpinned, "train.py", codes=("TPL104",)) == []
    unknown = PINNING_KWARGS.replace("**kwargs)", "**args.loader_kwargs)")
    assert lint_source(unknown, "train.py", codes=("TPL104",)) == []


OPTIMIZER_INDEX = """\
import numpy as np
import torch
import pytorch_lightning as pl


class GAN(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.generator = torch.nn.Linear(4, 4)

    def training_step(self, batch, batch_idx, optimizer_idx):
        out = self.generator(batch[0])
        if optimizer_idx == 1:
            self.M = (out.mean() + 1).item()
        if np.mod(batch_idx, 100) == 1:
            print(out.sum().item())
        return out.mean()
"""


def test_the_optimizer_index_picks_no_step_and_np_mod_is_an_interval():
    """lightning-gans' BEGAN: ``if optimizer_idx == 1:`` runs on every discriminator step (Lightning
    hands the index of the optimizer being stepped, not a counter); ChangeFormer's
    ``np.mod(self.batch_id, 100) == 1`` is ``%`` by another name: an interval."""
    assert _found(OPTIMIZER_INDEX) == [("TPL102", 14, 21, SYNC.format(what="`.item()`"))]
    counter = OPTIMIZER_INDEX.replace("if optimizer_idx == 1:", "if batch_idx == 1:")
    assert _found(counter) == []
    every = OPTIMIZER_INDEX.replace("np.mod(batch_idx, 100) == 1", "batch_idx >= 0 and out.dim()")
    assert [f[:2] for f in _found(every)] == [("TPL102", 14), ("TPL102", 16)]


CONDITIONAL_BAR = """\
import torch
from tqdm import tqdm


class Trainer:
    def train(self):
        for epoch in range(10):
            pbar = tqdm(enumerate(self.train_loader), desc="train") if self.rank == 0 else enumerate(self.train_loader)
            for i, batch in pbar:
                losses = self.train_on_batch(batch, i)
                print(losses["total"].item())
"""


def test_a_progress_bar_chosen_by_a_conditional_iterates_the_loader():
    """ZoeDepth's ``pbar = tqdm(enumerate(self.train_loader)) if is_rank_zero(...) else
    enumerate(self.train_loader)``: either way the loop takes the loader's batches, a step loop
    whose per-batch ``.item()`` is reported. A conditional over something that is no loader is
    not."""
    assert _found(CONDITIONAL_BAR) == [("TPL102", 11, 22, SYNC.format(what="`.item()`"))]
    other = CONDITIONAL_BAR.replace("self.train_loader", "self.train_files")
    assert _found(other) == []


WHOLE_REDUCTION_COMPARED = """\
import numpy as np
import torch
from torch import nn
import pytorch_lightning as pl


class SpatialRegressionLoss(nn.Module):
    def forward(self, prediction, target):
        mask = target != 255
        if mask.sum() == 0:
            return prediction.new_zeros(1)[0]
        if prediction.min() < 0 or prediction.max() > 1:
            raise ValueError("out of range")
        return (prediction - target).abs().mean()


class WorldModel(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.center_loss = SpatialRegressionLoss()

    def training_step(self, batch, batch_idx):
        return self.center_loss(self.net(batch["x"]), batch["y"])
"""


def test_a_whole_reduction_compared_in_a_step_body_tests_a_tensors_truth():
    """mile's ``SpatialRegressionLoss.forward``, run every step through ``self.center_loss(...)``,
    tests ``if mask.sum() == 0:`` and real-nvp's ``RealNVP.forward`` ``if x.min() < 0 or x.max() >
    1``: only a tensor or an array has a whole reduction, and one not known to be on the host counts
    as possibly on the device (rules.md "Where a value lives"), as ``.any()`` already did. A
    reduction along a dimension, of a numpy array, or outside a step body is silent."""
    chain = " (called every step from train.py:24 via training_step)"
    assert _found(WHOLE_REDUCTION_COMPARED) == [
        ("TPL102", 10, 11, SYNC.format(what="testing a tensor's truth") + chain),
        ("TPL102", 12, 11, SYNC.format(what="testing a tensor's truth") + chain),
    ]
    along = WHOLE_REDUCTION_COMPARED.replace("mask.sum() == 0", "mask.sum(1) == 0").replace(
        "prediction.min() < 0 or prediction.max() > 1", "prediction.min(dim=0) is None")
    assert _found(along) == []
    numpy = WHOLE_REDUCTION_COMPARED.replace("mask = target != 255", "mask = np.asarray(target) != 255").replace(
        "prediction.min() < 0 or prediction.max() > 1", "np.asarray(prediction).min() < 0")
    assert _found(numpy) == []
    never_run = WHOLE_REDUCTION_COMPARED.replace(
        'return self.center_loss(self.net(batch["x"]), batch["y"])', 'return self.net(batch["x"]).sum()')
    assert _found(never_run) == []
