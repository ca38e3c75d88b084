"""TPL605 at run time: conv biases cancelled by the next BatchNorm, counted as Sequentials are built."""
from torch import nn

from _rg_helpers import events


def test_parameters_saved_are_counted(guard):
    guard.install(mode="fix", device="cpu")
    for _ in range(2):
        model = nn.Sequential(
            nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3), nn.SyncBatchNorm(32),
            nn.Conv1d(32, 8, 1),                      # no BatchNorm after it
        )
    found = events(guard, "TPL605")
    assert len(found) == 1
    event = found[0]
    assert event.action == "observed"
    assert event.location.endswith("test_rg_conv_bias.py:10")
    assert event.count == 4  # two cancelled biases in each of the two builds
    assert "saves 96 parameters" in event.detail and "built 2 times" in event.detail
    # Nothing was changed: the biases are still there.
    assert model[0].bias is not None and model[0].bias.numel() == 16


def test_silent_cases(guard):
    guard.install(mode="fix", device="cpu")
    nn.Sequential(nn.Conv2d(3, 16, 3, bias=False), nn.BatchNorm2d(16))
    nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.BatchNorm2d(16))
    nn.Sequential(nn.Conv2d(3, 16, 3), nn.GroupNorm(4, 16))
    nn.Sequential(nn.ConvTranspose2d(3, 16, 3), nn.BatchNorm2d(16))
    assert events(guard, "TPL605") == []


def test_ordered_dict_affine_false_and_uninstall(guard):
    from collections import OrderedDict

    original = nn.Sequential.__init__
    guard.install(mode="warn", device="cpu")
    assert nn.Sequential.__init__ is not original
    nn.Sequential(OrderedDict([("conv", nn.Conv3d(1, 4, 3)), ("bn", nn.BatchNorm3d(4, affine=False))]))
    (event,) = events(guard, "TPL605")
    assert event.count == 1 and "saves 4 parameters" in event.detail
    guard.uninstall()
    assert nn.Sequential.__init__ is original
