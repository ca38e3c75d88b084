"""Forms of the thirtieth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""


from _diagnostics import PINNED_COPY, SYNC_TEMPLATE as SYNC, all_diagnostics, found as _found

from torchperf_lint.findings import Edit

PRINTED = SYNC.format(what="printing a tensor")

LOADER_TABLE = """\
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, datasets):
        self.model = model.cuda()
        self.datasets = datasets
        self.data_loaders = {empty}
        self.init_loaders()

    def init_loaders(self):
        for name, ds in self.datasets.items():
            loader = DataLoader(ds, batch_size=32, num_workers=4, {settings})
            self.data_loaders[name] = loader
{more}
    def train(self, optimizer, dataset_name):
        train_loader = self.data_loaders[dataset_name]
        for data, targets in train_loader:
            data = data.cuda()
            loss = torch.nn.functional.cross_entropy(self.model(data), targets.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


def _loader_table(empty="{}", settings="pin_memory=True", more=""):
    return LOADER_TABLE.format(empty=empty, settings=settings, more=more)


def test_an_item_of_a_dict_filled_with_pinned_loaders_hands_out_pinned_batches():
    """R135 (rules.md TPL104: pinning is a fact of the loader the loop iterates): cpjku_dcase20
    (holdout157) keeps every loader it makes with ``pin_memory=True`` in ``self.data_loaders`` and
    each loop reads one of them by name; its batches are copied without ``non_blocking``."""
    for empty in ("{}", "dict()", "[]"):
        assert all_diagnostics(_loader_table(empty=empty), "TPL104") == [
            ("TPL104", 20, 19, PINNED_COPY, ("safe", "add non_blocking=True", (Edit(20, 29, 20, 29, "non_blocking=True"),))),
            ("TPL104", 21, 71, PINNED_COPY, ("safe", "add non_blocking=True", (
                Edit(21, 84, 21, 84, "\n                non_blocking=True,\n            "),))),
        ], empty


def test_an_item_of_a_collection_not_only_of_pinned_loaders_is_not_known_pinned():
    """The twins: the loaders stored do not pin (or pin by a setting); the dict also gets a value
    that is no known loader; the collection is bound to something else than an empty dict; the
    dict starts from a loader of unknown pinning. None of these copies is known to be pinned."""
    unpinned = ("pin_memory=False", "pin_memory=self.pin")
    for settings in unpinned:
        assert _found(_loader_table(settings=settings), ("TPL104",)) == [], settings
    others = (
        "\n    def add(self, name, loader):\n        self.data_loaders[name] = loader\n",
        "\n    def add(self, name, ds):\n        self.data_loaders[name] = make_loader(ds)\n",
        "\n    def add(self, name):\n        self.data_loaders[name] = DataLoader(self.datasets[name])\n",
        "\n    def reset(self, loaders):\n        self.data_loaders = loaders\n",
    )
    for more in others:
        assert _found(_loader_table(more=more), ("TPL104",)) == [], more
    assert _found(_loader_table(empty="build_loaders()"), ("TPL104",)) == []


def test_the_fixed_loader_table_loop_runs_and_copies_the_same_values():
    """Applied, parsed, applied again (no change), run on the CPU (``.cuda`` stood in by a recorder):
    the same batch values are copied, now with ``non_blocking=True``, and the step trains the same."""
    import ast

    import torch

    from torchperf_lint.engine import fix_source

    source = _loader_table()
    fixed, count = fix_source(source, codes=["TPL104"])
    ast.parse(fixed)
    assert count == 2 and fixed.count("non_blocking=True") == 2
    assert fix_source(fixed, codes=["TPL104"]) == (fixed, 0)

    def run(program):
        moved = []

        class Batch(torch.Tensor):
            def cuda(self, non_blocking=False):
                moved.append((self.as_subclass(torch.Tensor).clone(), non_blocking))
                return self.as_subclass(torch.Tensor)

        namespace = {}
        exec(compile(program, "train.py", "exec"), namespace)
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 2)
        model.cuda = lambda: model
        data = [(torch.ones(2, 3).as_subclass(Batch), torch.tensor([0, 1]).as_subclass(Batch))]
        namespace["DataLoader"] = lambda ds, **kwargs: ds
        trainer = namespace["Trainer"](model, {"training": data})
        trainer.train(torch.optim.SGD(model.parameters(), lr=0.1), "training")
        return moved, model.weight.detach().clone()

    before, weight_before = run(source)
    after, weight_after = run(fixed)
    assert [t.tolist() for t, _ in before] == [t.tolist() for t, _ in after] == [[[1.0] * 3] * 2, [0, 1]]
    assert [flag for _, flag in before] == [False, False] and [flag for _, flag in after] == [True, True]
    assert torch.equal(weight_before, weight_after)


NAMED_CRITERIA = """\
import torch


def train(model, iterator, optimizer, {name}, weight_A, weight_B, device, verbose_flag):
    epoch_loss = 0
    for i, (spec, label) in enumerate(iterator):
        spec, label = spec.to(device), label.to(device)
        out = model(spec)
        loss_A = {name}(out, label)
        loss_B = {name}(out, label)
        loss = weight_A * loss_A + weight_B * loss_B
        if verbose_flag is True:
            print(loss)
        loss.backward()
        optimizer.step()
    return epoch_loss
"""


def test_a_criterion_named_for_what_it_compares_returns_a_loss():
    """R136: hFT-Transformer's ``criterion_onset_A(output, label)`` (holdout157), pix2pix's
    ``criterionGAN``, ``criterion2``: a criterion's output; ``print(loss)`` under a verbose flag
    (a setting, no interval) waits for the device every step."""
    for name in ("criterion_onset_A", "criterionGAN", "criterion2", "criterion_cls"):
        assert _found(NAMED_CRITERIA.format(name=name)) == [("TPL102", 13, 12, PRINTED)], name


def test_a_long_criterion_name_is_read_in_one_pass():
    """The name test must not backtrack: ``criterion`` + 60 letters + ``__`` took the first pattern
    (a repeated group of optional underscores and letters) about 2^60 steps; read in one pass it is
    a criterion named for what it compares, and a bare ``criterion_`` is none."""
    from torchperf_lint.analysis.syntax import is_loss_function_name

    assert is_loss_function_name("criterion" + "a" * 60 + "__")
    assert not is_loss_function_name("criterion_") and not is_loss_function_name("criterion__")


def test_a_name_for_a_criterions_settings_returns_no_loss():
    """The twins: ``criterion_name(...)``, ``criterion_builder(...)``, ``criterion_cfg(...)`` make or
    name a criterion; ``criterions(...)`` is a collection's name: none returns a loss tensor."""
    for name in ("criterion_name", "criterion_builder", "criterion_cfg", "criterions", "criterion_type"):
        assert _found(NAMED_CRITERIA.format(name=name)) == [], name


PARAMETER_LOADER = """\
import torch


def train_vanilla(epoch, train_loader, model, criterion, optimizer):
    for idx, (input, target) in enumerate(train_loader):
        input = input.cuda()
        loss = criterion(model(input), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_hide(train_dataset, model, criterion, optimizer):
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=16, num_workers=2, pin_memory=True)
    for idx, (input, target) in enumerate(train_loader):
        input = input.cuda()
        loss = criterion(model(input), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
{more}"""


def test_a_loader_parameter_no_call_of_the_module_fills_is_not_known_pinned():
    """R137 (rules.md TPL104: a batch of a loader the module does not show is not known to be
    pinned): SCRUB's vendored ``loops.py`` (holdout158) binds ``train_loader`` to a pinned loader in
    ``train_hide`` only; ``train_vanilla``'s parameter of the same name is filled by callers in
    other files. Only ``train_hide``'s own copy is flagged."""
    assert all_diagnostics(PARAMETER_LOADER.format(more=""), "TPL104") == [
        ("TPL104", 16, 16, PINNED_COPY, ("safe", "add non_blocking=True", (Edit(16, 27, 16, 27, "non_blocking=True"),)))]


def test_a_loader_parameter_the_module_fills_with_a_pinned_loader_is_pinned():
    """The twins: a call of the module hands ``train_vanilla`` a pinned loader (flagged there too);
    a parameter the function binds again to a pinned loader of its own is pinned."""
    called = ("\n\ndef main(ds, model, criterion, optimizer):\n"
              "    loader = torch.utils.data.DataLoader(ds, num_workers=2, pin_memory=True)\n"
              "    train_vanilla(0, loader, model, criterion, optimizer)\n")
    assert [f[:2] for f in all_diagnostics(PARAMETER_LOADER.format(more=called), "TPL104")] == [
        ("TPL104", 6), ("TPL104", 16)]
    rebound = PARAMETER_LOADER.format(more="").replace(
        "    for idx, (input, target) in enumerate(train_loader):\n        input = input.cuda()\n"
        "        loss = criterion(model(input), target)\n        optimizer.zero_grad()\n        loss.backward()\n"
        "        optimizer.step()\n\n\ndef train_hide",
        "    train_loader = torch.utils.data.DataLoader(train_loader, num_workers=2, pin_memory=True)\n"
        "    for idx, (input, target) in enumerate(train_loader):\n        input = input.cuda()\n"
        "        loss = criterion(model(input), target)\n        optimizer.zero_grad()\n        loss.backward()\n"
        "        optimizer.step()\n\n\ndef train_hide", 1)
    assert [f[:2] for f in all_diagnostics(rebound, "TPL104")] == [("TPL104", 7), ("TPL104", 17)]


TUPLE_MOVE = """\
import torch


class VAE(torch.nn.Module):
    def reparameterize(self, mu, logvar):
        stds = (0.5 * logvar).exp()
        epsilon = torch.randn(*mu.size())
        if mu.is_cuda:
            {move}
        latents = epsilon * stds + mu
        return latents
"""
RANDN_MOVED = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.randn(...)` "
               "to create it there (runtime_guard: device-native creation)")


def test_a_factory_rebound_to_its_move_in_a_tuple_assignment_is_flagged():
    """R138: vaal's ``stds, epsilon = stds.cuda(), epsilon.cuda()`` (holdout158) rebinds each name to
    its own move in one statement, as ``epsilon = epsilon.cuda()`` does (R108): the host tensor is
    never used again. No fix: the move sits in another statement."""
    for move in ("stds, epsilon = stds.cuda(), epsilon.cuda()", "epsilon, stds = epsilon.cuda(), stds.cuda()",
                 "[stds, epsilon] = [stds.cuda(), epsilon.cuda()]"):
        assert all_diagnostics(TUPLE_MOVE.format(move=move), "TPL101") == [("TPL101", 7, 18, RANDN_MOVED, None)], move


def test_a_tuple_assignment_that_keeps_the_host_tensor_is_not_flagged():
    """The twins: the moved tensor goes to another name (the host one is read after), the name
    gets another item's move, the statement reads the host tensor again, or a starred target."""
    for move in ("stds, eps_gpu = stds.cuda(), epsilon.cuda()", "epsilon, stds = stds.cuda(), epsilon.cuda()",
                 "stds, epsilon = stds * epsilon, epsilon.cuda()", "stds, *epsilon = stds.cuda(), epsilon.cuda()"):
        assert all_diagnostics(TUPLE_MOVE.format(move=move), "TPL101") == [], move


VALIDATION_UNDER_INTERVAL = """\
import numpy as np
import torch


def main(model, optimizer, loss_fun, train_loader, val_loader, check_iter, device):
    global_iter = 0
    while True:
        for i_iter, (labels, features) in enumerate(train_loader):
            {gate}
                model.eval()
                hist_list, val_loss_list = [], []
                with torch.no_grad():
                    for val_labels, val_features in val_loader:
                        val_labels = SemKITTI2train(val_labels).to(device)
                        predict = model(val_features.to(device))
                        loss = loss_fun(predict, val_labels)
                        hist_list.append(np.bincount(predict.argmax(1).cpu().numpy().ravel()))
                        val_loss_list.append(loss.detach().cpu().numpy())
                        {extra}
                model.train()
            outputs = model(features.to(device))
            loss = loss_fun(outputs, labels.to(device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            global_iter += 1
"""
CPU_SYNC = SYNC.format(what="`.cpu()`")
ITEM_SYNC = SYNC.format(what="`.item()`")


def _validation(gate="if global_iter % check_iter == 0:", extra="pass"):
    return VALIDATION_UNDER_INTERVAL.format(gate=gate, extra=extra)


def test_copies_of_a_validation_pass_under_an_interval_of_the_training_loop_are_results():
    """R139 (R8 with rules.md "An interval"): PolarSeg's and Cylinder3D's training loops (holdout159)
    run a no-grad validation pass over ``val_loader`` under ``if global_iter % check_iter == 0:``;
    its ``.cpu()`` copies bring the results to numpy: evaluation copies, though the loop around the
    interval trains. Its ``.item()`` still waits every validation batch (R37: the pass has its own
    steps). ``SemKITTI2train(...)`` under ``torch.no_grad()`` trains nothing, whatever its name."""
    assert _found(_validation()) == []
    assert _found(_validation(extra="print(loss.item())")) == [("TPL102", 19, 30, ITEM_SYNC)]


def test_copies_of_a_validation_pass_the_training_loop_runs_every_step_still_wait():
    """The twins: without the interval (a flag or nothing) the pass runs inside every training
    step, so the loop around it trains and its copies are the step's: flagged (R8)."""
    expected = [("TPL102", 18, 45, CPU_SYNC)]  # (the histogram's copy is handed to numpy: host-needed, R3)
    assert _found(_validation(gate="if check_iter:")) == expected
    assert _found(_validation(gate="if True or global_iter:")) == expected


EVERY_N_ELSE = """\
import torch


def vald(model, loader_val, graph_loss, args):
    loss_batch = 0
    batch_count = 0
    is_fst_loss = True
    for cnt, batch in enumerate(loader_val):
        batch_count += 1
        x, y = batch[0].cuda(), batch[1].cuda()
        pred = model(x)
        if {test}:
            l = graph_loss(pred, y)
            loss = l if is_fst_loss else loss + l
            is_fst_loss = False
        else:
            loss = loss / args.batch_size
            is_fst_loss = True
            loss_batch += loss.item(){update}
    return loss_batch
"""


def test_the_else_of_a_test_false_once_every_n_batches_is_an_interval():
    """R140 (rules.md "An interval"): Social-STGCNN's validation (holdout159) sums a loss over
    ``batch_size`` batches under ``if batch_count % args.batch_size != 0 and cnt != turn_point:``
    and reads it in the ``else``, taken once every ``batch_size`` batches (and at the last one)."""
    for test in ("batch_count % args.batch_size != 0", "batch_count % args.batch_size != 0 and cnt != 5",
                 "batch_count % args.batch_size", "batch_count % args.batch_size != 0 or cnt == 5"):
        assert _found(EVERY_N_ELSE.format(test=test, update="")) == [], test


def test_the_else_of_other_tests_or_one_that_steps_still_waits():
    """The twins: an ``else`` taken every batch a flag is off (``and not args.debug``), the ``else``
    of ``% n == 0`` (taken n - 1 times of n), of a comparison with another number than 0, of a
    process's share; and the training twin, whose ``else`` runs the backward and the step
    (gradient accumulation: every update is a step)."""
    item = [("TPL102", 19, 26, ITEM_SYNC)]
    for test in ("batch_count % args.batch_size != 0 and not args.debug", "batch_count % args.batch_size == 0",
                 "batch_count % args.batch_size != 1", "rank % world_size != 0"):
        assert _found(EVERY_N_ELSE.format(test=test, update="")) == item, test
    update = "\n            loss.backward()\n            args.optimizer.step()"
    assert _found(EVERY_N_ELSE.format(test="batch_count % args.batch_size != 0", update=update)) == item


ITEMS_MOVED = """\
import torch


def compute_error(output, target):
    with torch.no_grad():
        scale = torch.sqrt((target["verts"] ** 2).sum(-1)).mean(-1).cpu()
        return (output["verts"].detach() / scale.to(output["verts"].device)).mean()


def train_epoch(model, train_loader, criterion, optimizer, meter):
    model.train()
    for batch_input, batch_gt in train_loader:
        {moves}
        output = model(batch_input.cuda())
        loss = criterion(output, batch_gt)
        meter.update(compute_error(output, batch_gt))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_batch_whose_items_the_step_moves_is_no_host_value_for_its_callees():
    """R141 (R14's host values): MotionBERT's ``train_epoch`` (holdout163) replaces the batch dict's
    items with device copies (``batch_gt['verts'] = batch_gt['verts'].cuda().float()``) and hands
    ``batch_gt`` to ``compute_error``, whose ``.cpu()`` of a value of the target then waits every
    step; the batch is no longer known to be on the host."""
    moves = "batch_gt['verts'] = batch_gt['verts'].cuda().float()"
    assert _found(ITEMS_MOVED.format(moves=moves)) == [("TPL102", 6, 16, CPU_SYNC + " (called every step from train.py:16)")]


def test_a_batch_left_on_the_host_keeps_its_callees_copies_silent():
    """The twin: the batch is handed on as the loader made it (its items on the host): the copy of a
    value of the host target is no wait for the device (R14)."""
    assert _found(ITEMS_MOVED.format(moves="pass")) == []


ONCE_BY_SETTING = """\
import torch


def free():
    torch.cuda.empty_cache()


def train(model, loader, optimizer, args):
    train_step = 0
    for x in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
        train_step += 1
        if {test}:
            torch.cuda.empty_cache()
            free()
"""
EMPTY_CACHE = ("`torch.cuda.empty_cache()` in a loop frees the allocator's cache only for it to be re-allocated "
               "with synchronous cudaMalloc calls; remove it (the caching allocator reuses memory)")


def test_a_step_counter_equal_to_a_setting_holds_once():
    """R142 (rules.md "An interval": a test on the step counter): deq's ``if train_step ==
    args.pretrain_steps and ...: torch.cuda.empty_cache()`` (holdout162) runs once, when
    pretraining ends: no per-step call, in the loop (libcst) nor in the helper it calls (the
    index's ast twin)."""
    for test in ("train_step == args.pretrain_steps", "args.pretrain_steps == train_step",
                 "train_step == self.hparams.warmup_steps", "train_step == args.pretrain_steps and args.x > 4"):
        assert _found(ONCE_BY_SETTING.format(test=test), ("TPL103",)) == [], test


def test_a_step_counter_compared_otherwise_or_with_other_values_still_runs_every_step():
    """The twins: ``>=`` holds on every step after; a value that is no step counter, or a counter
    compared with another object's attribute or a plain name, is no known once-only test."""
    for test in ("train_step >= args.pretrain_steps", "loss_scale == args.pretrain_steps",
                 "train_step == model.steps", "args.pretrain_steps"):
        assert _found(ONCE_BY_SETTING.format(test=test), ("TPL103",)) == [
            ("TPL103", 5, 4, EMPTY_CACHE + " (called every step from train.py:17)"),
            ("TPL103", 16, 12, EMPTY_CACHE)], test


NORMS_BY_GROUP = """\
import math
import torch


def clip_grad_norms(param_groups, max_norm=math.inf):
    grad_norms = [
        torch.nn.utils.{clip}(group['params'], max_norm if max_norm > 0 else math.inf, norm_type=2)
        for group in param_groups
    ]
    grad_norms_clipped = [min(g_norm, max_norm) for g_norm in grad_norms] if max_norm > 0 else grad_norms
    return grad_norms, grad_norms_clipped


def train_batch(model, x, optimizer):
    loss = model(x.cuda()).sum()
    optimizer.zero_grad()
    loss.backward()
    norms = clip_grad_norms(optimizer.param_groups, 1.0)
    optimizer.step()
    return norms
"""
MIN_SYNC = SYNC.format(what="builtin `min()` of tensors")


def test_the_norms_a_comprehension_clips_group_by_group_are_device_tensors():
    """R143 (R55: builtin ``min`` of a tensor): attention-learn-to-route's ``clip_grad_norms``
    (learning-tsp, VRP-DACT; holdout161) clips each parameter group in a list comprehension and
    takes ``min(g_norm, max_norm)`` of each norm: a device tensor whatever the group, every step."""
    for clip in ("clip_grad_norm", "clip_grad_norm_"):
        assert _found(NORMS_BY_GROUP.format(clip=clip)) == [
            ("TPL102", 10, 26, MIN_SYNC + " (called every step from train.py:18 via train_batch)")], clip


def test_items_of_other_comprehensions_over_their_targets_stay_unknown():
    """The twins: a comprehension of another call over its targets (a Python function of each
    group's setting), or of an item of each group, hands out nothing known to be on the device."""
    call = "torch.nn.utils.{clip}(group['params'], max_norm if max_norm > 0 else math.inf, norm_type=2)"
    for element in ("max(group['lr'], 0.1)", "group['params'][0].norm()"):
        assert _found(NORMS_BY_GROUP.replace(call, element)) == [], element


HALF = """\
import torch

device = torch.device("cpu")
n = 3
embt = torch.tensor({data}).to(device)
"""
TENSOR_MOVED = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.tensor(...)` "
                "to create it there (runtime_guard: device-native creation)")


def test_arithmetic_of_numbers_written_out_is_number_data():
    """R145 (rules.md TPL101: a number written out is literal data): IFRNet's benchmark scripts
    (holdout164) write ``torch.tensor(1/2).float().view(1, 1, 1, 1).to(device)``; ``1/2``, ``2**-3``,
    ``-1 / 3``, ``math.pi / 2`` are numbers as ``0.5`` is."""
    for data in ("1/2", "2 ** -3", "-1 / 3", "1 - 0.25", "7 // 2 % 3"):
        found = all_diagnostics(HALF.format(data=data), "TPL101")
        assert [f[:4] for f in found] == [("TPL101", 5, 7, TENSOR_MOVED)], data
        assert found[0][4][0] == "safe", data


def test_arithmetic_of_numbers_in_a_function_passes_the_ast_prefilter_too():
    """The unit prefilter (``_may_be_factory``, ast) reads the same data: a function's
    ``torch.tensor(1/2)`` is parsed with libcst and flagged."""
    source = "import torch\n\n\ndef embed(x):\n    return x * torch.tensor(1/2).to(x.device)\n"
    assert [f[:4] for f in all_diagnostics(source, "TPL101")] == [("TPL101", 5, 15, TENSOR_MOVED)]


def test_arithmetic_with_names_is_no_number_data():
    """The twins: a name in the arithmetic (its value starts wherever it lives), and a list
    repeated by a name, stay as before (the list is data: R134)."""
    assert all_diagnostics(HALF.format(data="n / 2"), "TPL101") == []
    assert all_diagnostics(HALF.format(data="1 / n"), "TPL101") == []


def test_the_fix_of_arithmetic_data_gives_the_same_tensor():
    """Applied, parsed, applied again (no change), run: the same value and dtype."""
    import ast

    import torch

    from torchperf_lint.engine import fix_source

    source = HALF.format(data="1/2")
    fixed, count = fix_source(source, codes=["TPL101"])
    ast.parse(fixed)
    assert count == 1 and "torch.tensor(1/2, device=device)" in fixed
    assert fix_source(fixed, codes=["TPL101"]) == (fixed, 0)
    made, original = {}, {}
    exec(compile(fixed, "<fixed>", "exec"), made)
    exec(compile(source, "<original>", "exec"), original)
    assert torch.equal(made["embt"], original["embt"]) and made["embt"].dtype == original["embt"].dtype


AFTER_EXIT = """\
import sys

import torch


def report(y):
    print(y.sum().item())


if __name__ == "__main__":
    net = torch.nn.Linear(2, 2).cuda()
    x = torch.ones(2, 2, device="cuda")
    for _ in range(10):
        y = net(x)
        print(y.sum().item())
    {stop}
    while True:
        y = net(x)
        print(y.sum().item())
        report(y)
"""
ITEM_SYNC_AT = SYNC.format(what="`.item()`")


def test_what_follows_an_exit_call_never_runs():
    """R146: yolact_edge's ``__main__`` (holdout135) calls ``exit()`` before its ``while True:``
    frames-per-second loop: the loop never runs, so neither its own ``.item()`` nor a helper it calls
    (the index's ast twin) makes a finding; the loop before the exit still does."""
    for stop in ("exit()", "sys.exit(0)", "quit()"):
        assert _found(AFTER_EXIT.format(stop=stop)) == [("TPL102", 15, 14, ITEM_SYNC_AT)], stop


def test_an_exit_call_under_a_test_ends_nothing_after_it():
    """The twins: an exit under an ``if`` (taken sometimes), or a call named otherwise, leaves the
    loop after it running: its ``.item()`` and the helper's are per step."""
    for stop in ("if x.numel() > 10:\n        exit()", "sys.stdout.flush()"):
        shift = 1 if stop.startswith("if") else 0
        assert _found(AFTER_EXIT.format(stop=stop)) == [
            ("TPL102", 7, 10, ITEM_SYNC_AT + f" (called every step from train.py:{20 + shift})"),
            ("TPL102", 15, 14, ITEM_SYNC_AT), ("TPL102", 19 + shift, 14, ITEM_SYNC_AT)], stop


CEILED_SIZES = """\
import math

import torch
import torch.nn.functional as F


def train(model, loader, optimizer, device):
    for images, boxes in loader:
        feats = model(images.to(device))
        boxes = boxes.to(device)
        box_hs = boxes[:, 3] - boxes[:, 1]
        max_h = math.{rounding}(max(box_hs))
        {use}
        loss = feats.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_maximum_rounded_by_math_into_a_size_is_host_needed():
    """R147 (R38 and R3): LearningToCountEverything (holdout166) rounds ``max(box_hs)`` with
    ``math.ceil`` into the size ``F.interpolate(..., size=(max_h, max_w))`` reads on the host: an int
    made from a tensor and handed to a call, as ``int(...)`` is."""
    use = "feats = F.interpolate(feats, size=(max_h, max_h))"
    for rounding in ("ceil", "floor", "trunc"):
        assert _found(CEILED_SIZES.format(rounding=rounding, use=use)) == [], rounding


def test_a_maximum_rounded_and_shown_or_logged_still_waits():
    """The twins: the rounded maximum is only printed or logged every step (R38: shown, no host
    need), or rounded by another function: the builtin ``max`` of tensors waits (R55)."""
    max_sync = [("TPL102", 12, 26, SYNC.format(what="builtin `max()` of tensors"))]
    assert _found(CEILED_SIZES.format(rounding="ceil", use="print(max_h)")) == max_sync
    assert _found(CEILED_SIZES.format(rounding="prod", use="feats = F.interpolate(feats, size=(max_h, max_h))")) == (
        max_sync)


GEOMETRIC_LOADER = """\
import torch
from {module} import {loader}


def train(model, optimizer, device):
    for data in train_dataloader:
        data = data.to(device)
        loss = model(data).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


train_dataloader = {loader}(train_dataset, batch_size=64, shuffle=True, num_workers=4, {settings})
"""


def test_a_pinned_pytorch_geometric_loader_hands_out_pinned_batches():
    """R148 (rules.md TPL104): PyTorch Geometric's ``DataLoader`` subclasses torch's and takes its
    ``pin_memory=True``; its batches' ``.to(device, non_blocking=True)`` copies as a tensor's does
    (const_layout, holdout168): a blocking copy of a pinned batch, with the safe fix."""
    for module in ("torch_geometric.data", "torch_geometric.loader"):
        source = GEOMETRIC_LOADER.format(module=module, loader="DataLoader", settings="pin_memory=True")
        assert all_diagnostics(source, "TPL104") == [
            ("TPL104", 7, 15, PINNED_COPY, ("safe", "add non_blocking=True", (Edit(7, 29, 7, 29, ", non_blocking=True"),)))
        ], module


def test_other_loaders_of_graphs_are_not_known_pinned():
    """The twins: a PyG loader that does not pin, and another library's loader that pins (DGL's
    ``GraphDataLoader``, whose pinning the rule does not read), stay silent."""
    assert _found(GEOMETRIC_LOADER.format(module="torch_geometric.loader", loader="DataLoader",
                                          settings="pin_memory=False"), ("TPL104",)) == []
    assert _found(GEOMETRIC_LOADER.format(module="dgl.dataloading", loader="GraphDataLoader",
                                          settings="pin_memory=True"), ("TPL104",)) == []


FREQUENCIES = """\
import math

import numpy as np
import torch


class PositionalEncodings(torch.nn.Module):
    def forward(self, x):
        frequency = torch.exp(
            torch.arange(0, 16, 2, dtype=torch.float32)
            * -({scale} / 16)
        ).cuda()
        return x * frequency
"""
ARANGE_MOVED = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.arange(...)` "
                "to create it there (runtime_guard: device-native creation)")


def test_a_math_function_of_numbers_is_a_number_the_factory_is_scaled_by():
    """R149 (TPL101: arithmetic with a number keeps a factory's tensor fresh): RefineGNN
    (holdout167) scales ``torch.arange(...)`` by ``-(np.log(10000.0) / n)`` inside ``torch.exp(...)``
    and moves the result: ``np.log`` of a number is a number (a numpy scalar)."""
    for scale in ("np.log(10000.0)", "math.log(10000.0)", "np.sqrt(2.0)"):
        assert [f[:4] for f in all_diagnostics(FREQUENCIES.format(scale=scale), "TPL101")] == [
            ("TPL101", 10, 12, ARANGE_MOVED)], scale


def test_a_numpy_array_or_a_function_of_a_tensor_is_no_number():
    """The twins: ``np.ones(16)`` is an array (no scalar function), and ``torch.log(x)`` is a
    tensor: neither is known to keep the factory's tensor a fresh host one."""
    for scale in ("np.ones(16)", "torch.log(x)"):
        assert all_diagnostics(FREQUENCIES.format(scale=scale), "TPL101") == [], scale
