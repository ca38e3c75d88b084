"""TPL102 host-sync report: counts per user source line, per optimizer step."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _rg_helpers import events


def _loop(steps=6):
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(torch.randn(steps * 2, 4)), batch_size=2, shuffle=True)
    total = torch.zeros(())
    for (x,) in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        logged = loss.item()  # noqa: F841  (line 18: one sync per step)
        total += loss.detach()  # the remedy: no sync
    return float(total)  # line 20: once, after the loop


def test_syncs_counted_by_line_and_step(guard):
    guard.install(mode="fix", device="cpu")
    _loop()
    by_line = {e.location.rsplit(":", 1)[1]: e for e in events(guard, "TPL102")}
    assert set(by_line) == {"18", "20"}, by_line  # DataLoader's own .item() is not the script's
    assert by_line["18"].count == 6 and ".item() x6" in by_line["18"].detail
    assert "1 per optimizer step over 6 steps" in by_line["18"].detail
    assert by_line["20"].count == 1 and "float(t)" in by_line["20"].detail
    assert all(e.location.startswith(__file__) for e in by_line.values())
    # report() is idempotent: counts are set, not added again.
    assert [e.count for e in events(guard, "TPL102")] == [e.count for e in events(guard, "TPL102")]


def test_sync_methods_still_return_the_same(guard):
    guard.install(mode="fix", device="cpu")
    t = torch.tensor([0.0, 2.0, 3.0])
    assert t[1].item() == 2.0 and t.tolist() == [0.0, 2.0, 3.0] and int(t[2]) == 3
    assert bool(t[0]) is False and t.nonzero().flatten().tolist() == [1, 2]
    assert t.cpu() is t


def test_accelerator_target_counts_only_device_tensors(guard):
    guard.install(mode="fix", device="cuda")  # host tensors' .item() does not wait for a GPU
    torch.ones(()).item()
    assert not events(guard, "TPL102")


def test_cpu_only_run_does_not_call_a_cpu_read_a_host_sync(guard):
    """On a CPU-only run .item() waits for no device: the report says what it is instead."""
    guard.install(mode="fix", device="cpu")
    _loop()
    for event in events(guard, "TPL102"):
        assert not event.detail.startswith("host sync")
        assert event.detail.startswith("value read back to Python: ")
        assert "on this CPU-only run it waits for no device, on an accelerator each is a host " \
               "sync" in event.detail


def test_cuda_synchronize_counted_and_no_step_said(guard):
    guard.install(mode="fix", device="cuda")
    for _ in range(2):
        try:
            torch.cuda.synchronize()  # this line; raises without a GPU, after the guard counted it
        except (RuntimeError, AssertionError):
            pass
    (event,) = events(guard, "TPL102")
    assert event.count == 2
    assert event.detail.startswith("host sync: torch.cuda.synchronize() x2 (no optimizer step seen)")
    here = [n for n, line in enumerate(open(__file__), 1) if "torch.cuda.synchronize()  # this" in line]
    assert event.location == f"{__file__}:{here[0]}"


def test_a_disabled_fix_counts_nothing(guard):
    """After an internal failure its wrappers stay patched until uninstall but count nothing:
    the report keeps only the failure."""
    guard.install(mode="fix", device="cpu")
    fix = guard.GUARD.fix("sync_report")
    fix.fail(RuntimeError("boom"), "test")
    _loop()
    assert [e.action for e in events(guard, "TPL102")] == ["left alone"]
