"""Forms of the thirty-second session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

import textwrap

from _diagnostics import CPU_CREATION_TEMPLATE, PINNED_COPY, all_diagnostics

from torchperf_lint.catalog import SAFE
from torchperf_lint.engine import fix_source
from torchperf_lint.findings import Edit

LEARNER = """\
import torch
from torch.utils.data import DataLoader


class Learner:
    def learn(self, dataset):
        dataloader = DataLoader(dataset, batch_size=8, num_workers=2, pin_memory={pinned})
        for data in dataloader:
            infos = self.learning_step({argument})

    def learning_step(self, data):
        device = torch.cuda.current_device()
        chosen_ids, c_mask = data
        chosen_ids = chosen_ids.squeeze(1).to(device)
        c_mask = c_mask.to(device)
        loss = self.model(chosen_ids, c_mask).mean()
        loss.backward()
        self.optimizer.step()
        return {{"loss": loss.detach()}}
"""


def _copy(line: int, col: int, end_col: int, chain: str = "", first: bool = False):
    """A TPL104 finding whose fix adds the keyword at ``end_col`` (``first``: as the call's only one)."""
    added = "non_blocking=True" if first else ", non_blocking=True"
    return ("TPL104", line, col, PINNED_COPY + chain,
            (SAFE, "add non_blocking=True", (Edit(line, end_col, line, end_col, added),)))


def test_a_batch_of_a_pinned_loader_handed_to_a_method_that_steps_is_copied_from_pinned_memory():
    """R155 (rules.md TPL104: a batch taken from a pinned loader, moved in a step body): oat's
    ``DAPLearner.learn`` iterates its own ``DataLoader(..., pin_memory=True)`` and hands each batch to
    ``self.learning_step(data)``, which runs the backward and moves the batch's fields (holdout173).
    The callee's copies are the loop's; the fix is the loop's fix, and the fixed code parses."""
    source = LEARNER.format(pinned="True", argument="data")
    assert all_diagnostics(source, "TPL104") == [_copy(14, 21, 52), _copy(15, 17, 33)]
    fixed, applied = fix_source(source, codes=["TPL104"])
    assert applied == 2
    assert "chosen_ids.squeeze(1).to(device, non_blocking=True)" in fixed
    assert "c_mask.to(device, non_blocking=True)" in fixed
    compile(fixed, "learner.py", "exec")
    assert fix_source(fixed, codes=["TPL104"]) == (fixed, 0)


def test_a_batch_of_an_unpinned_loader_or_a_copy_of_it_handed_on_stays_silent():
    """The twins: the loader does not pin; the loop hands a converted copy (``data.float()``, pageable
    memory); the loop hands something else than the batch."""
    for pinned, argument in (("False", "data"), ("True", "data.float()"), ("True", "dataset")):
        assert all_diagnostics(LEARNER.format(pinned=pinned, argument=argument), "TPL104") == [], argument


HELPER = """\
import torch
from torch.utils.data import DataLoader


def forward(model, images, labels):
    return model(images.cuda(), labels.cuda())


def prepare(images):
    return images.cuda()


def train_step(model, optimizer, images, labels):
    images = images.cuda()
    labels = labels.cuda()
    loss = model(images, labels) + forward(model, images, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def evaluate(model, images):
    return model(images.cuda())


def main(model, optimizer, train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=64, num_workers=4, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=64, num_workers=4)
    for batch in train_loader:
        train_step(model, optimizer, batch[0], batch[1])
        forward(model, batch["x"], batch.y)
        prepare(batch["x"])
    for batch in val_loader:
        evaluate(model, batch[0])
{more}"""


def test_fields_of_a_pinned_batch_handed_to_a_plain_helper_are_copied_from_pinned_memory():
    """R155: the loop hands the fields of a pinned batch (``batch[0]``) to a module function: its
    copies of them report with the call that makes it a step body (``prepare``; ``train_step`` is a
    root, it calls backward itself). ``forward`` is also called from
    ``train_step`` with what it moved: its own copies are not known to be of pinned memory there."""
    assert all_diagnostics(HELPER.format(more=""), "TPL104") == [
        _copy(10, 11, 23, " (called every step from <string>:32)", first=True),
        _copy(14, 13, 25, first=True), _copy(15, 13, 25, first=True)]


def test_a_helper_also_handed_an_unpinned_batch_or_anything_else_stays_silent():
    """The twins: ``evaluate`` is handed only the unpinned loader's batches; a second call hands
    ``train_step`` a batch of the unpinned loader (its callers disagree); one hands a tensor made
    on the host."""
    for more in ("    for batch in val_loader:\n        train_step(model, optimizer, batch[0], batch[1])\n",
                 "    train_step(model, optimizer, torch.zeros(4, 3), torch.zeros(4))\n"):
        assert [row[1] for row in all_diagnostics(HELPER.format(more=more), "TPL104")] == [10], more


LAMBDA_MOVES = """\
import torch


def prep(agents, device):
    if device == "gpu":
        fn = lambda x: x.cuda()
    else:
        fn = lambda x: x.cpu()
    for a in agents:
        a.model = fn({handed})


def train(model, loader, optimizer, agents):
    for x in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        prep(agents, "cpu")
"""


def test_a_lambda_that_every_call_hands_a_model_moves_modules():
    """R156: seac's ``prep_rollouts`` (holdout178) binds ``fn = lambda x: x.cpu()`` and calls it only
    as ``a.model = fn(a.model)``: the ``.cpu()`` moves a module, it reads no value."""
    assert all_diagnostics(LAMBDA_MOVES.format(handed="a.model"), "TPL102") == []


def test_a_lambda_handed_a_value_still_copies_it():
    """The twin: the lambda is handed something that is no model (``a.value``): a copy every step."""
    assert [row[:3] for row in all_diagnostics(LAMBDA_MOVES.format(handed="a.value"), "TPL102")] == [
        ("TPL102", 8, 23)]


EVALUATION = """\
import os
import torch


@torch.no_grad()
def evaluate(model, loader, output_dir, device):
    for samples, targets in loader:
        samples = samples.to(device)
        targets = [{{k: v.to(device) for k, v in t.items()}} for t in targets]
        outputs = model(samples)
        for i, target in enumerate(targets):
            image_id = target["image_id"].item()
{use}
"""
CACHED = '            loaded = torch.load({name}, map_location=device)'
SAVED = ('            torch.save({record}, os.path.join(output_dir, str(image_id) + ".pt"))')


def test_an_id_made_into_a_file_name_or_kept_in_a_written_record_is_needed_on_the_host():
    """R156: DETReg's evaluation (holdout176) loads or saves each image's detections in a file named
    by its id (``torch.load(str(image_id) + '.pt')``), and keeps the id in the record it writes with
    ``torch.save(dict(image_id=image_id, pred_boxes=...), ...)``: the host needs the number."""
    for use in (CACHED.format(name='str(image_id) + ".pt"'),
                SAVED.format(record='dict(image_id=image_id, boxes=outputs["pred_boxes"][i])'),
                SAVED.format(record='{"image_id": image_id, "boxes": outputs["pred_boxes"][i]}')):
        assert all_diagnostics(EVALUATION.format(use=use), "TPL102") == [], use


def test_an_id_shown_summed_or_kept_in_a_record_that_is_not_written_still_waits():
    """The twins: the string is printed, not a file's name; the number is summed; the record is
    only bound, never written; the string names no file (``model.tag(...)``)."""
    for use in ('            print(str(image_id) + ".pt")',
                "            total = image_id + 1\n            print(total)",
                '            record = dict(image_id=image_id, boxes=outputs["pred_boxes"][i])',
                '            model.tag(str(image_id) + ".pt")'):
        assert [row[:2] for row in all_diagnostics(EVALUATION.format(use=use), "TPL102")] == [
            ("TPL102", 12)], use


TRACKER = """\
import torch


class Tracker:
    def __init__(self):
        self.trackers = {{}}

    def update(self, model, loader):
        for batch in loader:
            ids = model(batch.cuda())
            for track_id in ids:
                if track_id.item() not in {table}:
                    self.trackers[track_id.item()] = 0
"""


def test_a_key_tested_among_a_mappings_keys_is_needed_on_the_host():
    """R159 (R31 for a membership test): HAPT's ``gt_label.item() not in self.panoptic_qualities.keys()``
    and Mask4D's ``id.item() not in self.trackers.keys()`` (holdout179): a tensor has no ``keys()``,
    the mapping is Python's and hashing the key needs it on the host."""
    assert all_diagnostics(TRACKER.format(table="self.trackers.keys()"), "TPL102") == []


def test_a_key_compared_with_a_number_still_waits():
    """The twin: the number compared with another (``> 0``) is a test on the host of a synced value."""
    source = TRACKER.format(table="self.trackers.keys()").replace(" not in self.trackers.keys()", " > 0")
    assert [row[:2] for row in all_diagnostics(source, "TPL102")] == [("TPL102", 12)]


FORWARD_VARIANT = """\
import torch


def evaluate(model, pairs):
    hits = 0
    for e1, rel in pairs:
        e1, rel = e1.cuda(), rel.cuda()
        pred = model.{method}(e1, rel)
        for i in range(pred.size(0)):
            num = e1[i, 0].item()
"""


def test_a_forward_under_another_name_runs_the_model():
    """R159: SACN's ``model.forward_pre(e1, rel, X, adj)`` (holdout181) runs the model as ``forward``
    does: its evaluation loop is a step loop, its per-sample ``.item()``s wait each time."""
    for method in ("forward", "forward_pre", "forward_test"):
        assert [row[:3] for row in all_diagnostics(FORWARD_VARIANT.format(method=method), "TPL102")] == [
            ("TPL102", 10, 18)], method


def test_another_method_of_a_model_is_no_forward():
    """The twin: ``model.load_state(...)``-like methods run nothing per batch by their name alone."""
    assert all_diagnostics(FORWARD_VARIANT.format(method="prepare"), "TPL102") == []


REBOUND = """\
import torch


def build(edges, num_nodes, device, A):
    for e in edges:
        value_tmp = torch.ones(e.shape[1]).type(torch.FloatTensor)
        value_tmp = value_tmp * 2
        A.append(value_tmp.to(device))
    value_tmp = torch.ones(num_nodes).type(torch.FloatTensor)
    A.append([value_tmp.to(device)])
{after}    return A
"""


def test_a_rebound_name_whose_last_binding_is_read_only_by_its_move_is_reported():
    """R159 (R104 for a name bound again): Graph_Transformer_Networks' ``to_heterogeneous``
    (holdout181) reuses ``value_tmp`` after a loop; its last binding's one read is the move."""
    assert all_diagnostics(REBOUND.format(after=""), "TPL101") == [
        ("TPL101", 9, 16, CPU_CREATION_TEMPLATE.format(factory="ones"), None)]


def test_a_rebound_name_read_again_after_its_move_stays_silent():
    """The twin: the host tensor is read after the move (``print(value_tmp)``), or the name is named
    again: creating it on the device would change what the later read sees."""
    for after in ("    print(value_tmp)\n", "    value_tmp = None\n"):
        assert all_diagnostics(REBOUND.format(after=after), "TPL101") == [], after


PRIORITIES = """\
import numpy as np
import torch


class Memory:
    def _pa(self, p):
        return {body}

    def update_priority(self, errors):
        ps = errors.detach().cpu().abs().numpy().flatten()
        pas = self._pa(ps)
        for index, pa in zip(self._cached, pas):
            self.it_sum[index] = pa


def train(model, loader, optimizer):
    memory = Memory()
    for x in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        memory.update_priority(loss)
"""


def test_a_copy_handed_to_a_method_of_the_class_that_hands_it_to_numpy_is_needed_on_the_host():
    """R160 (R3 across a call of the class's own method): sac-discrete's prioritized replay
    (holdout126) copies the TD errors with ``.cpu().numpy()`` and hands them to ``self._pa(ps)``,
    which ``np.clip``s them for its host segment trees."""
    assert all_diagnostics(PRIORITIES.format(body="np.clip((p + self.eps) ** self.alpha, 0.1, 1.0)"),
                           "TPL102") == []


def test_a_copy_handed_to_a_method_that_keeps_it_in_torch_still_waits():
    """The twin: the method computes with it without a host library: the copy is a wait."""
    assert [row[:3] for row in all_diagnostics(PRIORITIES.format(body="p * 2"), "TPL102")] == [
        ("TPL102", 10, 13)]


ACCUMULATION = """\
import torch
from base import BaseExperiment


class Experiment(BaseExperiment):
    def train(self, loader, accumulate):
        for i, batch in enumerate(loader):
            loss = self.model(batch.cuda()).sum()
            loss.backward()
            if (i + 1) % accumulate == 0:
                grad_norm = self.{call}()
                print(grad_norm.item())
"""


def test_an_interval_whose_body_calls_a_method_named_for_the_optimizer_step_runs_every_step():
    """R161 (rules.md "In a loop": the accumulation ``if`` that runs the step itself is per step):
    nougat-latex-ocr's ``DonutExperiment.train`` (holdout186) steps through
    ``self._step_optimizer()`` of a base class in another module; the name says it steps."""
    for call in ("_step_optimizer", "optimizer_step"):
        assert [row[:3] for row in all_diagnostics(ACCUMULATION.format(call=call), "TPL102")] == [
            ("TPL102", 12, 22)], call


def test_an_interval_whose_body_calls_anything_else_is_an_interval():
    """The twin: ``self._log_stats()`` under the same test runs every ``accumulate`` steps."""
    assert all_diagnostics(ACCUMULATION.format(call="_log_stats"), "TPL102") == []
