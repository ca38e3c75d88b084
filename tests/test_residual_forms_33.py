"""Forms of the thirty-third session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

from _diagnostics import rule_diagnostics

SHAKE = """\
import torch


def get_alpha_beta(batch_size, shake_config, device):
    forward_shake, backward_shake, shake_image = shake_config
    if forward_shake and not shake_image:
        alpha = torch.rand(1)
    elif forward_shake and shake_image:
        alpha = torch.rand(batch_size).view(batch_size, 1, 1, 1)
    else:
        alpha = torch.FloatTensor([0.5])
    alpha = alpha.to(device)
    return alpha
"""
RAND = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.rand(...)` "
        "to create it there (runtime_guard: device-native creation)")
LEGACY = ("tensor is created on the CPU by the legacy constructor `torch.FloatTensor(...)` and then copied "
          "to the device; create it there with `torch.tensor(..., dtype=torch.float32, device=...)`")


def test_a_factory_in_each_branch_of_an_if_elif_else_moved_after_it_is_reported_each_time():
    """pytorch_image_classification's ``get_alpha_beta`` (holdout190): each of the three paths makes
    its own host tensor, which the move after the ``if`` copies (R162; R93 kept only the first).
    No fix: each path's tensor needs the move."""
    assert rule_diagnostics(SHAKE, "TPL101") == [
        (7, 16, RAND, None, None), (9, 16, RAND, None, None), (11, 16, LEGACY, None, None)]


def test_a_branch_binding_no_fresh_tensor_or_a_use_first_is_left_out():
    """A branch that binds something else (a tensor handed in) makes no host tensor; a branch that
    uses its tensor before the move (``alpha += 1``) works on it where it is: the whole reading
    stops, as R93's did."""
    handed = SHAKE.replace("        alpha = torch.rand(batch_size).view(batch_size, 1, 1, 1)\n",
                           "        alpha = shake_config[0]\n")
    assert rule_diagnostics(handed, "TPL101") == [(7, 16, RAND, None, None), (11, 16, LEGACY, None, None)]
    used = SHAKE.replace("        alpha = torch.FloatTensor([0.5])\n",
                         "        alpha = torch.FloatTensor([0.5])\n        alpha += 1\n")
    assert rule_diagnostics(used, "TPL101") == []
    moved_inside = SHAKE.replace("        alpha = torch.FloatTensor([0.5])\n    alpha = alpha.to(device)\n",
                                 "        alpha = torch.FloatTensor([0.5])\n        alpha = alpha.to(device)\n")
    assert rule_diagnostics(moved_inside, "TPL101") == []
