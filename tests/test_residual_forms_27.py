"""Forms of round twenty-three (holdout131-136) the engine got wrong (2026-11-29, the twenty-seventh
session): each with its flagged and silent twins, whole diagnostics."""


from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found

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
