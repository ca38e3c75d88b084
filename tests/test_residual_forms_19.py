"""Forms the first scores of holdout63-holdout74 got wrong (2026-11-28, the nineteenth session):
each with its flagged twin, whole diagnostics."""

from torchperf_lint.engine import lint_source

from _diagnostics import CPU_CREATION_TEMPLATE, SYNC_TEMPLATE as SYNC, found as _found

TRUTH = SYNC.format(what="testing a tensor's truth")


SAMPLER_CALLED_FROM_EVALUATION = """\
import torch


class Diffusion(torch.nn.Module):
    def reverse_sampling(self, x, steps):
        for t in reversed(range(steps)):
            x0 = self.model(x, t).softmax(-1)
            if torch.isnan(x0).any():
                x0 = torch.nan_to_num(x0)
            x = self.sample_step(x0, x, t)
        return x

    @torch.no_grad()
    def run_evaluation(self, x):
        return self.reverse_sampling(x, 100)

    def generate(self, x):
        with torch.no_grad():
            return self.reverse_sampling(x, 50)
"""


def test_a_sampler_whose_every_caller_turns_autograd_off_is_a_generation_loop():
    """e3moldiffusion (holdout66): ``reverse_sampling`` has no ``no_grad`` of its own, but every
    use of its name in the file sits in a ``@torch.no_grad()`` method or under ``with
    torch.no_grad():``; its loop feeds the model what it made (R41), so its NaN guard is silent
    (R46)."""
    assert _found(SAMPLER_CALLED_FROM_EVALUATION) == []


def test_a_sampler_also_called_with_autograd_on_stays_a_step_loop():
    source = SAMPLER_CALLED_FROM_EVALUATION + """
    def training_sample(self, x):
        return self.reverse_sampling(x, 10)
"""
    assert _found(source) == [("TPL102", 8, 15, TRUTH)]


def test_a_sampler_used_only_by_a_chain_of_grad_off_callers_is_one():
    source = SAMPLER_CALLED_FROM_EVALUATION.replace(
        "        return self.reverse_sampling(x, 100)", "        return self.sample_all(x)") + """
    def sample_all(self, x):
        return [self.reverse_sampling(x, n) for n in (10, 20)]
"""
    assert _found(source) == []


def test_a_sampler_never_named_in_its_file_stays_a_step_loop():
    source = SAMPLER_CALLED_FROM_EVALUATION.split("    @torch.no_grad()")[0]
    assert _found(source) == [("TPL102", 8, 15, TRUTH)]


VALIDATION_OUTPUTS = """\
import torch


def compute_validation_outputs(model, val_iter, optional_names=()):
    losses, answers = [], []
    outputs = [[] for _ in optional_names]
    for batch in val_iter:
        loss, prediction = model(batch)
        losses.append(loss)
        answers.append(batch.answer.data.cpu())
        for index, {name} in enumerate(optional_names):
            outputs[index].append(getattr(batch, {name}).data.cpu())
    return torch.cat(losses), answers, outputs
"""


def test_a_name_that_starts_with_optional_hands_over_no_optimizer():
    """decaNLP (holdout70): ``getattr(batch, optional_name)`` in an evaluation loop; ``optional_name``
    is no optimizer, so the loop trains nothing and its copies to the host are evaluation copies
    (R8)."""
    assert _found(VALIDATION_OUTPUTS.replace("{name}", "optional_name")) == []


def test_a_loop_that_hands_an_optimizer_to_a_call_is_a_training_loop():
    found = _found(VALIDATION_OUTPUTS.replace("{name}", "optG"))
    assert found == [("TPL102", 10, 23, SYNC.format(what="`.cpu()`")),
                     ("TPL102", 12, 34, SYNC.format(what="`.cpu()`"))]


RUN_BATCH = """\
import torch


class Wrapper:
    def run_epoch(self, loader, phase):
        results = []
        for batch in loader:
            loss = self.model(batch[0].cuda())
            if {test}:
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            else:
                results.append(self.model.predict(batch[0].cuda()).cpu().numpy())
        return results
"""


def test_the_else_of_a_training_flag_or_phase_runs_only_in_evaluation():
    """EasyTPP (holdout69): ``if is_training: <update> else: <predictions to numpy>``, and the
    ``else`` of ``if phase in (RunnerPhase.TRAIN, RunnerPhase.VALIDATE):``: branches that run only in
    evaluation train nothing, so their copies to the host are evaluation copies (R8)."""
    for test in ("is_training", "self.is_training", "phase == RunnerPhase.TRAIN", "phase == Phase.train",
                 "phase != RunnerPhase.VALIDATE", "phase in (RunnerPhase.TRAIN, RunnerPhase.VALIDATE)"):
        assert _found(RUN_BATCH.replace("{test}", test)) == [], test


def test_the_else_of_a_setting_or_of_an_unknown_stage_still_trains():
    for test in ("use_amp", "self.train", "phase == args.train", "phase in (RunnerPhase.TRAIN, other)"):
        assert _found(RUN_BATCH.replace("{test}", test)) == [
            ("TPL102", 14, 31, SYNC.format(what="`.cpu()`"))], test


def test_the_ast_twin_reads_the_same_stage_tests():
    """The project index reads branches with inference_calls.ast_stage_test, the walker with
    evaluation_branches._stage_test: the same answers on the forms above."""
    import ast

    import libcst as cst

    from torchperf_lint.analysis.evaluation_branches import _stage_test
    from torchperf_lint.analysis.inference_calls import ast_stage_test

    expected = {"is_training": False, "self.is_training": False, "phase == RunnerPhase.TRAIN": False,
                "phase != RunnerPhase.VALIDATE": False, "phase in (RunnerPhase.TRAIN, RunnerPhase.VALIDATE)": False,
                "phase in (Split.VAL, Split.TEST)": True, "not is_training": True, "use_amp": None,
                "self.train": None, "phase == args.train": None, "phase in (RunnerPhase.TRAIN, other)": None}
    for text, sense in expected.items():
        assert ast_stage_test(ast.parse(text, mode="eval").body) is sense, text
        assert _stage_test(cst.parse_expression(text)) is sense, text


METRICS = """\
import numpy as np
import torch
from sklearn.metrics import roc_auc_score


def train(model, loader, optimizer):
    for x, y in loader:
        logit = model(x.cuda())
        loss = (logit - y.cuda()).pow(2).mean()
        loss.backward()
        optimizer.step()
        target = y.cuda().cpu().numpy(){index}
        prob = torch.sigmoid(logit).cpu().numpy(){index}
        if len(np.unique(target)) > 1:
            metric = {use}
"""


def test_an_indexed_numpy_copy_handed_to_scikit_learn_is_host_needed():
    """molskill (holdout69): ``target = target.cpu().numpy()[:, 0]`` then ``np.unique(target)`` and
    ``roc_auc_score(target, prob)`` every step: the arrays are what the host library reads (R3,
    rules.md "A step body"); the name is bound through the method and the item after the copy."""
    for index in ("[:, 0]", ".reshape(-1)", "[:, 0].astype(np.int64)"):
        assert _found(METRICS.replace("{index}", index).replace("{use}", "roc_auc_score(target, prob)")) == [], index


def test_an_indexed_numpy_copy_only_summed_is_still_a_sync():
    source = METRICS.replace("{index}", "[:, 0]").replace("{use}", "target.sum() + prob.sum()").replace(
        "np.unique(target)", "target")
    assert _found(source) == [("TPL102", 12, 17, SYNC.format(what="`.cpu()`")),
                              ("TPL102", 13, 15, SYNC.format(what="`.cpu()`"))]


GRADIENT_LOGGER = """\
import torch


def grad_logger(named_params):
    stats = []
    for n, p in named_params:
        if p.grad is not None:
            stats.append({read})
    return stats


def train(encoder, loader, optimizer):
    for imgs in loader:
        encoder(imgs.cuda()).mean().backward()
        optimizer.step()
        grad_stats = grad_logger(encoder.named_parameters())
        optimizer.zero_grad()
"""


def test_a_gradient_logger_that_names_no_loss_is_read_as_tensor_code():
    """ijepa (holdout71): ``grad_logger``, called every step, takes ``float(torch.norm(p.grad.data))``
    of every parameter; the unit names no loss or model, which TPL102's text prefilter asked for."""
    chain = " (called every step from train.py:16)"
    assert _found(GRADIENT_LOGGER.replace("{read}", "float(torch.norm(p.grad.data))")) == [
        ("TPL102", 8, 25, SYNC.format(what="`float()` of a tensor") + chain)]


def test_a_gradient_logger_that_keeps_the_norms_on_the_device_is_silent():
    assert _found(GRADIENT_LOGGER.replace("{read}", "torch.norm(p.grad.data)")) == []


CONTRASTIVE_LABELS = """\
import torch
import torch.distributed as dist


def contrastive_loss(q, k, T):
    logits = torch.einsum("nc,mc->nm", [q, k]) / T
    N = logits.shape[0]
    labels = (torch.arange(N, dtype=torch.long) + {offset}).cuda()
    return torch.nn.functional.cross_entropy(logits, labels)
"""
MOVED_ARANGE = CPU_CREATION_TEMPLATE.format(factory="arange")


def test_a_factory_plus_a_rank_from_torch_distributed_is_fresh_when_moved():
    """moco-v3 (holdout71): ``torch.distributed.get_rank()`` is a Python int, so the arange plus it
    is still a fresh CPU tensor when ``.cuda()`` moves it (TPL101)."""
    for offset in ("N * torch.distributed.get_rank()", "N * dist.get_rank()", "torch.cuda.device_count()"):
        assert _found(CONTRASTIVE_LABELS.replace("{offset}", offset), codes=("TPL101",)) == [
            ("TPL101", 8, 14, MOVED_ARANGE)], offset


def test_a_factory_plus_a_tensor_from_torch_cuda_is_not_fresh():
    source = CONTRASTIVE_LABELS.replace("{offset}", "torch.cuda.get_rng_state()[0]")
    assert _found(source, codes=("TPL101",)) == []


MODULE_LEVEL_BUDGET = """\
import torch

shown = 0
for x, y in loader:
    loss = model(x.cuda()).mean()
    loss.backward()
    optimizer.step()
    {reset}
    if shown < 3:
        shown += 1
        print(loss.item())
"""


def test_a_budget_in_a_module_level_loop_is_read_without_an_internal_error():
    """OFormer (holdout76): a module-level training loop with an ``if`` that tests a name against a
    number made TPL102 read the budget's scope from the module-level frame, which has no node: an
    internal error (TPL900) that cost six training scripts all their findings. A budget that only
    counts up copies a few times (silent)."""
    found = [(f.code, f.line) for f in lint_source(MODULE_LEVEL_BUDGET.replace("{reset}", "pass"), "train.py")]
    assert ("TPL900", 1) not in found and not any(code == "TPL102" for code, _ in found)


def test_a_counter_reset_every_time_round_is_no_budget_at_module_level():
    source = MODULE_LEVEL_BUDGET.replace("{reset}", "shown = 0")
    assert _found(source) == [("TPL102", 11, 14, SYNC.format(what="`.item()`"))]


def test_a_budget_without_a_scope_to_read_is_not_known_to_be_one():
    """budgets.spends_budget with no scope (a frame with no node) answers, rather than raising."""
    import libcst as cst

    from torchperf_lint.analysis.budgets import spends_budget

    branch = cst.parse_statement("if shown < 3:\n    shown += 1\n")
    assert spends_budget(branch, None) is False
    module = cst.parse_module("shown = 0\nif shown < 3:\n    shown += 1\n")
    assert spends_budget(module.body[1], module) is True


GREEDY_DECODE = """\
import torch


def greedy_decode(model, source, sos_idx, device):
    decoder_input = {start}
    return model(source, decoder_input)
"""
MOVED_EMPTY = CPU_CREATION_TEMPLATE.format(factory="empty")


def test_a_factory_cast_with_type_as_on_its_way_to_a_move_is_fresh():
    """pytorch-transformer (holdout78): ``torch.empty(1, 1).fill_(sos_idx).type_as(source).to(device)``:
    the CPU factory reaches the device by ``type_as`` or by the ``.to`` after it (TPL101)."""
    for start in ("torch.empty(1, 1).fill_(sos_idx).type_as(source).to(device)",
                  "torch.empty(1, 1).type_as(source).fill_(sos_idx).to(device)"):
        assert _found(GREEDY_DECODE.replace("{start}", start), codes=("TPL101",)) == [
            ("TPL101", 5, 20, MOVED_EMPTY)], start


def test_type_as_alone_is_no_move_the_rule_names():
    source = GREEDY_DECODE.replace("{start}", "torch.empty(1, 1).fill_(sos_idx).type_as(source)")
    assert _found(source, codes=("TPL101",)) == []


HEAD_RESET = """\
import math

import torch


def reset_head(head):
    weight_mean = head.weight.mean().item()
    weight_std = head.weight.std().item()
    wa = weight_mean - math.sqrt(3) * weight_std
    torch.nn.init.{init}


def train(model, head, loader, optimizer):
    for x, y in loader:
        reset_head(head)
        loss = head(model(x.cuda())).mean()
        loss.backward()
        optimizer.step()
"""


def test_statistics_handed_to_an_in_place_initialisation_are_host_needed():
    """torchcross (holdout77): MAML's adaptive head reset hands ``.item()`` statistics, directly or
    through arithmetic, to ``torch.nn.init.normal_``/``uniform_``, whose mean/std and bounds are
    Python floats torch requires (rules.md "A step body": arguments torch requires on the host)."""
    for init in ("uniform_(head.weight, wa, weight_mean)", "normal_(head.weight, weight_mean, weight_std)",
                 "normal_(head.weight, mean=wa, std=weight_std)"):
        assert _found(HEAD_RESET.replace("{init}", init)) == [], init


def test_statistics_only_printed_are_syncs():
    chain = " (called every step from train.py:15)"
    source = HEAD_RESET.replace("    torch.nn.init.{init}", "    print(wa)")
    assert _found(source) == [("TPL102", 7, 18, SYNC.format(what="`.item()`") + chain),
                              ("TPL102", 8, 17, SYNC.format(what="`.item()`") + chain)]


CARRIED_TOTAL = """\
import torch


def train(model, loader, optimizer, criterion):
    for x, y in loader:
        out = model(x.cuda())
        loss = None
        for o, t in zip(out, y.cuda()):
            cur_loss = criterion(o, t)
            if not loss:
                loss = {first}
            else:
                loss += cur_loss
        loss.backward()
        optimizer.step()
"""


def test_a_total_started_in_its_own_truth_test_is_a_tensor_from_the_second_time_round():
    """transformers_tasks (holdout78): ``if not loss: loss = cur_loss else: loss += cur_loss`` in a
    loop: from the second time round the test calls ``bool()`` on the device loss it summed."""
    assert _found(CARRIED_TOTAL.replace("{first}", "cur_loss")) == [
        ("TPL102", 10, 15, SYNC.format(what="testing a tensor's truth"))]


def test_a_total_of_python_numbers_tests_nothing_on_the_device():
    source = CARRIED_TOTAL.replace("{first}", "1.0").replace("loss += cur_loss", "loss += 1.0")
    assert _found(source) == []
