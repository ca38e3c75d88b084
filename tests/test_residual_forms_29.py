"""Forms of the twenty-ninth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""


from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found

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
