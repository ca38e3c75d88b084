"""Forms read in the twenty-third session (2026-11-28, reading R57): each with its flagged twin,
whole diagnostics."""

from _diagnostics import EMPTY_CACHE, ITEM_SYNC, SYNC_TEMPLATE as SYNC, all_diagnostics, found as _found

# -- R57: a branch whose ``and``/``or`` test every per-step call decides through a parameter ------

CONJUNCTION_BODY = """\
import torch


def log_step(loss, x, debug=False):
    total = loss.detach()
    if {test}:
        print("loss", total.item())
    return total


model = Net().cuda()
for x in loader:
    loss = model(x.cuda()).mean()
    log_step(loss, x{more})
    loss.backward()
    optimizer.step()
"""
CHAIN = " (called every step from train.py:14)"
REPORTED = [("TPL102", 7, 22, ITEM_SYNC + CHAIN)]


def test_an_and_whose_flag_every_per_step_call_leaves_false_closes_its_body():
    """``if debug and step % 100 == 0:`` in a step function no per-step call hands ``debug``: the
    body runs in no step, whatever the other operand says (R40 read through ``and``; R57)."""
    for test in ("debug and x.shape[0] > 1", "x.shape[0] > 1 and debug", "debug and not x.is_cuda",
                 "not (x.shape[0] > 1 or not debug)"):
        source = CONJUNCTION_BODY.replace("{test}", test)
        assert _found(source.replace("{more}", ""), codes=("TPL102",)) == [], test
        assert _found(source.replace("{more}", ", debug=False"), codes=("TPL102",)) == [], test


def test_an_and_a_per_step_call_may_take_is_still_read_as_every_step():
    """The twins: a call that hands ``debug=True`` (or a value the index cannot see) takes the
    branch in some step; an ``or`` with a closed flag still runs whenever its other side holds."""
    source = CONJUNCTION_BODY.replace("{test}", "debug and x.shape[0] > 1")
    assert _found(source.replace("{more}", ", debug=True"), codes=("TPL102",)) == REPORTED
    assert _found(source.replace("{more}", ", debug=verbose"), codes=("TPL102",)) == REPORTED
    source = CONJUNCTION_BODY.replace("{test}", "debug or x.shape[0] > 1")
    assert _found(source.replace("{more}", ""), codes=("TPL102",)) == REPORTED


def test_an_or_of_flags_every_call_leaves_false_closes_its_body():
    source = CONJUNCTION_BODY.replace("def log_step(loss, x, debug=False):",
                                      "def log_step(loss, x, debug=False, trace=None):")
    source = source.replace("{test}", "debug or trace is not None")
    assert _found(source.replace("{more}", ""), codes=("TPL102",)) == []
    assert _found(source.replace("{more}", ", trace=tracer"), codes=("TPL102",)) == REPORTED


# -- %-formatting of a tuple that holds a device tensor, printed ---------------------------------

PERCENT_TUPLE = """\
import time
import torch

model = Net().cuda()
for step, (x, y) in enumerate(loader):
    x, y = x.cuda(), y.cuda()
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("[%5d] time: %4.4f loss: %.8f" % ({items}))
"""
PRINTED = [("TPL102", 11, 4, SYNC.format(what="printing a tensor"))]


def test_printing_a_percent_formatted_tuple_that_holds_a_device_tensor_is_a_sync():
    """UGATIT's ``print("[%5d/%5d] time: %4.4f d_loss: %.8f, g_loss: %.8f" % (step, ..., D_loss,
    G_loss))`` every iteration (holdout114): ``%`` formats each item of the tuple, and a tensor's
    ``%.8f`` reads its value, as ``print("%.8f" % loss)`` does."""
    assert _found(PERCENT_TUPLE.replace("{items}", "step, time.time(), loss"), codes=("TPL102",)) == PRINTED
    assert _found(PERCENT_TUPLE.replace("{items}", "step, time.time(), loss.detach()"),
                  codes=("TPL102",)) == PRINTED


def test_printing_a_percent_formatted_tuple_of_host_values_is_silent():
    """The twins: numbers the host already holds (``loss.item()`` is the one sync, reported on its
    own), and a model, whose text lists its layers and reads no tensor."""
    assert _found(PERCENT_TUPLE.replace("{items}", "step, time.time(), lr"), codes=("TPL102",)) == []
    assert _found(PERCENT_TUPLE.replace("{items}", "step, time.time(), model"), codes=("TPL102",)) == []
    assert _found(PERCENT_TUPLE.replace("{items}", "step, time.time(), loss.item()"),
                  codes=("TPL102",)) == [("TPL102", 11, 63, ITEM_SYNC)]


# -- R59: a Lightning module built on a LightningModule subclass of an installed package -----------

EXTERNAL_BASE_MODULE = """\
import torch
{lightning}
from manifm.model_pl import ManifoldFMLitModule


class MaterialsLitModule({base}):
    def training_step(self, {params}):
        loss_dict = self.loss_fn(batch)
        self.log("train/loss", loss_dict["loss"].item())
        return loss_dict["loss"]
"""
STEP_ITEM = [("TPL102", 9, 31, ITEM_SYNC)]


def _external(lightning="import pytorch_lightning as pl", base="ManifoldFMLitModule", params="batch, batch_idx"):
    return EXTERNAL_BASE_MODULE.replace("{lightning}", lightning).replace("{base}", base).replace("{params}", params)


def test_a_training_step_on_a_base_the_project_cannot_see_in_a_lightning_module_is_a_step_body():
    """flowmm's ``MaterialsRFMLitModule(ManifoldFMLitModule)`` (holdout111): the base is a
    LightningModule of an installed package (``manifm``), which the project cannot see into; the
    module imports Lightning and the class defines Lightning's ``training_step(self, batch,
    batch_idx)``: Lightning runs it every step (R59)."""
    assert _found(_external()) == STEP_ITEM
    assert _found(_external(lightning="from lightning.pytorch import LightningModule")) == STEP_ITEM


def test_without_lightning_or_its_signature_or_with_a_torch_base_the_method_is_no_step_body():
    """The twins: a module that does not import Lightning, a ``training_step`` that is not handed a
    batch and its index, and a class whose base is torch's own (``nn.Module``), not a framework's."""
    assert _found(_external(lightning="")) == []
    assert _found(_external(params="batch")) == []
    assert _found(_external(base="torch.nn.Module")) == []


# -- R60: a call under no_grad does not make its loop "may train" -------------------------------

VALIDATION = """\
import torch


def validate(val_loader, training_model, meter):
    training_model.eval()
    for batch in val_loader:
        batch = {k: v.cuda() for k, v in batch.items()}
{call}
        inter = (results["pred"] > 0).sum().cpu().numpy()
        meter.update(inter)
    return meter.avg


for epoch in range(10):
    for batch in train_loader:
        loss = model(batch.cuda()).mean()
        loss.backward()
        optimizer.step()
    validate(val_loader, model, meter)
"""
UNDER_NO_GRAD = """\
        with torch.no_grad():
            results = training_model(**batch)"""
GRAD_ON = """\
        results = training_model(**batch)"""


def test_a_model_named_for_training_called_under_no_grad_leaves_the_validation_loop_trainless():
    """groundingLMM's ``validate_model_performance`` (holdout112): its loop calls
    ``training_model(**data_batch)`` inside ``with torch.no_grad():``; a call with autograd off runs
    no backward whatever its name, so the loop trains nothing and its copies to numpy meters are
    evaluation results (R8, R60)."""
    assert _found(VALIDATION.replace("{call}", UNDER_NO_GRAD)) == []


def test_the_same_call_with_autograd_on_may_train():
    """The twin: with autograd on, a callee named for training may run a step in code the module
    does not show, and R8 keeps the copy reported."""
    assert _found(VALIDATION.replace("{call}", GRAD_ON)) == [
        ("TPL102", 9, 16, SYNC.format(what="`.cpu()`"))]


# -- R61: a handler that restarts an exhausted iterator makes no retry loop ----------------------

RESTARTED_ITERATOR = """\
import torch

model = Net().cuda()
it = iter(loader)
for step in range(num_steps):
    try:
        batch = next(it)
    except {caught}:
        {handler}
    loss = model(batch.cuda()).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    torch.cuda.empty_cache()
"""
RESTART = "it = iter(loader); batch = next(it)"


def test_restarting_an_exhausted_iterator_is_no_retry():
    """StableAnimator's ``try: batch = next(iter2) except StopIteration: iter2 =
    iter(train_dataloader_2); batch = next(iter2)`` (holdout115): the handler starts the loader
    again and the step goes on with the next batch; the loop is no retry loop, whose
    ``empty_cache()`` would make room for another attempt (R61)."""
    source = RESTARTED_ITERATOR.replace("{caught}", "StopIteration").replace("{handler}", RESTART)
    assert _found(source, codes=("TPL103",)) == [("TPL103", 14, 4, EMPTY_CACHE)]


def test_a_handler_of_an_out_of_memory_error_is_still_a_retry():
    """The twin: a handler of ``RuntimeError`` (out of memory) goes round again; freeing the cache
    there makes room for the next attempt."""
    source = RESTARTED_ITERATOR.replace("{caught}", "RuntimeError").replace("{handler}", "continue")
    assert _found(source, codes=("TPL103",)) == []


# -- R62: a transpose property keeps a factory's tensor fresh -------------------------------------

TRANSPOSED = """
import torch


def edges(node_num, topk, device, index):
    return {value}.unsqueeze(1).repeat(1, topk).flatten().to(device)
"""
FRESH_MESSAGE = ("tensor is created on the CPU and then copied to the device; pass `device=` to "
                 "`torch.arange(...)` to create it there (runtime_guard: device-native creation)")


def test_a_factory_moved_through_its_transpose_property_is_created_on_the_host():
    """GDN's ``torch.arange(0, node_num).T.unsqueeze(1).repeat(1, topk_num).flatten().to(device)``
    (holdout118): ``.T`` is a view of the fresh host tensor, as ``.t()`` is (R62). The fix is not
    offered through the property: the message says what to do."""
    assert all_diagnostics(TRANSPOSED.replace("{value}", "torch.arange(0, node_num).T"), "TPL101") == [
        ("TPL101", 6, 11, FRESH_MESSAGE, None)]
    assert all_diagnostics(TRANSPOSED.replace("{value}", "torch.arange(0, node_num).mT"), "TPL101") == [
        ("TPL101", 6, 11, FRESH_MESSAGE, None)]


def test_the_transpose_of_a_tensor_handed_in_is_no_factory():
    assert all_diagnostics(TRANSPOSED.replace("{value}", "index.T"), "TPL101") == []
