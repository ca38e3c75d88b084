"""TPL605 at run time: conv biases cancelled by the next BatchNorm, counted for the Sequentials
built and run (a slice without the BatchNorm never feeds the conv to it)."""
import torch
from torch import nn

from _rg_helpers import events


def test_parameters_saved_are_counted(guard):
    guard.install(mode="fix", device="cpu")
    for _ in range(2):
        model = nn.Sequential(
            nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3), nn.SyncBatchNorm(32),
            nn.Conv2d(32, 8, 1),                      # no BatchNorm after it
        )
        model(torch.randn(2, 3, 8, 8))
    found = events(guard, "TPL605")
    assert len(found) == 1
    event = found[0]
    assert event.action == "observed"
    assert event.location.endswith("test_rg_conv_bias.py:12")
    assert event.count == 4  # two cancelled biases in each of the two builds
    assert "saves 96 parameters" in event.detail and "built and run 2 times" in event.detail
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
    net = nn.Sequential(OrderedDict([("conv", nn.Conv3d(1, 4, 3)),
                                     ("bn", nn.BatchNorm3d(4, affine=False))]))
    net(torch.randn(2, 1, 4, 4, 4))
    (event,) = events(guard, "TPL605")
    assert event.count == 1 and "saves 4 parameters" in event.detail
    guard.uninstall()
    assert nn.Sequential.__init__ is original


def test_a_sliced_sequential_whose_batchnorm_never_follows_is_silent(guard):
    """torchvision-style feature extraction: the full Sequential is built, only a slice that ends
    at the conv runs; the BatchNorm never sees the conv's output."""
    guard.install(mode="fix", device="cpu")
    features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
    stem = features[:1]
    opt = torch.optim.SGD(stem.parameters(), lr=0.1)
    for _ in range(2):
        stem(torch.randn(2, 3, 8, 8)).mean().backward()
        opt.step()
    assert events(guard, "TPL605") == []
    fix = guard.GUARD.fix("conv_bias")
    assert fix.hook is None and fix.step_hook is None  # no watching after the first step
    from torch.nn.modules import module as _module
    from torch.optim.optimizer import _global_optimizer_post_hooks
    assert not _module._global_forward_pre_hooks  # the hooks themselves are gone from torch
    assert all(getattr(h, "__self__", None) is not fix for h in _global_optimizer_post_hooks.values())


def test_a_sequential_that_runs_is_reported_once_per_build(guard):
    guard.install(mode="fix", device="cpu")
    net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())  # BUILT HERE
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        net(torch.randn(2, 3, 8, 8)).mean().backward()
        opt.step()
    (event,) = events(guard, "TPL605")
    built = [n for n, line in enumerate(open(__file__), 1) if line.endswith("# BUILT HERE\n")]
    assert event.location == f"{__file__}:{built[0]}" and event.count == 1
    assert event.detail == ("nn.Sequential: 1 convolution bias directly followed by BatchNorm, "
                            "which cancels it; bias=False on those convolutions saves 8 parameters "
                            "(and their gradients and optimizer state) and an add per output "
                            "element")
