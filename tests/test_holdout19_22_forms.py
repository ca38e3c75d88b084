"""Forms the first scores of holdout19-holdout22 missed or got wrong (2026-11-27, the lead; tuned on
those sets after their first scores): each with its flagged and silent twins, whole diagnostics."""

from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found


STEP_METHOD_LOOP = """\
import torch


class Trainer:
    def __init__(self, model, opt, train_iter, steps):
        self.model = model
        self.opt = opt
        self.train_iter = train_iter
        self.steps = steps

    def _run_step(self, x):
        self.opt.zero_grad()
        loss = self.model(x).mean()
        loss.backward()
        self.opt.step()
        return loss

    def run_loop(self):
        step = 0
        total = 0.0
        while step < self.steps:
            x = next(self.train_iter)
            batch_loss = self._run_step(x)
            total += batch_loss.item() * len(x)
            step += 1
        return total
"""


def test_a_loop_calling_a_method_that_performs_one_step_is_a_step_loop():
    """tab-ddpm's ``while step < self.steps:`` draws batches from ``self.train_iter`` (no loader
    name) and calls ``self._run_step(x)``, whose body runs backward outside any loop: rules.md "it
    performs one step, and its caller runs it every step", so the loop's ``.item()`` is per step.
    A method whose backward sits in its own loop runs many steps (a whole epoch): the loop that
    calls it is epoch-level and stays silent; so does a loop calling a method that never trains,
    or one that computes gradients and steps no optimizer."""
    assert _found(STEP_METHOD_LOOP) == [("TPL102", 24, 21, SYNC.format(what="`.item()`"))]
    own_loop = STEP_METHOD_LOOP.replace(
        "        loss = self.model(x).mean()\n        loss.backward()\n        self.opt.step()\n",
        "        for _ in range(3):\n            loss = self.model(x).mean()\n"
        "            loss.backward()\n            self.opt.step()\n")
    assert _found(own_loop) == []
    no_backward = STEP_METHOD_LOOP.replace("        loss.backward()\n", "")
    assert _found(no_backward) == []
    # gradients alone (a probe, a plot) update nothing: no step (R18)
    gradients_only = STEP_METHOD_LOOP.replace("        self.opt.step()\n", "")
    assert _found(gradients_only) == []


def test_a_function_that_steps_through_another_function_makes_its_callers_loop_a_step_loop():
    """The step may sit one call further: ``train_step`` calls ``update(loss)``, which runs the
    backward; a loop calling ``train_step`` runs steps (the module's own call graph)."""
    source = """\
import torch


def update(loss, opt):
    loss.backward()
    opt.step()


def train_step(model, x, opt):
    loss = model(x).mean()
    update(loss, opt)
    return loss


def run(model, batches, opt, n):
    seen = []
    for i in range(n):
        loss = train_step(model, batches[i], opt)
        seen.append(loss.item())
    return seen
"""
    assert _found(source) == [("TPL102", 19, 20, SYNC.format(what="`.item()`"))]
    assert _found(source.replace("    loss.backward()\n", "    pass\n")) == []


FIRST_BATCH = """\
import torch
import pytorch_lightning as pl


class MVSSystem(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = torch.nn.Linear(4, 4)

    def training_step(self, batch, batch_nb):
        imgs = batch["imgs"]
        loss = self.model(imgs).mean()
        if batch_nb == 0:
            img_ = imgs[0, 0].cpu()
            self.logger.experiment.add_images("train/image", img_, self.global_step)
        return loss
"""


def test_lightnings_old_batch_nb_is_a_batch_counter():
    """MVSNet_pl's ``if batch_nb == 0:`` (Lightning's old name of ``batch_idx``) picks the first
    batch of each epoch: an interval, so the ``.cpu()`` of a logged image under it is silent. A
    test of another argument (a flag) runs every step."""
    assert _found(FIRST_BATCH) == []
    flag = FIRST_BATCH.replace("batch, batch_nb)", "batch, batch_nb, show=True)").replace(
        "if batch_nb == 0:", "if show:")
    assert _found(flag) == [("TPL102", 14, 19, SYNC.format(what="`.cpu()`"))]


GP_NAME = """\
import torch


class Trainer:
    def train(self, D, loader, opt, accumulate):
        apply_gradient_penalty = self.steps % 4 == 0
        opt.zero_grad()
        for i in range(accumulate):
            image_batch = next(loader).cuda()
            disc_loss = D(image_batch).mean()
            if apply_gradient_penalty:
                gp = disc_loss * 2
                if not torch.isnan(gp):
                    disc_loss = disc_loss + gp
                    self.last_gp_loss = gp.clone().detach().item()
            disc_loss.backward()
        opt.step()
        self.steps += 1
"""


def test_an_interval_test_held_in_a_name_assigned_before_the_loop():
    """lightweight-gan's ``apply_gradient_penalty = self.steps % 4 == 0`` is assigned in
    ``Trainer.train`` before its accumulation loop; the gradient penalty's syncs under
    ``if apply_gradient_penalty:`` run every fourth step. A name holding a setting runs every
    step; so does a name the function also assigns something that is no interval test."""
    assert _found(GP_NAME) == []
    setting = GP_NAME.replace("self.steps % 4 == 0", "self.use_gp")
    flagged = [("TPL102", 13, 19, SYNC.format(what="testing a tensor's truth")),
               ("TPL102", 15, 40, SYNC.format(what="`.item()`"))]
    assert _found(setting) == flagged
    reassigned = GP_NAME.replace("        opt.zero_grad()\n",
                                 "        if self.always_gp:\n            apply_gradient_penalty = True\n"
                                 "        opt.zero_grad()\n")
    assert [f[:2] for f in _found(reassigned)] == [("TPL102", 15), ("TPL102", 17)]


EPOCH_HOOK = """\
import torch
import pytorch_lightning as pl


class Task(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
        self.loss = torch.nn.MSELoss()

    def training_step(self, batch, batch_idx):
        return self.loss(self.net(batch["x"]), batch["y"])

    def validation_epoch_end(self, outputs):
        for dataset_idx, batch_outputs in enumerate(outputs):
            print("x_val_loss: {}".format(batch_outputs[0]["val_loss"].item()))
            preds = torch.cat([x["pred"] for x in batch_outputs])
            val_loss = self.loss(preds, torch.cat([x["actual"] for x in batch_outputs]))
            self.log("val", val_loss.item())
"""


def test_a_loop_of_a_per_epoch_hook_over_collected_outputs_is_no_step_loop():
    """molformer's ``validation_epoch_end`` (Lightning 1.x) goes over the outputs its validation
    steps collected, one dataset at a time, and calls the loss module on them: once per epoch,
    not a step loop, although it calls a module. The same loop in a function that is no hook,
    a hook's loop over a loader, and a hook's loop that trains are step loops."""
    assert _found(EPOCH_HOOK) == []
    helper = EPOCH_HOOK.replace("validation_epoch_end", "validation_helper")
    both = [("TPL102", 16, 42, SYNC.format(what="`.item()`")), ("TPL102", 19, 28, SYNC.format(what="`.item()`"))]
    assert _found(helper) == both
    over_loader = EPOCH_HOOK.replace("enumerate(outputs)", "enumerate(self.extra_loader)")
    assert _found(over_loader) == both[1:]  # (a batch from a loader is on the host)
    trains = EPOCH_HOOK.replace('            self.log("val", val_loss.item())\n',
                                '            self.log("val", val_loss.item())\n            val_loss.backward()\n')
    assert _found(trains) == both


LOSS_DICT = """\
import torch


def train(model, loader, opt):
    for x in loader:
        x = x.cuda()
        out = model(x)
        loss1 = out.mean()
        loss2 = out.std()
        loss_dict = {"a": loss1, "b": loss2}
        (loss1 + loss2).backward()
        opt.step()
        logs = {k: float(v) for k, v in loss_dict.items()}
        for v in loss_dict.values():
            print(float(v))
"""


def test_float_of_the_values_of_a_dict_of_device_losses():
    """AudioLDM's ``{k: float(v) for k, v in loss_dict.items()}``: each value of a dict displayed
    from device losses is a tensor there, and ``float()`` of it syncs. A dict that also holds a
    Python number is not known to hold tensors: ``float()`` of its values stays silent
    (``.item()`` of them would still be reported). An empty dict filled later under literal keys
    with the same device losses holds them (R191, R196): reported as the display is."""
    assert _found(LOSS_DICT) == [("TPL102", 13, 19, SYNC.format(what="`float()` of a tensor")),
                                 ("TPL102", 15, 18, SYNC.format(what="`float()` of a tensor"))]
    mixed = LOSS_DICT.replace('{"a": loss1, "b": loss2}', '{"a": loss1, "lr": 0.1}')
    assert _found(mixed) == []
    filled = LOSS_DICT.replace('{"a": loss1, "b": loss2}', '{}\n        loss_dict["a"] = loss1')
    assert _found(filled) == [("TPL102", 14, 19, SYNC.format(what="`float()` of a tensor")),
                              ("TPL102", 16, 18, SYNC.format(what="`float()` of a tensor"))]
    filled_mixed = LOSS_DICT.replace('{"a": loss1, "b": loss2}', '{}\n        loss_dict["a"] = loss1\n'
                                     '        loss_dict["lr"] = 0.1')
    assert _found(filled_mixed) == []
    keywords = LOSS_DICT.replace('{"a": loss1, "b": loss2}', 'dict(a=loss1, b=loss2)')
    assert [f[:2] for f in _found(keywords)] == [("TPL102", 13), ("TPL102", 15)]


IGNITE_OUTPUT = """\
import torch
from ignite.engine import Engine


def create_trainer(model, optimizer, criterion):
    def train_update_function(engine, batch):
        x, y = batch[0].cuda(), batch[1].cuda()
        loss_dict = criterion(model(x), y)
        output = {k: v.item() for k, v in loss_dict.items()}
        loss = loss_dict["total"]
        loss.backward()
        optimizer.step()
        return output

    return Engine(train_update_function)
"""


def test_a_comprehension_of_items_returned_to_ignite_is_host_needed():
    """satellite-segmentation-e2e's Ignite process function returns ``{k: v.item() for k, v in
    loss_dict.items()}``: the container the step hands its framework for logging (rules.md "A step
    body"), as the dict display beside it is. Kept and not returned, the same comprehension is a
    sync every step; so is a sync in what the comprehension iterates."""
    assert _found(IGNITE_OUTPUT) == []
    kept = IGNITE_OUTPUT.replace("        return output\n", "        engine.state.kept = output\n")
    assert _found(kept) == [("TPL102", 9, 21, SYNC.format(what="`.item()`"))]
    iterated = IGNITE_OUTPUT.replace("for k, v in loss_dict.items()}", "for k, v in zip(loss_dict, y.cpu())}")
    assert [f[:2] for f in _found(iterated)] == [("TPL102", 9)]


EARLY_STOP = """\
import torch
import torch.nn.functional as F


def train_step(model, optimizer, x, y):
    model.train()
    optimizer.zero_grad()
    loss = F.nll_loss(model(x), y)
    loss.backward()
    optimizer.step()


def validate_step(model, x, y):
    model.eval()
    with torch.no_grad():
        loss_val = F.nll_loss(model(x), y)
        return loss_val.item()


def train(model, optimizer, x, y, epochs, patience):
    best, bad_counter = 1e9, 0
    for epoch in range(epochs):
        train_step(model, optimizer, x, y)
        loss_val = validate_step(model, x, y)
        if loss_val < best:
            best, bad_counter = loss_val, 0
        else:
            bad_counter += 1
        if bad_counter == patience:
            break
"""


def test_a_value_the_calling_loop_stops_on_is_host_needed():
    """GCNII's full-batch epoch loop calls ``train_step`` (one step: backward and the optimizer)
    and ``validate_step``, whose returned ``loss_val.item()`` decides the early stop: the host must
    have it every time round (rules.md "Where a value lives"; holdout14's labels). Only printed, or
    in a loop that never breaks, the same value is a sync every step."""
    assert _found(EARLY_STOP) == []
    printed = EARLY_STOP.replace("        if loss_val < best:", "        print(loss_val)\n        if epoch < best:")
    assert _found(printed) == [("TPL102", 17, 15, SYNC.format(what="`.item()`") + " (called every step from train.py:24)")]
    endless = EARLY_STOP.replace("            break\n", "            bad_counter = 0\n")
    assert [f[:2] for f in _found(endless)] == [("TPL102", 17)]
