"""Forms of round twenty-two (holdout127-130) the engine got wrong (2026-11-28, the twenty-sixth
session): each with its flagged and silent twins, whole diagnostics."""


from _diagnostics import CPU_CREATION_TEMPLATE, SYNC_TEMPLATE as SYNC, found as _found, rule_diagnostics


TASK_DISPATCH = """\
import torch


def annotation_eval(pred, true):
    return (pred.argmax(1) == true).float().mean()


def denoising_eval(pred, true):
    nz = torch.nonzero(true)
    return pred[nz].mean().item()


def imputation_eval(pred, true):
    return (pred - true).abs().mean().item()


def downstream_eval(task, pred, true):
    if task == 'annotation':
        return annotation_eval(pred, true)
    elif task == 'denoising':
        return denoising_eval(pred, true)
    elif task in ('imputation', 'completion'):
        return imputation_eval(pred, true)
    else:
        raise NotImplementedError(task)


def train(model, loader, opt):
    for x, y in loader:
        out = model(x.cuda())
        loss = torch.nn.functional.cross_entropy(out, y.cuda())
        loss.backward()
        opt.step()
        scores = downstream_eval('annotation', out, y.cuda())
"""

NONZERO = SYNC.format(what="`.nonzero()`")
ITEM = SYNC.format(what="`.item()`")


def test_a_call_in_a_branch_a_compared_literal_closes_is_not_per_step():
    """CellPLM's ``downstream_eval('annotation', ...)`` every step: the dispatcher's ``elif task ==
    'denoising':`` and ``elif task in (...)`` branches never run from that call (R40 read for
    ``==``, ``!=``, ``in`` and ``not in`` a display of literals), so the evaluation helpers there
    are not per step. Handed the other literals, their syncs are."""
    assert _found(TASK_DISPATCH) == []
    denoising = TASK_DISPATCH.replace("downstream_eval('annotation'", "downstream_eval('denoising'")
    assert _found(denoising) == [
        ("TPL102", 9, 9, NONZERO + " (called every step from train.py:34 via downstream_eval)"),
        ("TPL102", 10, 11, ITEM + " (called every step from train.py:34 via downstream_eval)")]
    completion = TASK_DISPATCH.replace("downstream_eval('annotation'", "downstream_eval('completion'")
    assert _found(completion) == [
        ("TPL102", 14, 11, ITEM + " (called every step from train.py:34 via downstream_eval)")]


def test_two_per_step_calls_with_different_literals_walk_both_branches():
    """A dispatcher called every step with two literals is walked once for each: the branch of
    the second literal runs every step, the others do not."""
    both = TASK_DISPATCH.replace(
        "        scores = downstream_eval('annotation', out, y.cuda())\n",
        "        scores = downstream_eval('annotation', out, y.cuda())\n"
        "        other = downstream_eval('imputation', out, y.cuda())\n")
    assert _found(both) == [
        ("TPL102", 14, 11, ITEM + " (called every step from train.py:35 via downstream_eval)")]


def test_an_unequal_comparison_and_a_handed_on_task_close_the_same_way():
    """``if task != 'annotation':`` closes its body for the literal 'annotation'; a wrapper that
    hands its own ``task`` on as it is carries the literal down (the index's ``argp``)."""
    unequal = TASK_DISPATCH.replace("    if task == 'annotation':\n        return annotation_eval(pred, true)\n    elif",
                                    "    if task != 'annotation':\n        return denoising_eval(pred, true)\n    elif")
    assert _found(unequal) == []
    wrapped = TASK_DISPATCH.replace(
        "def train(", "def evaluate(task, pred, true):\n    return downstream_eval(task, pred, true)\n\n\ndef train(").replace(
        "scores = downstream_eval('annotation'", "scores = evaluate('annotation'")
    assert _found(wrapped) == []
    assert _found(wrapped.replace("evaluate('annotation'", "evaluate('denoising'")) == [
        ("TPL102", 9, 9, NONZERO + " (called every step from train.py:38 via evaluate \u2192 downstream_eval)"),
        ("TPL102", 10, 11, ITEM + " (called every step from train.py:38 via evaluate \u2192 downstream_eval)")]


def test_a_task_the_call_does_not_hand_as_a_literal_leaves_every_branch_open():
    """A task read from a config is no literal: every branch may run, each helper's sync is per step."""
    configured = TASK_DISPATCH.replace("def train(model, loader, opt):", "def train(model, loader, opt, task):").replace(
        "downstream_eval('annotation'", "downstream_eval(task")
    assert _found(configured) == [
        ("TPL102", 9, 9, NONZERO + " (called every step from train.py:34 via downstream_eval)"),
        ("TPL102", 10, 11, ITEM + " (called every step from train.py:34 via downstream_eval)"),
        ("TPL102", 14, 11, ITEM + " (called every step from train.py:34 via downstream_eval)")]


ALL_REDUCED = """\
import torch


class AllReduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


def train(model, loader, optimizer):
    for clips in loader:
        clips = clips.cuda(non_blocking=True)
        loss = model(clips)
        loss.backward()
        optimizer.step()
        input_var = float(AllReduce.apply(clips.var(dim=1).mean(dim=0)))
"""


def test_the_apply_of_an_autograd_function_of_the_file_is_a_tensor():
    """V-JEPA's ``float(AllReduce.apply(...))`` of a device value every step: the Function's
    ``apply`` gives a tensor where its inputs are; of a loader batch not yet moved it stays silent."""
    assert _found(ALL_REDUCED) == [("TPL102", 20, 20, SYNC.format(what="`float()` of a tensor"))]
    assert _found(ALL_REDUCED.replace("        clips = clips.cuda(non_blocking=True)\n", "")) == []


FINALIZE = """\
import torch


def compute_auroc(scores, true):
    if torch.sum(true) == 0:
        return 0.5
    return scores.mean()


def finalize(losses, scores, true, eval_model, use_auroc):
    if eval_model and use_auroc:
        losses['auroc'] = compute_auroc(scores, true)
    return losses


def train(model, loader, opt, use_auroc):
    for x, y in loader:
        out = model(x.cuda())
        loss = out.mean()
        loss.backward()
        opt.step()
        finalize({}, out, y.cuda(), False, use_auroc)
"""


def test_a_conjunction_closes_its_body_by_any_parameter_it_needs():
    """NPT's ``if eval_model and self.use_auroc:`` with the training call handing ``eval_model=False``:
    the body needs ``eval_model``, so the AUROC helper never runs from training. Handed True (or
    the test an ``or``), the helper's truth test is per step."""
    assert _found(FINALIZE) == []
    truth = SYNC.format(what="testing a tensor's truth") + " (called every step from train.py:22 via finalize)"
    assert _found(FINALIZE.replace("y.cuda(), False, use_auroc)", "y.cuda(), True, use_auroc)")) == [
        ("TPL102", 5, 7, truth)]
    assert _found(FINALIZE.replace("if eval_model and use_auroc:", "if eval_model or use_auroc:")) == [
        ("TPL102", 5, 7, truth)]
    # of an ``or``, the ``else`` needs every disjunct false
    disjunction = FINALIZE.replace(
        "    if eval_model and use_auroc:\n        losses['auroc'] = compute_auroc(scores, true)\n",
        "    if eval_model or use_auroc:\n        pass\n    else:\n        losses['auroc'] = compute_auroc(scores, true)\n")
    assert _found(disjunction.replace("y.cuda(), False, use_auroc)", "y.cuda(), True, use_auroc)")) == []
    assert _found(disjunction) == [("TPL102", 5, 7, truth.replace("train.py:22", "train.py:24"))]


LEGACY_LONG = ("tensor is created on the CPU by the legacy constructor `torch.LongTensor(...)` and then copied "
               "to the device; create it there with `torch.tensor(..., dtype=torch.int64, device=...)`")


def test_lists_written_in_the_source_joined_are_literal_data():
    """Loss-Gated-Learning's ``torch.LongTensor([1]*loader.batch_size+[0]*loader.batch_size).cuda()``
    (holdout129): repeated list displays joined by ``+`` are data written in the source, as one
    repeated display is (rules.md TPL101); ``torch.tensor``'s fix stays safe. Joined with a list of
    the host, the data starts there: silent."""
    source = """
        import torch
        def labels(loader, other):
            aat = torch.LongTensor([1] * loader.batch_size + [0] * loader.batch_size).cuda()
            mask = torch.tensor([1.0] * 4 + [0.0] * 4).cuda()
            mixed = torch.tensor([1] * 4 + other).cuda()
            return aat, mask, mixed
        """
    assert rule_diagnostics(source, "TPL101") == [
        (4, 10, LEGACY_LONG, None, None),
        (5, 11, CPU_CREATION_TEMPLATE.format(factory="tensor"), "safe", 'create the tensor with device="cuda"'),
    ]


def test_the_fix_of_joined_literal_lists_gives_the_same_tensor():
    """The safe fix applied, parsed, applied again (no change), and run on the CPU: the same tensor."""
    import ast

    import torch

    from torchperf_lint.engine import fix_source

    source = "import torch\ndef make(n, device):\n    return torch.tensor([1.0] * n + [0.0] * n).to(device)\n"
    result, count = fix_source(source, codes=["TPL101"])
    ast.parse(result)
    assert count == 1 and "torch.tensor([1.0] * n + [0.0] * n, device=device)" in result
    assert fix_source(result, codes=["TPL101"]) == (result, 0)
    made, original = {}, {}
    exec(compile(result, "<fixed>", "exec"), made)
    exec(compile(source, "<original>", "exec"), original)
    assert torch.equal(made["make"](3, "cpu"), original["make"](3, "cpu"))


def test_a_splat_keeps_the_literals_the_call_passes_but_no_default():
    """CellPLM's ``downstream_eval('annotation', out_dict['pred'], out_dict['label'], **self.eval_dict)``:
    a ``**`` splat cannot pass ``task`` again (Python rejects a second value), so the literal closes
    the other branches as before; a parameter the call leaves to its default may come from the
    splat, so a default closes nothing."""
    splat = TASK_DISPATCH.replace("def train(model, loader, opt):", "def train(model, loader, opt, opts):").replace(
        "downstream_eval('annotation', out, y.cuda())", "downstream_eval('annotation', out, y.cuda(), **opts)")
    assert _found(splat) == []
    defaulted = splat.replace("def downstream_eval(task, pred, true):", "def downstream_eval(pred, true, task='annotation'):"
                              ).replace("downstream_eval('annotation', out, y.cuda(), **opts)",
                                        "downstream_eval(out, y.cuda(), **opts)")
    assert _found(defaulted) == [
        ("TPL102", 9, 9, NONZERO + " (called every step from train.py:34 via downstream_eval)"),
        ("TPL102", 10, 11, ITEM + " (called every step from train.py:34 via downstream_eval)"),
        ("TPL102", 14, 11, ITEM + " (called every step from train.py:34 via downstream_eval)")]
    assert _found(defaulted.replace(", **opts)", ")")) == []



CLIP = """\
import torch
from math import inf


def clip_grad_norm(parameters, max_norm, norm_type=2):
    parameters = [p for p in parameters if p.grad is not None]
    if norm_type == inf:
        total_norm = max(p.grad.abs().max() for p in parameters).item()
    else:
        total_norm = sum(p.grad.norm(norm_type) ** norm_type for p in parameters).item()
    return total_norm


def train(model, loader, opt):
    for x in loader:
        loss = model(x.cuda())
        loss.backward()
        clip_grad_norm(model.parameters(), 1.0)
        opt.step()
"""


def test_a_comparison_with_infinity_closes_by_the_literal_default():
    """Megatron's ``clip_grad_norm`` copies (GLM, holdout127): ``if norm_type == inf:`` with every call
    leaving ``norm_type`` at 2: the infinity-norm branch runs in no step, its ``.item()`` stays silent;
    the 2-norm branch's ``.item()`` is per step. Handed ``float('inf')`` (no literal the index
    records), either branch may run: both are reported."""
    item = ITEM + " (called every step from train.py:18)"
    assert _found(CLIP) == [("TPL102", 10, 21, item)]
    assert _found(CLIP.replace("clip_grad_norm(model.parameters(), 1.0)",
                               "clip_grad_norm(model.parameters(), 1.0, float('inf'))")) == [
        ("TPL102", 8, 21, item), ("TPL102", 10, 21, item)]
    assert _found(CLIP.replace("if norm_type == inf:", "if norm_type == math.inf:").replace(
        "from math import inf", "import math")) == [("TPL102", 10, 21, item)]


def test_a_helper_called_in_the_infinity_branch_is_not_per_step():
    """The index's side of the same reading (R40's closed branches skip the calls in them)."""
    helper = CLIP.replace("def clip_grad_norm(", "def inf_norm(parameters):\n"
                          "    return max(p.grad.abs().max() for p in parameters).item()\n\n\n"
                          "def clip_grad_norm(").replace(
        "        total_norm = max(p.grad.abs().max() for p in parameters).item()\n",
        "        total_norm = inf_norm(parameters)\n")
    assert _found(helper) == [("TPL102", 14, 21, ITEM + " (called every step from train.py:22)")]


DDP_ACCUMULATION_BRANCH = """
    import torch


    def train_one_epoch(config, model, loader, optimizer):
        for idx, (img, mask) in enumerate(loader):
            loss = model(img.cuda(non_blocking=True), mask.cuda(non_blocking=True))
            if config.ACCUMULATION_STEPS > 1:
                loss = loss / config.ACCUMULATION_STEPS
                loss.backward()
                if (idx + 1) % config.ACCUMULATION_STEPS == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            else:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


    def main(config, model, loader, optimizer):
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])
        train_one_epoch(config, model, loader, optimizer)
    """
DDP_ACCUMULATION = (
    "gradient accumulation on a DistributedDataParallel model: this backward runs every time round "
    "but the optimizer steps only every few rounds, and DDP all-reduces all gradients on each "
    "backward; run the forward and backward of the micro-batches that do not step under "
    "`with model.no_sync():` (DDP decides at the forward; one all-reduce per optimizer step) "
    "(runtime_guard: all-reduces per optimizer step observed)")


def test_a_step_in_the_other_branch_does_not_hide_the_accumulation():
    """SimMIM (holdout134): ``if ACCUMULATION_STEPS > 1:`` accumulates (backward every batch, step
    under ``(idx + 1) % accum``) and its ``else`` steps every batch. The backward of the first branch
    runs with the interval step only: reported; the ``else``'s backward steps every time: silent."""
    assert rule_diagnostics(DDP_ACCUMULATION_BRANCH, "TPL207") == [(10, 12, DDP_ACCUMULATION, None, None)]
    no_else = DDP_ACCUMULATION_BRANCH.replace(
        "                if (idx + 1) % config.ACCUMULATION_STEPS == 0:\n"
        "                    optimizer.step()\n                    optimizer.zero_grad()\n",
        "                optimizer.step()\n")
    assert rule_diagnostics(no_else, "TPL207") == []
