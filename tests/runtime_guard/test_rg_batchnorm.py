"""TPL503: a clear message for a training batch of one reaching BatchNorm."""
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from _rg_helpers import events


def _epoch():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    loader = DataLoader(TensorDataset(torch.randn(9, 3)), batch_size=4)  # line 12: 4 + 4 + 1
    for (x,) in loader:
        model(x)


def test_batch_of_one_names_the_loader_and_drop_last(guard):
    guard.install(mode="fix", device="cpu")
    with pytest.raises(ValueError) as info:
        _epoch()
    text = str(info.value)
    assert "drop_last=True" in text
    assert f"{__file__}:12" in text and "9 samples, batch_size=4: the last batch has 1" in text
    assert "Expected more than 1 value per channel" in text  # torch's own words kept
    # The run crashed: the report must not say "fixed".
    assert not events(guard, "TPL503", "fixed")
    (event,) = events(guard, "TPL503", "observed")
    assert event.detail == ("batch of one at BatchNorm: the run stopped (as it would without the "
                            "guard); the error names the DataLoader and drop_last=True")


def test_without_guard_and_in_eval_unchanged(guard):
    with pytest.raises(ValueError, match="^Expected more than 1 value per channel"):
        _epoch()
    guard.install(mode="fix", device="cpu")
    model = nn.BatchNorm1d(4).eval()
    assert model(torch.randn(1, 4)).shape == (1, 4)  # eval: a batch of one is fine
    assert not events(guard, "TPL503")
