"""Forms of round twenty-three (holdout131-136) the engine got wrong (2026-11-29, the twenty-seventh
session): each with its flagged and silent twins, whole diagnostics."""


from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found, rule_diagnostics

ITEM = SYNC.format(what="`.item()`")

PANOPTIC = """\
import torch


@torch.no_grad()
def evaluate(model, postprocessors, data_loader, panoptic_evaluator, device):
    model.eval()
    for samples, targets in data_loader:
        samples = samples.to(device)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        outputs = model(samples)
        res_pano = postprocessors["panoptic"](outputs)
        for i, target in enumerate(targets):
            image_id = target["image_id"].item()
            file_name = f"{image_id:012d}.png"
            res_pano[i]["image_id"] = image_id
            res_pano[i]["file_name"] = file_name
        panoptic_evaluator.update(res_pano)
"""


def test_an_id_stored_into_a_prediction_records_id_field_is_kept_not_a_metric():
    """DETR's panoptic evaluation (holdout131/135: seven copies) keeps each image's id in its
    prediction record by item assignment, for the evaluator's JSON (R92, R44.3's kept field)."""
    assert _found(PANOPTIC) == []
    direct = PANOPTIC.replace('image_id = target["image_id"].item()', 'res_pano[i]["image_id"] = target["image_id"].item()')
    assert _found(direct) == []
    rounded = PANOPTIC.replace('target["image_id"].item()', 'int(target["image_id"].item())')
    assert _found(rounded) == []


def test_a_field_that_measures_or_a_loop_that_trains_keeps_the_finding():
    """The field names no id (``res["score"]``), or the same code runs
    in a loop that trains: the number is a per-step wait as before."""
    score = PANOPTIC.replace('res_pano[i]["image_id"] = image_id', 'res_pano[i]["score"] = image_id').replace(
        'file_name = f"{image_id:012d}.png"', "file_name = 'x.png'")
    assert _found(score) == [("TPL102", 13, 23, ITEM)]
    training = PANOPTIC.replace("@torch.no_grad()\n", "").replace(
        "        panoptic_evaluator.update(res_pano)",
        "        outputs.sum().backward()\n        panoptic_evaluator.update(res_pano)").replace(
        'file_name = f"{image_id:012d}.png"', "file_name = 'x.png'")
    assert _found(training) == [("TPL102", 12, 23, ITEM)]


BRANCH_BOUND = """\
import torch
import torch.nn.functional as F


class Trainer:
    def compute_loss(self, model, inputs):
        rewards, logps, ref_logps = model(inputs)
        pi_logratios = logps[0] - logps[1]
        if self.reference_free:
            ref_logratios = torch.tensor(0.0)
        else:
            ref_logratios = ref_logps[0] - ref_logps[1]
        ref_logratios = ref_logratios.to(rewards[0].device)
        return -F.logsigmoid(pi_logratios - ref_logratios).mean()
"""
TENSOR_MESSAGE = ("tensor is created on the CPU and then copied to the device; pass `device=` to "
                  "`torch.tensor(...)` to create it there (runtime_guard: device-native creation)")


def test_a_factory_bound_in_one_branch_and_moved_after_the_if_is_reported():
    """GRM's reference-free branch (holdout136): ``ref = torch.tensor(0.0)`` in the ``if``, another
    value in the ``else``, ``ref = ref.to(device)`` after both: on the first path the host tensor is
    made and copied every step (R93). No fix: the ``else`` path needs its move."""
    assert rule_diagnostics(BRANCH_BOUND, "TPL101") == [(10, 28, TENSOR_MESSAGE, None, None)]


def test_a_move_on_the_other_path_or_a_use_first_keeps_it_silent():
    """The move sits in the ``else`` (another path than the factory's), or the host tensor is used
    before the move: nothing to report, as before."""
    in_else = BRANCH_BOUND.replace("""            ref_logratios = ref_logps[0] - ref_logps[1]
        ref_logratios = ref_logratios.to(rewards[0].device)""", """            ref_logratios = ref_logps[0] - ref_logps[1]
            ref_logratios = ref_logratios.to(rewards[0].device)""")
    assert rule_diagnostics(in_else, "TPL101") == []
    used = BRANCH_BOUND.replace("            ref_logratios = torch.tensor(0.0)\n",
                                "            ref_logratios = torch.tensor(0.0)\n            ref_logratios += 1\n")
    assert rule_diagnostics(used, "TPL101") == []


def test_a_function_decorated_grad_off_trains_nothing_whatever_its_loop_calls():
    """TransTrack's ``evaluate`` (holdout131), under ``@torch.no_grad()``, steps its tracker every
    batch (``tracker.step(...)``) beside DETR's panoptic records: no backward runs in the function,
    so its loop trains nothing and the kept id is R92's (R94). ``with torch.enable_grad():`` inside
    (test-time adaptation) turns the reading off."""
    stepping = PANOPTIC.replace("        res_pano = postprocessors",
                                "        tracker.step(outputs)\n        res_pano = postprocessors")
    assert _found(stepping) == []
    adapting = stepping.replace("        tracker.step(outputs)\n",
                                "        with torch.enable_grad():\n            tracker.step(outputs)\n")
    assert _found(adapting) == [("TPL102", 15, 23, ITEM)]


DICT_KEYS = """\
import torch


def train(model, loader, opt):
    for x, ids in loader:
        x, ids = x.cuda(), ids.cuda()
        loss = model(x).mean()
        index_of = {gt_id.item(): k for k, gt_id in enumerate(ids)}
        loss.backward()
        opt.step()
"""


def test_a_dict_built_with_item_keys_in_a_training_step_needs_them_on_the_host():
    """MeMOTR's criterion (holdout135) maps each ground-truth id to its index every step with
    ``{gt_id.item(): gt_idx for ...}``: a Python dict's keys must be Python numbers, as for a store
    ``d[i.item()] = v`` (R31, R95). The same number as a value (``{k: gt_id.item()}``) stays flagged."""
    assert _found(DICT_KEYS) == []
    as_value = DICT_KEYS.replace("{gt_id.item(): k for", "{k: gt_id.item() for")
    assert _found(as_value) == [("TPL102", 8, 23, ITEM)]


HANDED_ON = """\
import torch


class Task:
    def get_entity_type(self, index):
        return self.types[index]

    def iter_callback(self, value, acc):
        self.history.append((value, acc))

    @torch.no_grad()
    def validate(self, model, loader):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            z = model(x)
            loss = torch.nn.functional.cross_entropy(z, y)
            pred = z.argmax(1)
            self.iter_callback(loss.item(), 0.0)
            self.get_entity_type(pred[0].item())
"""


def test_a_loss_handed_to_a_project_method_is_a_metric_not_an_id():
    """segcontrast's ``validation_step`` (holdout133) hands ``loss.item()`` to its iteration
    callback every validation batch: a number named as a loss or an accuracy is a metric, not an id
    the host needs (R38's ids stay: ``pred[0].item()`` handed to a lookup; R96)."""
    assert _found(HANDED_ON) == [("TPL102", 18, 31, ITEM)]
    bound = HANDED_ON.replace("            self.iter_callback(loss.item(), 0.0)\n",
                              "            val_loss = loss.item()\n            self.iter_callback(val_loss, 0.0)\n")
    assert _found(bound) == [("TPL102", 18, 23, ITEM)]


INTERVAL_OR_FLAG = """\
import torch


def log_iteration(writer, loss, step, is_train):
    if step % 50 == 0 or not is_train:
        writer.add_scalar("loss", loss.item(), step)


def train(model, loader, val_loader, opt, writer):
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
        log_iteration(writer, loss, step, True)
    with torch.no_grad():
        for step, (x, y) in enumerate(val_loader):
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            log_iteration(writer, loss, step, False)
"""


def test_an_interval_ored_with_a_flag_a_call_sets_runs_every_step_for_that_call():
    """segcontrast's iteration callback (holdout133) logs under ``if step % N == 0 or not
    is_train:``; ``validation_step`` hands ``is_train=False``, so for those calls the branch runs
    every validation step (R97). Every call handing ``True`` leaves it an interval."""
    assert _found(INTERVAL_OR_FLAG) == [
        ("TPL102", 6, 34, ITEM + " (called every step from train.py:14)")]
    training_only = INTERVAL_OR_FLAG.replace("log_iteration(writer, loss, step, False)",
                                             "log_iteration(writer, loss, step, True)")
    assert _found(training_only) == []


SAVED_COPY = """\
import torch


def train(model, loader, opt, visualize):
    for step, (x, y) in enumerate(loader):
        out = model(x.cuda())
        if visualize:
            torch.save(out[0].cpu(), f"./outputs/ref_pts_{step}.tensor")
        out.mean().backward()
        opt.step()
"""
CPU = SYNC.format(what="`.cpu()`")


def test_a_copy_handed_to_torch_save_is_host_needed():
    """MeMOTR's visualisation dumps (holdout135): ``torch.save(ref.cpu(), path)`` under a setting,
    every step when on. torch pickles what it is handed from the host (a device tensor is copied the
    same way), so the copy adds no wait (R16, R99). The same copy kept in a list stays flagged."""
    assert _found(SAVED_COPY) == []
    kept = SAVED_COPY.replace('torch.save(out[0].cpu(), f"./outputs/ref_pts_{step}.tensor")',
                              "visualize.append(out[0].cpu())")
    assert _found(kept) == [("TPL102", 8, 29, CPU)]


OPTIMIZER_STATE = """\
import torch


def adamw_logger(optimizer):
    state = optimizer.state_dict().get("state")
    means = []
    for key in state:
        s = state.get(key)
        means.append(float(s.get("exp_avg").abs().mean()))
        means.append(float(s["exp_avg_sq"].abs().mean()))
    return means


def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x.cuda()).mean()
        loss.backward()
        optimizer.step()
        stats = adamw_logger(optimizer)
"""
FLOAT = SYNC.format(what="`float()` of a tensor")


def test_an_optimizers_state_is_a_tensor_where_the_parameters_are():
    """jepa's ``adamw_logger`` (holdout127), called every step, reads ``float(s.get('exp_avg')
    .abs().mean())`` per parameter: Adam's moments live with the parameters (R100). Another key of
    the same dict (``s.get("step")``) says nothing."""
    chain = " (called every step from train.py:19)"
    assert _found(OPTIMIZER_STATE) == [("TPL102", 9, 21, FLOAT + chain), ("TPL102", 10, 21, FLOAT + chain)]
    other = OPTIMIZER_STATE.replace('s.get("exp_avg")', 's.get("step")').replace('s["exp_avg_sq"]', 's["step"]')
    assert _found(other) == []


DROP_MASK = """\
import torch


class Mage(torch.nn.Module):
    def forward(self, rep, bsz):
        drop_rep_mask = torch.rand(bsz) < self.rep_drop_prob
        drop_rep_mask = drop_rep_mask.unsqueeze(-1).cuda().float()
        return drop_rep_mask * self.fake_latent + (1 - drop_rep_mask) * rep
"""
RAND_MESSAGE = TENSOR_MESSAGE.replace("torch.tensor(...)", "torch.rand(...)")


def test_a_name_rebound_to_its_move_under_a_dtype_cast_is_the_same_pitfall():
    """rcg's MAGE drop mask (holdout128): a CPU ``torch.rand`` compared with a number, rebound to
    ``mask.unsqueeze(-1).cuda().float()`` on the next line: a cast after the move keeps the name
    bound to the moved tensor (R79, R101). A reduction after the move (``.sum()``) is another
    value: nothing to report."""
    assert rule_diagnostics(DROP_MASK, "TPL101") == [(6, 24, RAND_MESSAGE, None, None)]
    reduced = DROP_MASK.replace(".cuda().float()", ".cuda().sum()")
    assert rule_diagnostics(reduced, "TPL101") == []


HANDED_ON_TARGETS = """\
import torch


class ComputeLoss:
    def preprocess(self, targets, batch_size):
        i = targets[:, 0]
        out = []
        for j in range(batch_size):
            matches = i == j
            n = matches.sum()
            if n:
                out.append(targets[matches, 1:])
        return out

    def __call__(self, p, targets):
        targets = self.preprocess(targets, p.shape[0])
        return p.sum()


def train(model, loader, opt, device):
    compute_loss = ComputeLoss()
    for imgs, targets in loader:
        pred = model(imgs.to(device))
        loss = compute_loss(pred, targets.to(device))
        loss.backward()
        opt.step()
"""
TRUTH = SYNC.format(what="testing a tensor's truth")


def test_a_parameter_every_per_step_call_hands_a_moved_tensor_is_on_the_device():
    """yolov9's ``ComputeLoss`` (holdout135): train.py calls ``compute_loss(pred, targets.to(device))``
    every step, ``__call__`` hands its ``targets`` on to ``self.preprocess``, which tests ``if n:`` of
    a sum over them. A move to a device named so (``.to(device)``, as ``.cuda()``) is a device
    tensor, also through a caller's own parameter handed on as it is (R102). Moved to ``"cpu"``, or
    not moved, the targets stay where the loader made them."""
    chain = " (called every step from train.py:24 via __call__)"
    assert _found(HANDED_ON_TARGETS) == [("TPL102", 11, 15, TRUTH + chain)]
    assert _found(HANDED_ON_TARGETS.replace("targets.to(device))", "targets.to('cpu'))")) == []
    assert _found(HANDED_ON_TARGETS.replace("targets.to(device))", "targets)")) == []


REBOUND_FLAG = """\
import torch


def log_iteration(writer, loss, step, is_train):
    {rebind}if step % 50 == 0 or not is_train:
        writer.add_scalar("loss", loss.item(), step)


def evaluate(model, batch, reduction):
    {rebind_reduction}if reduction == "none":
        return model(batch).flatten().tolist()
    return model(batch).mean()


def train(model, loader, opt, writer):
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
        log_iteration(writer, loss, step, True)
        evaluate(model, x.cuda(), "mean")
"""


def test_a_parameter_bound_again_before_its_test_closes_and_forces_nothing():
    """R40, R83 and R97 read a test on a parameter by what each per-step call hands it; a function
    that binds the parameter again (``reduction = str(reduction)``, ``is_train = not is_train``)
    tests another value (R103: a soundness condition). Handed ``"mean"``, ``if reduction == "none":``
    is a branch no call takes; bound again, it may run every step. Handed ``is_train=False``, the
    ``or`` runs every step (R97); bound again, nothing is known and the interval stands. A
    conversion to a number (``float(reduction)``) keeps the value."""
    def variant(rebind="", rebind_reduction="", is_train="True"):
        return (REBOUND_FLAG.replace("{rebind}", rebind).replace("{rebind_reduction}", rebind_reduction)
                .replace("log_iteration(writer, loss, step, True)", f"log_iteration(writer, loss, step, {is_train})"))
    tolist = SYNC.format(what="`.tolist()`")
    assert _found(variant()) == []
    assert _found(variant(rebind_reduction="reduction = str(reduction)\n    ")) == [
        ("TPL102", 12, 15, tolist + " (called every step from train.py:22)")]
    assert _found(variant(rebind_reduction="reduction = float(reduction)\n    ")) == []
    assert _found(variant(is_train="False")) == [("TPL102", 6, 34, ITEM + " (called every step from train.py:20)")]
    assert _found(variant(rebind="is_train = not is_train\n    ", is_train="False")) == []


REBOUND_CALLEE = """\
import torch


def to_list(t):
    return t.tolist()


def evaluate(model, batch, reduction):
    {rebind}if reduction == "none":
        return to_list(model(batch))
    return model(batch).mean()


def train(model, loader, opt):
    for x, y in loader:
        loss = evaluate(model, x.cuda(), "mean")
        loss.backward()
        opt.step()
"""


def test_a_callee_under_a_branch_on_a_parameter_bound_again_is_reached():
    """The index's walk (R40/R83's guards, step_bodies) reads the same condition: a helper called
    under ``if reduction == "none":`` is no step body while every per-step call hands ``"mean"``,
    and is one when the function binds ``reduction`` again first (R103)."""
    assert _found(REBOUND_CALLEE.replace("{rebind}", "")) == []
    rebound = REBOUND_CALLEE.replace("{rebind}", "reduction = str(reduction)\n    ")
    assert _found(rebound) == [("TPL102", 5, 11, SYNC.format(what="`.tolist()`")
                                + " (called every step from train.py:17 via evaluate)")]


REBOUND_HANDED = """\
import torch


def dump(t):
    print(t.sum().item())


def check(t, mode):
    if mode == "debug":
        dump(t)
    return t


def forward(model, x, mode):
    {rebind}return check(model(x), mode)


def train(model, loader, opt):
    for x, y in loader:
        out = forward(model, x.cuda(), "fast")
        out.mean().backward()
        opt.step()
"""


def test_a_parameter_bound_again_is_handed_on_as_nothing_known():
    """A parameter handed on as it is carries the caller's literal into the callee's branches
    (flow-forecast's ``multi_crit(..., valid)``); bound again first, it carries nothing (R103)."""
    assert _found(REBOUND_HANDED.replace("{rebind}", "")) == []
    rebound = REBOUND_HANDED.replace("{rebind}", "mode = model.mode\n    ")
    assert _found(rebound) == [("TPL102", 5, 10, ITEM + " (called every step from train.py:21 via forward → check)")]


MODULE_LEVEL_EPISODES = """\
import torch

for archive in range(3):
    for x, _ in data_loader:
        labels = torch.arange(0, num_classes)
        loss = criterion(net(x.cuda()), labels.cuda())
        loss.backward()
        optimizer.step()
"""
ARANGE_MESSAGE = TENSOR_MESSAGE.replace("torch.tensor(...)", "torch.arange(...)")


def test_a_module_level_factory_moved_in_its_one_use_is_reported():
    """pytorch_xvectors's episode loop at module level (holdout137): ``labels = torch.arange(...)``
    then ``criterion(out, labels.cuda())``, the name's one use in the whole file (R104; a function
    counted its own body already). Read again anywhere in the file, the host tensor is in use."""
    assert rule_diagnostics(MODULE_LEVEL_EPISODES, "TPL101") == [(5, 17, ARANGE_MESSAGE, None, None)]
    assert rule_diagnostics(MODULE_LEVEL_EPISODES + "print(labels)\n", "TPL101") == []


PESQ_BATCH = """\
import torch
from joblib import Parallel, delayed
from pesq import pesq


def cal_pesq(clean, noisy, sr=16000):
    return pesq(sr, clean, noisy, "wb")


def batch_pesq(clean, noisy):
    return Parallel(n_jobs=15)(delayed(cal_pesq)(c, n) for c, n in zip(clean, noisy))


def train(generator, loader, opt):
    for clean, noisy in loader:
        clean, noisy = clean.cuda(), noisy.cuda()
        enhanced = generator(noisy)
        audio_r, audio_g = list(clean.cpu().numpy()), list(enhanced.detach().cpu().numpy())
        score = batch_pesq(audio_r, audio_g)
        enhanced.mean().backward()
        opt.step()
"""


def test_copies_handed_to_a_joblib_pool_of_a_speech_metric_are_host_needed():
    """MP-SENet (holdout137) scores every step's audio with PESQ in a joblib pool:
    ``Parallel(n_jobs=15)(delayed(cal_pesq)(c, n) for c, n in zip(clean, noisy))``. The copies it is
    handed are what the metric reads on the host (R3 across the call; joblib and pesq are host
    libraries, and a call of what their calls return runs there: R105). A helper that stacks them
    into a tensor instead needs no copy."""
    assert _found(PESQ_BATCH) == []
    stacked = PESQ_BATCH.replace("return Parallel(n_jobs=15)(delayed(cal_pesq)(c, n) for c, n in zip(clean, noisy))",
                                 "return torch.stack([torch.as_tensor(c) for c in clean])")
    cpu = SYNC.format(what="`.cpu()`")
    assert _found(stacked) == [("TPL102", 18, 32, cpu), ("TPL102", 18, 59, cpu)]


CHECKPOINT_TEST = """\
import torch


def train(model, loader, opt, checkpointing_steps, save):
    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda()).mean()
        loss.backward()
        opt.step()
        if step % checkpointing_steps == 0 and loss < 4.0:
            save(model)
"""


def test_a_tensor_test_after_an_interval_in_an_and_runs_every_n_steps():
    """iVideoGPT (holdout138): ``if completed_steps % checkpointing_steps == 0 and avg_loss < 4.0:``:
    ``and`` evaluates the device comparison only when the interval holds (R106). First, the
    comparison runs every step."""
    assert _found(CHECKPOINT_TEST) == []
    first = CHECKPOINT_TEST.replace("if step % checkpointing_steps == 0 and loss < 4.0:",
                                    "if loss < 4.0 and step % checkpointing_steps == 0:")
    assert _found(first) == [("TPL102", 9, 11, TRUTH)]


GDPP = """\
import torch


def gdpp(phi_fake, phi_real):
    def normalize_min_max(eig):
        min_v, max_v = torch.min(eig), torch.max(eig)
        if abs(min_v - max_v) < 1e-10:
            return eig
        return (eig - min_v) / (max_v - min_v)
    vals = torch.linalg.eigvalsh(phi_real @ phi_real.t())
    return normalize_min_max(vals).sum()


def train(model, loader, opt):
    for x, y in loader:
        feats = model(x.cuda())
        loss = gdpp(feats, feats)
        loss.backward()
        opt.step()
"""


def test_builtin_abs_of_a_tensor_is_a_tensor_where_its_operand_is():
    """pytorch_GAN_zoo's GDPP loss (holdout139): ``if abs(minV - maxV) < 1e-10:`` of two device
    eigenvalues, every step: Python's ``abs`` calls the tensor's ``__abs__`` (R107). Of two Python
    numbers the test is the host's."""
    chain = " (called every step from train.py:17 via gdpp)"
    assert _found(GDPP) == [("TPL102", 7, 11, TRUTH + chain)]
    host = GDPP.replace("min_v, max_v = torch.min(eig), torch.max(eig)", "min_v, max_v = 0.0, 1.0")
    assert _found(host) == []
