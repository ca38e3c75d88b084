"""The guard on a real CUDA GPU: each default fix checked with numbers against the hand-written code.

Every other runtime-guard test runs on a CPU with stand-ins (the meta device, CPU autocast, a faked
``torch.cuda.is_available``). These run only where CUDA is there (skipped elsewhere, CI included);
they were run on a lent H100 (benchmarks/RUNTIME.md, "CUDA"). Each compares what the guarded code
computes with what the unguarded or hand-written code computes, not only that it ran.
"""
import os
import subprocess
import sys

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from _rg_helpers import ROOT, backward_and_step, events, guard_env

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

# guard_env hides the GPU from the CPU-path tests' subprocesses; these ask for it.
VISIBLE = {"CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", "0") or "0"}

TINY = 1e-8


def _mlp(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 1)).cuda()


def _data(seed=1, n=16):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 32, generator=g).cuda(), torch.randn(n, 1, generator=g).cuda()


def _fp16_steps(model, x, y, steps, scaler=None):
    """``steps`` SGD steps of a float16-autocast model on a loss so small that unscaled float16
    gradients underflow; ``scaler``: a hand-written torch.amp.GradScaler."""
    opt = torch.optim.SGD(model.parameters(), lr=1e6)
    for _ in range(steps):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = (model(x).float() - y).pow(2).mean() * TINY
        backward_and_step(loss, opt, scaler)
    return [p.detach().clone() for p in model.parameters()]


def test_fp16_autocast_without_scaler_gets_true_gradients(guard):
    x, y = _data()
    model = _mlp()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = (model(x).float() - y).pow(2).mean() * TINY
    loss.backward()
    assert all(torch.count_nonzero(p.grad) == 0 for p in model.parameters())  # the pitfall, on CUDA
    reference = _mlp()
    ((reference(x) - y).pow(2).mean() * TINY).backward()  # float32: the true gradients
    guard.install(mode="fix", device="cuda")
    model = _mlp()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = (model(x).float() - y).pow(2).mean() * TINY
    loss.backward()
    for got, ref in zip((p.grad for p in model.parameters()), (p.grad for p in reference.parameters())):
        assert torch.count_nonzero(ref) > 0
        assert (got - ref).norm() <= 2e-2 * ref.norm()
    assert events(guard, "TPL301", "fixed")


def test_fp16_training_matches_a_hand_written_grad_scaler(guard):
    x, y = _data()
    by_hand = _fp16_steps(_mlp(), x, y, 5, scaler=torch.amp.GradScaler("cuda"))
    guard.install(mode="fix", device="cuda")
    guarded = _fp16_steps(_mlp(), x, y, 5)
    unchanged = [p.detach().clone() for p in _mlp().parameters()]
    assert any(not torch.equal(a, b) for a, b in zip(guarded, unchanged))  # it trained
    for a, b in zip(guarded, by_hand):
        assert (a - b).norm() <= 1e-2 * b.norm() + 1e-6


def test_device_native_creation_builds_on_the_gpu_with_the_same_values(guard):
    def build(n):
        out = []
        for _ in range(n):
            out.append(torch.full((3, 4), 2.5).cuda())  # a factory moved straight to the GPU
        return out

    guard.install(mode="fix", device="cuda")
    built = build(4)
    assert all(t.device.type == "cuda" and torch.equal(t.cpu(), torch.full((3, 4), 2.5)) for t in built)
    (event,) = events(guard, "TPL101", "fixed")
    assert event.count == 3  # the first call taught the site


def test_dataparallel_on_one_gpu_trains_as_the_module_does(guard):
    x, y = _data()
    plain = _mlp()
    opt = torch.optim.SGD(plain.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        (plain(x) - y).pow(2).mean().backward()
        opt.step()
    guard.install(mode="fix", device="cuda")
    model = nn.DataParallel(_mlp())
    assert isinstance(model, nn.DataParallel)
    assert all(k.startswith("module.") for k in model.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        (model(x) - y).pow(2).mean().backward()
        opt.step()
    for a, b in zip(model.module.parameters(), plain.parameters()):
        assert torch.allclose(a, b, atol=1e-6)
    if torch.cuda.device_count() == 1:
        assert any(e.detail.startswith("DataParallel on one GPU -> direct call") for e in events(guard, "TPL201"))


def test_loader_feeding_cuda_is_pinned_and_yields_the_same_batches(guard):
    data = TensorDataset(torch.arange(40.0).reshape(20, 2))
    plain = [b.clone() for (b,) in DataLoader(data, batch_size=4)]
    guard.install(mode="fix", device="cuda")
    loader = DataLoader(data, batch_size=4)
    assert loader.pin_memory is True
    got = [b for (b,) in loader]
    assert all(b.is_pinned() for b in got)
    assert all(torch.equal(a, b) for a, b in zip(got, plain)) and len(got) == len(plain)
    (event,) = events(guard, "TPL502", "fixed")


def test_a_dataset_of_cuda_tensors_is_not_pinned(guard):
    guard.install(mode="fix", device="cuda")
    loader = DataLoader(TensorDataset(torch.ones(8, 2, device="cuda")), batch_size=4)
    assert loader.pin_memory is False
    assert [b.device.type for (b,) in loader] == ["cuda", "cuda"]


def test_sync_report_counts_gpu_reads_per_line_not_host_ones(guard):
    guard.install(mode="fix", device="cuda")
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = _data()
    for _ in range(4):
        opt.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        loss.item()  # a host sync on a GPU, every step
        torch.ones(()).item()  # a host tensor: waits for nothing
    (event,) = events(guard, "TPL102")
    assert event.count == 4 and event.detail.startswith("host sync: .item() x4")
    assert "1 per optimizer step over 4 steps" in event.detail


def test_cudnn_benchmark_with_determinism_is_turned_off_and_restored(guard):
    before = (torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
    try:
        guard.install(mode="fix", device="cuda")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = True
        assert torch.backends.cudnn.benchmark is False
        assert events(guard, "TPL401", "fixed")
        conv = nn.Conv2d(3, 8, 3).cuda()
        x = torch.randn(2, 3, 16, 16, device="cuda")
        assert torch.equal(conv(x), conv(x))  # deterministic kernels, as the script asked
    finally:
        guard.uninstall()
        torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = before


def test_tf32_opt_in_on_an_ampere_or_newer_gpu(guard, monkeypatch):
    if torch.cuda.get_device_capability()[0] < 8:
        pytest.skip("TF32 needs compute capability 8.0")
    before = torch.get_float32_matmul_precision()
    monkeypatch.setenv("RUNTIME_GUARD_TF32", "1")
    try:
        guard.install(mode="fix", device="cuda")
        assert torch.get_float32_matmul_precision() == "high"
        assert events(guard, "TPL306", "fixed")
        guard.uninstall()
        assert torch.get_float32_matmul_precision() == before
    finally:
        torch.set_float32_matmul_precision(before)


def test_bf16_opt_in_trains_close_to_float32():
    code = r"""
import torch, runtime_guard
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
g = torch.Generator().manual_seed(1)
x = torch.randn(64, 32, generator=g).cuda(); y = torch.randn(64, 1, generator=g).cuda()
for _ in range(20):
    opt.zero_grad()
    out = model(x)
    loss = (out.float() - y).pow(2).mean()
    loss.backward()
    opt.step()
print("DTYPE", out.dtype)
print("LOSS", loss.item())
"""
    def run(**env):
        proc = subprocess.run([sys.executable, "-c", code], env=guard_env(**VISIBLE, **env), cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
        return lines["DTYPE"], float(lines["LOSS"])

    dtype32, loss32 = run(RUNTIME_GUARD="off")
    dtype16, loss16 = run(RUNTIME_GUARD_AMP="bf16")
    assert dtype32 == "torch.float32" and dtype16 == "torch.bfloat16"
    assert abs(loss16 - loss32) <= 0.05 * abs(loss32) + 1e-3


def test_sample_training_script_under_the_runner_on_cuda(tmp_path):
    report = tmp_path / "guard.json"
    script = os.path.join(ROOT, "samples", "runtime_report", "train.py")
    if not os.path.exists(script):
        pytest.skip("samples/runtime_report/train.py is not in this checkout")
    proc = subprocess.run([sys.executable, "-m", "runtime_guard", "--report", str(report), script],
                          env=guard_env(**VISIBLE), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    import json
    found = json.loads(report.read_text())
    syncs = {(os.path.basename(f["filename"]), f["location"]["row"]): f for f in found if f["code"] == "TPL102"}
    assert set(syncs) == {("train.py", 36), ("helpers.py", 7)}
    for item in syncs.values():
        assert item["count"] == 24 and item["message"].startswith("host sync: .item() x24")
    (pinned,) = [f for f in found if f["code"] == "TPL502"]
    assert pinned["action"] == "fixed" and pinned["location"]["row"] == 24
