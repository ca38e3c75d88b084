"""Forms of the thirty-fourth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

import types

import torch

from torchperf_lint.engine import fix_source

from _diagnostics import CPU_CREATION_TEMPLATE, SYNC_TEMPLATE, found, rule_diagnostics

NOISE = """\
import torch


def get_velocity_noise(graph, noise_std, device):
    velocity_sequence = graph.x[:, 1:3]
    noise = torch.normal({args}).to(device)
    noise[graph.x[:, 0] != 0] = 0
    return noise
"""
NORMAL = CPU_CREATION_TEMPLATE.format(factory="normal")


def test_normal_with_a_size_is_a_cpu_factory_whatever_its_mean_and_std_are_named():
    """meshGraphNets' ``torch.normal(std=noise_std, mean=0.0, size=...)`` (holdout205): torch's one
    overload with a size takes numbers (a 0-dim tensor is read with ``.item()``) and draws on the
    default device, so a ``std`` of unknown kind still makes a host tensor (R179). Unsafe fix: a
    random factory moved to another device draws other numbers."""
    for args in ("std=noise_std, mean=0.0, size=velocity_sequence.shape",
                 "0.0, noise_std, velocity_sequence.shape"):
        assert rule_diagnostics(NOISE.format(args=args), "TPL101") == [
            (6, 12, NORMAL, "unsafe", "create the tensor with device=device")], args


def test_the_fixed_normal_with_a_size_runs_and_draws_on_the_device():
    """The unsafe fix writes ``device=device`` into the call; the fixed function runs (here on the
    CPU, and on the ``meta`` device, which stands for a GPU) and its noise lives there."""
    source = NOISE.format(args="std=noise_std, mean=0.0, size=velocity_sequence.shape")
    fixed, count = fix_source(source, codes=["TPL101"], unsafe=True)
    assert count == 1
    assert "torch.normal(std=noise_std, mean=0.0, size=velocity_sequence.shape, device=device)" in fixed
    assert fix_source(fixed, codes=["TPL101"], unsafe=True) == (fixed, 0)
    namespace: dict = {}
    exec(compile(fixed, "fixed.py", "exec"), namespace)
    graph = types.SimpleNamespace(x=torch.zeros(5, 3))
    noise = namespace["get_velocity_noise"](graph, 0.1, torch.device("cpu"))
    assert noise.shape == (5, 2) and noise.device.type == "cpu"
    meta = namespace["get_velocity_noise"](types.SimpleNamespace(x=torch.zeros(5, 3, device="meta")), 0.1, "meta")
    assert meta.device.type == "meta"


def test_normal_of_tensors_or_of_unknown_values_without_a_size_stays_silent():
    """Without a size, ``torch.normal(mean, std)`` of tensors draws where they are; a name of
    unknown kind may be one (lightning-ir, R-reading of holdout 13)."""
    for args in ("velocity_sequence, noise_std", "mean=velocity_sequence, std=noise_std"):
        assert rule_diagnostics(NOISE.format(args=args), "TPL101") == [], args


VALIDATION_RECORDS = """\
import torch


def run(model, opt, loader, val_gen, val_losses, res_dic, kept):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        for data in val_gen:
            m1 = data[0].cuda()
            clean = data[-1].cuda()
            rec = model(m1)
            for loss_name, loss_func in val_losses.items():
                l = loss_func(rec, clean)
                {record}
"""


def test_per_example_copies_kept_with_tolist_in_a_validation_loop_stay_silent():
    """R7/R8: copies an evaluation loop keeps are results on their way to the host, metrics
    included. sudo_rm_rf's ``res_dic[loss_name]["acc"] += l.tolist()`` (holdout206, 9 labels) was
    read as R22's running record for a moment (R180, withdrawn): the same form keeps per-example
    losses as the evaluation's results in TOFU's ``eval_logs["gt_loss"] + gt_loss.tolist()``, which
    two labellers (holdout143, holdout189) listed silent, and the full regression run gave 13 such
    findings for the 9 labels. Predictions kept so are silent as before."""
    for record in ('res_dic[loss_name]["acc"] += l.tolist()', "kept.val_losses.extend(l.tolist())",
                   'res_dic[loss_name]["preds"] += rec.tolist()', "kept.extend(rec.argmax(1).tolist())",
                   'res_dic[loss_name]["total"] += l.tolist()'):
        assert found(VALIDATION_RECORDS.format(record=record)) == [], record


LOG_LOSS_DICT = """\
import numpy as np
import torch


def log_loss_dict(diffusion, ts, {losses}):
    for key, values in {losses}.items():
        logger.logkv_mean(key, values.mean().item())
        for sub_t, sub_loss in zip(ts.cpu().numpy(), values.detach().cpu().numpy()):
            quartile = int(4 * sub_t / diffusion.num_timesteps)
            logger.logkv_mean(f"{{key}}_q{{quartile}}", sub_loss)


def train(model, loader, opt, diffusion):
    for batch in loader:
        batch = batch.cuda()
        t = torch.randint(0, 10, (batch.shape[0],), device="cuda")
        out = {{"loss": model(batch, t)}}
        log_loss_dict(diffusion, t, out)
        out["loss"].mean().backward()
        opt.step()
"""
ITEM = SYNC_TEMPLATE.format(what="`.item()`")
CPU = SYNC_TEMPLATE.format(what="`.cpu()`")
CHAIN = " (called every step from train.py:18)"


def test_numpy_copies_of_the_values_of_a_loss_dict_in_a_helper_are_a_metric():
    """guided-diffusion's ``log_loss_dict`` (labelled in five sets; DiffuSeq's copy in holdout208):
    ``values`` runs over ``losses.items()``, so its numpy copies, made every step only to log
    quartiles, are a loss's copies, which R48 keeps reported (R181); the timesteps' copy on the same
    line is no metric (R48: a helper's numpy work), so the line has one finding."""
    assert found(LOG_LOSS_DICT.format(losses="losses")) == [
        ("TPL102", 7, 31, ITEM + CHAIN), ("TPL102", 8, 53, CPU + CHAIN)]


def test_numpy_copies_of_the_values_of_a_dict_not_named_as_a_metric_stay_silent():
    """The same helper over a dict of outputs: R48's host work in a helper, silent as before."""
    assert found(LOG_LOSS_DICT.format(losses="outputs")) == [("TPL102", 7, 31, ITEM + CHAIN)]


CORRUPTIONS = """\
import torch
import tent


def evaluate_all(net, loaders, corruptions, acc1s):
    for corrupt in corruptions:
        net = tent.{configure}(net)
        top1 = torch.zeros((), device="cuda")
        for images, target in loaders[corrupt]:
            output = net(images.cuda(non_blocking=True))
            top1 += (output.argmax(1) == target.cuda(non_blocking=True)).float().mean()
        acc1s.append(top1.item())
"""


def test_a_loop_that_configures_a_model_and_runs_a_pass_per_item_is_no_step_loop():
    """SAR's loop over corruptions (holdout210) calls ``tent.configure_model(net)`` and then runs a
    whole validation pass over that corruption's loader: ``configure_model`` configures a model, it
    runs none ("configure" is a verb, as "prepare" and "setup" are: R182), so the outer loop is a
    loop of passes and ``top1.item()`` once per corruption is silent."""
    assert found(CORRUPTIONS.format(configure="configure_model")) == []


def test_a_loop_that_runs_a_model_named_so_beside_its_pass_is_still_a_step_loop():
    """A call of a model named ``adapted_model`` (not a verb) runs it: the outer loop runs a step
    of its own each time round, and the sync after the inner loop is per step (unchanged)."""
    assert found(CORRUPTIONS.format(configure="adapted_model")) == [
        ("TPL102", 12, 21, SYNC_TEMPLATE.format(what="`.item()`"))]


LATCHED_DUMP = """\
import json

import lightning.pytorch as pl
import torch


class Summarizer(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.already_saved_batch = False

    def save_readable_batch(self, batch):
        tb = {{}}
        for k, v in batch.items():
            tb[k] = v.tolist()
        json.dump(tb, open("tok_batch.json", "w"))
{latch}
    def training_step(self, batch, batch_idx):
        if not self.already_saved_batch:
            self.save_readable_batch(batch)
        loss = self.model(**batch).loss
        return loss
"""
TOLIST = SYNC_TEMPLATE.format(what="`.tolist()`")


def test_a_call_under_a_latch_the_called_method_turns_off_runs_once():
    """plms-graph2text's ``if not self.already_saved_batch: self.save_readable_batch(batch)``
    (holdout208, listed silent three times): the method ends with ``self.already_saved_batch =
    True``, so it runs on the first step only, as a latch set in the ``if`` body itself would
    (R183): its dump of the batch is no per-step sync."""
    assert found(LATCHED_DUMP.format(latch="        self.already_saved_batch = True\n")) == []


def test_a_call_under_a_flag_nobody_turns_off_runs_every_step():
    """Without the method setting the flag, the test is a setting that holds every step: the dump
    runs every step, reported with the framework step as its chain."""
    assert found(LATCHED_DUMP.format(latch="")) == [
        ("TPL102", 15, 20, TOLIST + " (called every step from train.py:20 via training_step)")]
