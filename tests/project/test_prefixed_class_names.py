"""R178: a class whose name is a lower-case prefix before a capitalised word (BCP's
``losses.mask_DiceLoss``, holdout204) is a class: a name bound to an instance of it in a training
function reaches its ``forward`` every step, as ``DiceLoss`` would."""

from _diagnostics import ITEM_SYNC
from _project_files import findings_without_col, write

LOSSES = """
    import torch
    import torch.nn as nn


    def to_one_hot(tensor, n_classes):
        assert tensor.max().item() < n_classes, "labels out of range"
        size = list(tensor.size())
        size[1] = n_classes
        return torch.zeros(*size, device=tensor.device).scatter_(1, tensor, 1)


    class mask_DiceLoss(nn.Module):
        def forward(self, logits, target):
            one_hot = to_one_hot(target.long(), logits.shape[1])
            return 1 - (2 * (logits.softmax(1) * one_hot).sum() + 1) / ((logits + one_hot).sum() + 1)


    def make_Dice(n_classes):
        return {"classes": n_classes}
    """
# utils/ has no __init__.py: a namespace package, as in BCP's code/utils
TRAIN = """
    import torch
    from utils import losses


    def pre_train(model, loader, optimizer):
        DICE = losses.{made}
        for volume, label in loader:
            volume, label = volume.cuda(), label.cuda()
            outputs = model(volume)
            loss = DICE(outputs, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """


def test_an_instance_of_a_prefixed_class_name_runs_its_forward_every_step(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "utils/losses.py": LOSSES,
                     "train.py": TRAIN.format(made="mask_DiceLoss()")})
    assert findings_without_col(tmp_path, "utils/losses.py") == [
        ("TPL102", 6, ITEM_SYNC + " (called every step from train.py:10 via forward)")]


def test_a_prefixed_function_or_an_acronym_is_no_class(tmp_path):
    """``make_Dice`` is a function (the walk resolves it and finds no class: its dict is called
    nothing), and ``to_PIL``-style names (an acronym after a verb) are not read as classes at all."""
    write(tmp_path, {"pyproject.toml": "", "utils/losses.py": LOSSES,
                     "train.py": TRAIN.format(made="make_Dice(2)")})
    assert findings_without_col(tmp_path, "utils/losses.py") == []
    from torchperf_lint.analysis.project_index import _is_class_name
    assert [_is_class_name(n) for n in ("losses.mask_DiceLoss", "my_Net", "DiceLoss", "to_PIL", "get_ID",
                                        "mask_dice_loss", "_private_Name", "")] == [
        True, True, True, False, False, False, False, False]
