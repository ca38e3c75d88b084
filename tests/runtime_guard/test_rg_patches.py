"""The one patching mechanism (runtime_guard/patches.py): wrappers look like the originals to
``inspect``, TorchScript compiles the originals, uninstall restores every patch, and the real
frameworks that inspect torch (Lightning's DDP strategy) run under the guard."""
import inspect
import os
import re
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader

from _rg_helpers import SCRIPTS, guard_env, run_until_clean_shutdown


def _patched_callables(rg):
    return [(obj, attr, getattr(obj, attr)) for _owner, obj, attr, _own in
            rg.GUARD.registry._patches if callable(getattr(obj, attr))
            and inspect.isfunction(getattr(obj, attr))]


def test_every_wrapper_has_the_originals_signature_name_and_wrapped(guard):
    originals = {}
    guard.install(mode="fix", device="cpu")
    wrapped = _patched_callables(guard)
    assert len(wrapped) >= 20
    guard.uninstall()
    for obj, attr, _ in wrapped:
        originals[(id(obj), attr)] = getattr(obj, attr)
    guard.install(mode="fix", device="cpu")
    for obj, attr, wrapper in _patched_callables(guard):
        original = originals[(id(obj), attr)]
        from runtime_guard.patches import original_of

        # Several fixes may wrap one entry point: each wrapper's __wrapped__ is the one below it.
        assert original_of(wrapper) is original, (obj, attr)
        assert inspect.unwrap(wrapper) is inspect.unwrap(original)
        assert wrapper.__name__ == original.__name__ and wrapper.__doc__ == original.__doc__
        # What repr(), pickle and tracebacks show: the method's own name, not "<locals>.wrapper".
        assert wrapper.__qualname__.rsplit(".", 1)[-1] == original.__name__, wrapper.__qualname__
        try:
            expected = inspect.signature(original)
        except (TypeError, ValueError):
            continue
        assert inspect.signature(wrapper) == expected, (obj, attr)


def test_dataloader_signature_is_torchs_under_the_guard(guard):
    guard.install(mode="fix", device="cpu")
    parameters = list(inspect.signature(DataLoader.__init__).parameters)
    assert parameters[:3] == ["self", "dataset", "batch_size"]
    assert "persistent_workers" in parameters


class _ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn(self.conv(x)) + torch.zeros(1) + torch.ones(4, 1, 1)


def _factories(x: torch.Tensor) -> torch.Tensor:
    return x + torch.ones(3) + torch.arange(3) + torch.full((3,), 2.0)


def test_torch_jit_script_of_batchnorm_model_and_factories(guard):
    torch.manual_seed(0)
    model = _ConvBN().train()
    x = torch.randn(2, 3, 8, 8)
    expected = _ConvBN()
    expected.load_state_dict(model.state_dict())
    guard.install(mode="fix", device="cpu")
    scripted = torch.jit.script(model)
    scripted_fn = torch.jit.script(_factories)
    assert torch.equal(scripted(x), expected(x))
    assert torch.equal(scripted_fn(torch.zeros(3)), torch.tensor([3.0, 4.0, 5.0]))
    # The scripted graph calls torch's own operators, not the guard's Python.
    assert "aten::zeros" in str(scripted.forward.graph) or "aten::zeros" in str(scripted.graph)
    guard.uninstall()
    assert torch.equal(scripted_fn(torch.zeros(3)), torch.tensor([3.0, 4.0, 5.0]))


def test_uninstall_removes_the_torchscript_builtin_entries(guard):
    from torch.jit._builtins import _get_builtin_table

    table = _get_builtin_table()
    before = dict(table)
    guard.install(mode="fix", device="cpu")
    assert table.get(id(torch.zeros)) == "aten::zeros"
    assert len(table) > len(before)
    guard.uninstall()
    assert table == before


def test_batch_of_one_message_still_comes_from_the_eager_path(guard):
    guard.install(mode="fix", device="cpu")
    bn = nn.BatchNorm1d(3).train()
    with pytest.raises(ValueError, match="runtime_guard TPL503"):
        bn(torch.ones(1, 3))
    assert F._verify_batch_size.__wrapped__ is not None


def _lightning(tmp_path, *command, **env):
    proc = run_until_clean_shutdown([sys.executable, *command], env=guard_env(**env))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    return proc


@pytest.mark.parametrize("launch", ["import", "runner"])
def test_lightning_ddp_two_cpu_processes_train_as_without_the_guard(tmp_path, launch):
    pytest.importorskip("pytorch_lightning")
    script = os.path.join(SCRIPTS, "lightning_ddp_train.py")
    _lightning(tmp_path, script, str(tmp_path / "off.pt"), RUNTIME_GUARD="off")
    if launch == "import":
        proc = _lightning(tmp_path, script, str(tmp_path / "on.pt"), IMPORT_GUARD="1")
    else:
        proc = _lightning(tmp_path, "-m", "runtime_guard", script, str(tmp_path / "on.pt"))
    ranks = sorted(re.findall(r"rank \d steps \d+ guard o[nf]+", proc.stdout))
    assert ranks == ["rank 0 steps 8 guard on", "rank 1 steps 8 guard on"], proc.stdout
    off = torch.load(tmp_path / "off.pt")
    on = torch.load(tmp_path / "on.pt")
    assert off.keys() == on.keys()
    for name in off:
        assert torch.equal(off[name], on[name]), name


def test_torch_warnings_inside_a_wrapper_point_at_the_users_line(guard):
    import warnings

    guard.install(mode="fix", device="cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.tensor(torch.ones(2))  # C++: "To copy construct from a tensor ..."
        torch.randn(2, dtype=torch.cfloat).to(torch.float32)  # C++: "Casting complex values ..."
    assert len(caught) == 2, [str(w.message) for w in caught]
    here = inspect.currentframe().f_lineno
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, here - 3), (__file__, here - 2)]
