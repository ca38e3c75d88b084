"""R8 (the lead's reading, 2026-11-26): a copy to the host (``.cpu()``, ``.tolist()``,
``.numpy(force=True)``) in code that trains nothing is not flagged, autograd on or off, wherever
its value goes: evaluation must bring its results to the host, and copying them batch by batch is
what bounds the device memory they take. Whole diagnostics; each silent form has a flagged twin:
the same body in a loop that trains, one that calls something named for training, a function named
for training, a copy printed where it is made, and a metric's ``.item()``."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

from torchperf_lint.analysis.inference_calls import names_training

ITEM = SYNC.format(what="`.item()`")
CPU = SYNC.format(what="`.cpu()`")
TOLIST = SYNC.format(what="`.tolist()`")
NUMPY = SYNC.format(what="`.numpy()`")

EVALUATE = """
    import torch
    def evaluate(model, loader, criterion, runner):
        preds, probs, rows, correct = [], [], [], 0
        for x, y in loader:
            out = model(x.cuda())
            preds.append(out.argmax(1).cpu())
            probs.append(out.softmax(-1).numpy(force=True))
            rows.extend(out.argmax(1).tolist())
            correct += (out.argmax(1) == y.cuda()).sum().item()
        return preds, probs, rows, correct
    """


def test_r8_copies_in_an_evaluation_loop_with_autograd_on_are_results():
    """No ``no_grad``, no backward, no optimizer step: the three copies are results on their way to
    the host; the accuracy's ``.item()`` summed per batch is still a metric read every step."""
    assert diagnostics(EVALUATE, "TPL102") == [(10, 19, ITEM, None, None)]


def test_r8_the_same_copies_in_a_loop_that_trains_stay_flagged():
    source = EVALUATE.replace("            correct += (out.argmax(1) == y.cuda()).sum().item()\n",
                              "            correct += (out.argmax(1) == y.cuda()).sum().item()\n"
                              "            criterion(out, y.cuda()).backward()\n")
    assert diagnostics(source, "TPL102") == [
        (7, 21, CPU, None, None),
        (8, 21, NUMPY, None, None),
        (9, 20, TOLIST, None, None),
        (10, 19, ITEM, None, None),
    ]


def test_r8_a_loop_that_calls_something_named_for_training_is_not_known_to_train_nothing():
    """``runner.train_step(x)`` may run the backward in a file the linter does not see."""
    source = EVALUATE.replace("            out = model(x.cuda())\n",
                              "            out = model(x.cuda())\n            runner.train_step(x)\n")
    assert diagnostics(source, "TPL102") == [
        (8, 21, CPU, None, None),
        (9, 21, NUMPY, None, None),
        (10, 20, TOLIST, None, None),
        (11, 19, ITEM, None, None),
    ]


def test_r8_an_evaluation_step_call_is_no_training_call():
    """Silent twin: ``runner.validation_step(x)`` is named for evaluation."""
    source = EVALUATE.replace("            out = model(x.cuda())\n",
                              "            out = model(x.cuda())\n            runner.validation_step(x)\n")
    assert diagnostics(source, "TPL102") == [(11, 19, ITEM, None, None)]


def test_r8_a_function_named_for_training_keeps_its_copies_flagged():
    source = EVALUATE.replace("def evaluate(", "def train_epoch(")
    assert diagnostics(source, "TPL102") == [
        (7, 21, CPU, None, None),
        (8, 21, NUMPY, None, None),
        (9, 20, TOLIST, None, None),
        (10, 19, ITEM, None, None),
    ]


def test_r8_a_copy_printed_or_formatted_where_it_is_made_is_read_to_be_shown():
    source = EVALUATE.replace("            preds.append(out.argmax(1).cpu())\n",
                              "            print(out.argmax(1).cpu())\n"
                              "            log(f\"{out.max().cpu():.3f}\")\n"
                              "            log(\"%s\" % out.min().cpu())\n")
    assert diagnostics(source, "TPL102") == [
        (7, 14, CPU, None, None),
        (8, 15, CPU, None, None),
        (9, 19, CPU, None, None),
        (12, 19, ITEM, None, None),
    ]


def test_r8_a_per_item_loop_inside_a_training_loop_runs_every_training_step():
    """The inner loop trains nothing, but the loop around it does: its copies are per-step syncs."""
    source = """
        import torch
        def train(model, loader, optimizer, kept):
            for x in loader:
                out = model(x.cuda())
                out.sum().backward()
                optimizer.step()
                for row in out:
                    kept.append(row.cpu())
        """
    assert diagnostics(source, "TPL102") == [(9, 24, CPU, None, None)]


def test_names_that_say_a_function_may_train():
    assert [name for name in ("train_step", "training_step", "take_step", "optimizer_step", "step",
                              "run_backward", "train_one_epoch", "optimize")
            if not names_training(name)] == []
    assert [name for name in ("validation_step", "eval_step", "test_step", "predict_step", "inference_step",
                              "val_step", "evaluate", "update", "forward", "steps")
            if names_training(name)] == []


def test_r8_a_copy_read_as_a_number_where_it_is_made_is_a_metric():
    """``loss.detach().cpu().item()`` and ``float(acc.cpu())``: the copy is how the metric is read
    (the ``.item()`` of a host copy waits for nothing more: the copy is the sync reported)."""
    source = EVALUATE.replace("            preds.append(out.argmax(1).cpu())\n",
                              "            total = criterion(out, y.cuda()).detach().cpu().item()\n"
                              "            acc = float((out.argmax(1) == y.cuda()).float().mean().cpu())\n")
    assert diagnostics(source, "TPL102") == [
        (7, 16, CPU, None, None),
        (8, 20, CPU, None, None),
        (11, 19, ITEM, None, None),
    ]


MODES = """
    import torch
    def run_epoch(model, loader, optimizer, mode, preds):
        for x, y in loader:
            out = model(x.cuda())
            if mode == "train":
                out.sum().backward()
                optimizer.step()
            if mode in ("val", "test"):
                preds.append(out.argmax(1).cpu())
            if not model.training:
                preds.append(out.cpu())
            if model.training:
                pass
            else:
                preds.append(out.softmax(-1).cpu())
            if mode != "train":
                preds.append(out.max(1).values.cpu())
    """


def test_r8_a_branch_that_runs_only_in_evaluation_copies_results_in_a_loop_that_also_trains():
    """The loop trains (in ``train`` mode); the four branches that run only in evaluation (a mode
    string naming evaluation, ``not model.training``, the ``else`` of ``model.training``, a mode
    other than ``train``) never run in a training step."""
    assert diagnostics(MODES, "TPL102") == []


def test_r8_a_branch_that_runs_in_training_keeps_its_copy_flagged():
    source = MODES.replace('            if mode in ("val", "test"):\n', '            if mode == "train":\n')
    assert diagnostics(source, "TPL102") == [(10, 25, CPU, None, None)]
    # ``model_kind`` is no stage (a name that only contains "mode"): the test says nothing of training
    source = MODES.replace('            if mode in ("val", "test"):\n', '            if model_kind in ("val", "test"):\n')
    assert diagnostics(source, "TPL102") == [(10, 25, CPU, None, None)]
