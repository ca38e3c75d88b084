"""Forms of the twenty-ninth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""


from _diagnostics import SYNC_TEMPLATE as SYNC, all_diagnostics, found as _found

from torchperf_lint.findings import Edit

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
