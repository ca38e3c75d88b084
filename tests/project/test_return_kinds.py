"""What a project function returns, read at its call sites (rules.md "Where a value lives" across a
call; analysis/return_kinds.py; issue 20, prec10), and a copy returned to callers that hand it to a
host library (analysis/returned_copies.py, R3 across a call)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings_with_fix as findings, write

FLOAT = SYNC.format(what="`float()` of a tensor")
CPU = SYNC.format(what="`.cpu()`")


# pixel2style2pixel (holdout10): IDLoss.forward runs a project backbone, compares the features
# sample by sample with float(), and returns a tensor, a Python float and a list.
BACKBONE = """
    import torch
    from torch import nn


    def l2_norm(x, axis=1):
        return torch.div(x, torch.norm(x, 2, axis, True))


    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(8, 8)

        def forward(self, x):
            return l2_norm(self.body(x))
    """
ID_LOSS = """
    import torch
    from torch import nn
    from models.backbone import Backbone


    class IDLoss(nn.Module):
        def __init__(self):
            super().__init__()
            self.facenet = Backbone()

        def extract_feats(self, x):
            x = x[:, :4]
            x_feats = self.facenet(x)
            return x_feats

        def forward(self, y_hat, y):
            y_feats = self.extract_feats(y).detach()
            y_hat_feats = self.extract_feats(y_hat)
            loss = 0
            improvement = 0
            count = 0
            for i in range(y.shape[0]):
                diff = y_hat_feats[i].dot(y_feats[i])
                loss += 1 - diff
                improvement += float(diff) - 1.0
                count += 1
            return loss / count, improvement / count, []
    """
COACH = """
    import torch
    from criteria.id_loss import IDLoss


    class Coach:
        def __init__(self, net, loader, device):
            self.net, self.loader, self.device = net, loader, device
            self.optimizer = torch.optim.Adam(net.parameters())
            self.id_loss = IDLoss().to(self.device).eval()

        def train(self):
            for x, y in self.loader:
                y_hat = self.net(x.to(self.device))
                loss, improvement, logs = self.id_loss(y_hat, y.to(self.device))
                logged = {"loss": float(loss), "improvement": float(improvement)}
                print(f"improvement {improvement:.3f}")
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
    """
PROJECT = {"setup.py": "", "models/__init__.py": "", "models/backbone.py": BACKBONE, "criteria/__init__.py": "",
           "criteria/id_loss.py": ID_LOSS, "coach.py": COACH}


def test_a_project_modules_output_is_a_tensor_in_the_callee(tmp_path):
    """``self.extract_feats(...)`` returns ``self.facenet(x)``, the forward of a project
    ``nn.Module`` (through ``l2_norm``'s torch ops): ``.dot`` of its rows is a device tensor."""
    write(tmp_path, PROJECT)
    assert findings(tmp_path, "criteria/id_loss.py") == [
        ("TPL102", 25, 27, FLOAT + " (called every step from coach.py:14)", None)]


def test_a_python_float_returned_by_a_project_module_is_no_sync(tmp_path):
    """``improvement`` is a Python float in ``IDLoss.forward`` (0 plus ``float(diff) - 1.0``, over
    an int): ``float()`` and formatting of it wait for nothing; ``float(loss)`` still does."""
    write(tmp_path, PROJECT)
    assert findings(tmp_path, "coach.py") == [("TPL102", 15, 30, FLOAT, None)]


def test_an_item_the_callee_does_not_know_keeps_what_the_call_was(tmp_path):
    """A callee whose returns disagree on an item (a Python float, then a parameter as it is) says
    nothing of it: the item is what the call of a loss module was before, a device tensor, and
    ``float()`` and printing of it are flagged as they were."""
    write(tmp_path, {**PROJECT, "criteria/id_loss.py": ID_LOSS.replace(
        "            return loss / count, improvement / count, []",
        "            if count > 3:\n                return loss / count, y, []\n"
        "            return loss / count, improvement / count, []")})
    assert findings(tmp_path, "coach.py") == [
        ("TPL102", 15, 30, FLOAT, None), ("TPL102", 15, 58, FLOAT, None),
        ("TPL102", 16, 12, SYNC.format(what="printing a tensor"), None)]


HELPERS = """
    import torch


    def normalized(x):
        return torch.div(x, torch.norm(x))


    def as_number(t):
        return t.detach().item()
    """
LOOP = """
    import torch
    from helpers import as_number, normalized


    def train(model, loader, optimizer, device):
        for x, y in loader:
            out = model(x.to(device))
            loss = (out - y.to(device)).pow(2).mean()
            value = as_number(loss)
            print(f"loss {value:.3f}", float(value))
            scale = float(normalized(out).sum())
            host = float(normalized(torch.ones(3)).sum())
            loss.backward()
            optimizer.step()
    """


def test_a_tensor_made_from_the_arguments_lives_where_they_do(tmp_path):
    """``normalized`` makes its result by torch ops from its parameter: on the device for a model's
    output, on the host for a CPU tensor. ``as_number`` returns ``.item()``: a Python number."""
    write(tmp_path, {"setup.py": "", "helpers.py": HELPERS, "train.py": LOOP})
    assert findings(tmp_path, "train.py") == [("TPL102", 11, 16, FLOAT, None)]


METRICS = """
    import numpy as np
    import torch


    def pixel_accuracy(predict, target):
        correct = (predict == target).sum()
        return correct.cpu().numpy(), target.numel()


    def eval_metrics(output, target):
        correct, labeled = pixel_accuracy(output.argmax(1), target)
        return [np.round(correct, 5), labeled]
    """
TRAINER = """
    import torch
    from metrics import eval_metrics


    def train(model, loader, optimizer, device):
        for x, y in loader:
            out = model(x.to(device))
            loss = torch.nn.functional.cross_entropy(out, y.to(device))
            metrics = eval_metrics(out, y.to(device))
            loss.backward()
            optimizer.step()
    """


def test_a_copy_returned_to_callers_that_hand_it_to_numpy_is_host_needed(tmp_path):
    """pytorch-segmentation (holdout10): the copy ``pixel_accuracy`` returns goes to ``np.round`` in
    its one caller, every step: the host must have it (R3 across the call)."""
    write(tmp_path, {"setup.py": "", "metrics.py": METRICS, "trainer.py": TRAINER})
    assert findings(tmp_path, "metrics.py") == []


def test_a_copy_returned_to_a_caller_that_keeps_it_is_still_flagged(tmp_path):
    write(tmp_path, {"setup.py": "", "metrics.py": METRICS.replace("np.round(correct, 5)", "correct"),
                     "trainer.py": TRAINER})
    assert findings(tmp_path, "metrics.py") == [
        ("TPL102", 7, 11, CPU + " (called every step from trainer.py:9 via eval_metrics)", None)]


GUARDED = """
    import torch


    def train(model, loader, optimizer, criterion):
        for x, y in loader:
            loss = criterion(model(x.cuda()), y.cuda())
            extra = None
            if isinstance(loss, (list, tuple)):
                loss, extra = loss
            if extra:
                print("extra losses")
            loss.backward()
            optimizer.step()
    """


def test_items_of_a_value_tested_as_a_list_or_tuple_are_unknown(tmp_path):
    """SlowFast (plain scripts, holdout3): ``loss, extra = loss`` under ``isinstance(loss, (list,
    tuple))`` takes a Python sequence apart; ``if extra:`` tests a list, not a tensor."""
    write(tmp_path, {"setup.py": "", "train.py": GUARDED})
    assert findings(tmp_path, "train.py") == []


def test_items_of_a_tensor_taken_apart_without_the_test_are_tensors(tmp_path):
    write(tmp_path, {"setup.py": "", "train.py": GUARDED.replace("if isinstance(loss, (list, tuple)):",
                                                                 "if loss.dim() > 0:")})
    assert findings(tmp_path, "train.py") == [
        ("TPL102", 10, 11, SYNC.format(what="testing a tensor's truth"), None)]


CLLM_TRAINER = """
    import torch
    from transformers import Trainer


    class CllmTrainer(Trainer):
        def training_step(self, model, inputs):
            logits = self.get_logits(model, inputs["input_ids"])
            loss = self.soft_cross_entropy(logits[..., :-1, :].float(), inputs["mask"])
            print(f"loss {loss} computed")
            self.accelerator.backward(loss)
            return loss.detach()

        def get_logits(self, model, input_ids):
            return model(input_ids=input_ids).logits

        def soft_cross_entropy(self, predicts, padding_mask):
            if (~padding_mask).sum() == 0:
                return 0 * predicts[0][0][0]
            log_prob = torch.nn.functional.log_softmax(predicts, dim=-1)
            return -log_prob.sum() / (~padding_mask).sum()
    """


def test_a_loss_made_from_a_models_logits_by_a_method_is_a_device_tensor(tmp_path):
    """Consistency_LLM (holdout8): ``soft_cross_entropy`` makes its loss by torch ops from its
    parameters (``0 * predicts[0][0][0]`` on the early path): given the model's logits, which
    ``get_logits`` returns (``model(...).logits``), the loss is on the device and printing it waits.
    Its ``if (~padding_mask).sum() == 0:`` on the batch's mask tests a tensor's truth every step
    (R27, 2026-11-27: a whole reduction compared, of a value not known to be on the host)."""
    write(tmp_path, {"setup.py": "", "trainer.py": CLLM_TRAINER})
    assert findings(tmp_path, "trainer.py") == [
        ("TPL102", 9, 8, SYNC.format(what="printing a tensor"), None),
        ("TPL102", 17, 11, SYNC.format(what="testing a tensor's truth")
         + " (called every step from trainer.py:8 via training_step)", None)]


TO_NUMPY = """
    import torch


    def to_numpy(t):
        return t.detach().cpu().numpy()
    """
PASSING = """
    import torch
    from convert import to_numpy


    def log_stats(values):
        print("max", values.max().item())


    def train(model, loader, optimizer, device):
        for x, y in loader:
            out = model(x.to(device))
            loss = (out - y.to(device)).abs().mean()
            loss.backward()
            optimizer.step()
            scores = to_numpy(out)
            log_stats(scores)
    """


def test_a_parameter_every_per_step_call_hands_what_a_callee_returned_on_the_host(tmp_path):
    """``log_stats`` gets what ``to_numpy`` (another file) returns, a numpy array: ``.item()`` of its
    max waits for nothing (the copy is flagged where it is made, in convert.py)."""
    write(tmp_path, {"setup.py": "", "convert.py": TO_NUMPY, "train.py": PASSING})
    assert findings(tmp_path, "train.py") == []
    assert findings(tmp_path, "convert.py") == [
        ("TPL102", 5, 11, CPU + " (called every step from train.py:15)", None)]


def test_a_parameter_one_call_hands_a_device_tensor_stays_unknown(tmp_path):
    write(tmp_path, {"setup.py": "", "convert.py": TO_NUMPY,
                     "train.py": PASSING.replace("log_stats(scores)", "log_stats(scores)\n            log_stats(out)")})
    assert findings(tmp_path, "train.py") == [
        ("TPL102", 6, 17, SYNC.format(what="`.item()`") + " (called every step from train.py:16)", None)]


# ECAPA-TDNN (holdout30) and the classic ImageNet example: ``accuracy(output, target, topk)``
# appends one tensor per k to a list and returns it.
TOPK_ACCURACY = """
    import torch


    def accuracy(output, target, topk=(1,)):
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res
    """

TOPK_TRAIN = """
    import torch
    from tools import accuracy


    def train(model, loader, optimizer):
        top1 = 0
        for x, y in loader:
            out = model(x.cuda())
            loss = out.mean()
            loss.backward()
            optimizer.step()
            prec = accuracy(out, y.cuda())[0]
            top1 += prec
            print("ACC: %2.2f%%" % (top1 / 3))
            acc1, = accuracy(out.cpu(), y)
            print("ACC: %2.2f%%" % acc1)
    """


def test_a_list_of_tensors_a_function_appends_and_returns_holds_them_where_its_arguments_are(tmp_path):
    """``accuracy(out, y.cuda())[0]`` is a device tensor: ``output.topk(...)`` is a method only a
    tensor has, made where the argument lives, and every item appended to ``res`` is made from it.
    Printing the running sum syncs every step (once a line: the ``%`` in ``print`` is the printing);
    the items of ``accuracy(out.cpu(), y)`` are on the host (the copy is the sync; printing is silent)."""
    write(tmp_path, {"setup.py": "", "tools.py": TOPK_ACCURACY, "train.py": TOPK_TRAIN})
    assert findings(tmp_path, "train.py") == [
        ("TPL102", 14, 8, SYNC.format(what="printing a tensor"), None),
        ("TPL102", 15, 25, CPU, None),
    ]


# mvsnerf (holdout31): ``mse2psnr2 = lambda x: -10. * np.log(x) / np.log(10.)`` in utils.py, reached
# through ``from utils import *``; ``psnr = mse2psnr2(img_loss.item())`` is a numpy value.
PSNR_UTILS = """
    import numpy as np
    import torch

    mse2psnr2 = lambda x: -10. * np.log(x) / np.log(10.)
    to_device = lambda x: x.cuda()
    """

PSNR_TRAIN = """
    import torch
    from utils import *


    def train(model, loader, optimizer):
        for x in loader:
            loss = model(x.cuda()).mean()
            loss.backward()
            optimizer.step()
            psnr = mse2psnr2(loss.item())
            print(psnr.item())
            y = to_device(x)
            if y.sum():
                pass
    """


def test_a_module_level_lambda_returns_what_its_expression_makes(tmp_path):
    """The index records ``name = lambda ...`` at module level as the function it is, and
    return_kinds reads its expression: ``mse2psnr2(loss.item())`` is numpy (its ``.item()`` reads
    the host), ``to_device(x)`` a device tensor (its truth test syncs)."""
    write(tmp_path, {"setup.py": "", "utils.py": PSNR_UTILS, "train.py": PSNR_TRAIN})
    assert findings(tmp_path, "train.py") == [
        ("TPL102", 10, 25, SYNC.format(what="`.item()`"), None),
        ("TPL102", 13, 11, SYNC.format(what="testing a tensor's truth"), None),
    ]
