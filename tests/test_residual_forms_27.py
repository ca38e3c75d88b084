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
