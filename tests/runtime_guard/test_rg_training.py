"""The guard must not change a clean run, nor break torch.compile."""
import os

import torch

from _rg_helpers import SCRIPTS, run_python


def test_clean_cpu_training_is_bit_identical_with_and_without_guard(tmp_path):
    script = os.path.join(SCRIPTS, "clean_train.py")
    results = {}
    runs = {"off": {"RUNTIME_GUARD": "off"}, "fix": {"RUNTIME_GUARD": "fix"},
            "workers": {"RUNTIME_GUARD": "fix", "RUNTIME_GUARD_UNSAFE": "loader_workers"}}
    for name, env in runs.items():
        out = tmp_path / f"{name}.pt"
        run_python(f"import runpy, sys; sys.argv = [{script!r}, {str(out)!r}]; "
                   f"runpy.run_path({script!r}, run_name='__main__')", **env)
        results[name] = torch.load(out, weights_only=False)
    off = results["off"]
    # By default the loader keeps its settings (workers are only suggested); on opt-in it gets
    # workers, and for this dataset (no randomness of its own) the numbers stay the same too.
    assert off["workers"] == 0 and results["fix"]["workers"] == 0
    assert results["workers"]["workers"] >= 1
    for name in ("fix", "workers"):
        other = results[name]
        assert off["state"].keys() == other["state"].keys()
        for key in off["state"]:
            assert torch.equal(off["state"][key], other["state"][key]), (name, key)
        assert torch.equal(off["after"], other["after"])  # and the global random stream


def test_torch_compile_fullgraph_with_guard_installed():
    code = """
    import runtime_guard, torch
    from torch import nn
    import torch.backends.cudnn as cudnn
    assert runtime_guard.GUARD.installed
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    compiled = torch.compile(model, fullgraph=True)  # a graph break would raise
    x = torch.randn(4, 8)
    for _ in range(2):
        out = compiled(x)
        out.sum().backward()
    assert torch.allclose(out, model(x))
    cudnn.deterministic = True; cudnn.benchmark = True
    assert cudnn.benchmark is False  # the guard still works after compiling
    """
    run_python(code, timeout=240)
