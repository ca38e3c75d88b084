"""Install/uninstall, modes, configuration and the never-break-a-run rule."""
import torch
import torch.backends.cudnn
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _rg_helpers import events, run_python

PATCHED = [
    (nn.DataParallel, "__init__"),
    (DataLoader, "__init__"),
    (DataLoader, "__iter__"),
    (DistributedSampler, "set_epoch"),
    (type(torch.backends.cudnn), "benchmark"),
    (type(torch.backends.cudnn), "deterministic"),
    (torch._C, "_set_deterministic_algorithms"),
    (torch.amp.autocast_mode.autocast, "__enter__"),
    (torch.amp.GradScaler, "__init__"),
    (torch.autograd, "backward"),
    (torch.Tensor, "item"),
    (torch.Tensor, "__bool__"),
    (torch.Tensor, "to"),
    (torch, "randn"),
    (torch, "zeros"),
    (torch.cuda, "synchronize"),
    (torch.nn.functional, "_verify_batch_size"),
]


def _snapshot():
    return {(id(o), a): vars(o).get(a, "<absent>") for o, a in PATCHED}


def test_uninstall_restores_identical_originals(guard):
    before = _snapshot()
    guard.install(mode="fix", device="cpu")
    assert len(guard.GUARD.registry) >= len(PATCHED)
    during = _snapshot()
    assert all(during[k] is not before[k] for k in before)
    guard.uninstall()
    after = _snapshot()
    assert all(after[k] is before[k] for k in before), "an original was not restored exactly"
    assert len(guard.GUARD.registry) == 0
    from torch.optim.optimizer import _global_optimizer_post_hooks, _global_optimizer_pre_hooks
    assert not _global_optimizer_pre_hooks and not _global_optimizer_post_hooks
    # Everything still works as torch's own after the round trip.
    dp = nn.DataParallel(nn.Linear(2, 2))
    assert type(dp) is nn.DataParallel and dp(torch.ones(1, 2)).shape == (1, 2)
    assert [b.tolist() for b in DataLoader([1, 2, 3], batch_size=2)] == [[1, 2], [3]]


def test_install_twice_does_not_stack(guard):
    before = _snapshot()
    guard.install(mode="fix", device="cpu")
    n = len(guard.GUARD.registry)
    guard.install(mode="warn", device="cpu")
    assert len(guard.GUARD.registry) == n
    guard.uninstall()
    assert _snapshot() == before


def test_off_mode_import_changes_nothing():
    code = """
    import atexit, sys, torch, torch.backends.cudnn as c
    from torch import nn
    from torch.utils.data import DataLoader
    before = (dict(vars(nn.DataParallel)), dict(vars(DataLoader)), dict(vars(type(c))),
              torch._C._set_deterministic_algorithms, atexit._ncallbacks())
    import runtime_guard
    after = (dict(vars(nn.DataParallel)), dict(vars(DataLoader)), dict(vars(type(c))),
             torch._C._set_deterministic_algorithms, atexit._ncallbacks())
    assert before == after, "off mode changed something"
    assert not runtime_guard.GUARD.installed
    c.deterministic = True; c.benchmark = True
    assert c.benchmark is True
    """
    proc = run_python(code, RUNTIME_GUARD="off")
    assert "runtime_guard" not in proc.stderr


def test_warn_mode_observes_only():
    code = """
    import runtime_guard, torch
    import torch.backends.cudnn as cudnn
    cudnn.deterministic = True
    cudnn.benchmark = True
    assert cudnn.benchmark is True  # warn: nothing changed
    acts = {(e.code, e.action) for e in runtime_guard.report()}
    assert acts == {("TPL401", "suggested")}, acts
    """
    proc = run_python(code, RUNTIME_GUARD="warn")
    assert "TPL401" in proc.stderr and "suggested" in proc.stderr  # the atexit table


def test_default_import_installs_and_reports_at_exit():
    code = """
    import torch, runtime_guard
    from torch import nn
    assert runtime_guard.GUARD.installed and runtime_guard.GUARD.config.mode == "fix"
    nn.DataParallel(nn.Linear(2, 2))  # CPU only: left alone and reported
    """
    proc = run_python(code)
    assert "runtime_guard report" in proc.stderr
    assert "TPL201" in proc.stderr and "<string>:5" in proc.stderr


def test_fixes_and_skip_lists(guard):
    guard.install(mode="fix", fixes="TPL401,ddp")
    assert set(guard.GUARD.fixes) == {"cudnn_flags", "ddp"}
    guard.install(mode="fix", skip="cudnn_flags,TPL204")
    assert "cudnn_flags" not in guard.GUARD.fixes and "set_epoch" not in guard.GUARD.fixes
    assert "ddp" in guard.GUARD.fixes


def test_env_lists_and_device():
    code = """
    import runtime_guard
    assert set(runtime_guard.GUARD.fixes) == {"loader_defaults"}, runtime_guard.GUARD.fixes
    assert runtime_guard.GUARD.config.device == "meta"
    """
    run_python(code, RUNTIME_GUARD_FIXES="TPL501,TPL401", RUNTIME_GUARD_SKIP="cudnn_flags",
               RUNTIME_GUARD_DEVICE="meta")


def test_internal_failure_disables_fix_and_calls_original(guard, monkeypatch):
    guard.install(mode="fix", device="cpu")
    fix = guard.GUARD.fix("ddp")

    def broken(*a, **k):
        raise RuntimeError("boom inside the guard")

    monkeypatch.setattr(fix, "replace", broken)
    dp = nn.DataParallel(nn.Linear(2, 2))  # must still work: the original runs
    assert type(dp) is nn.DataParallel and dp(torch.ones(1, 2)).shape == (1, 2)
    assert not fix.active
    skipped = events(guard, "TPL201", "left alone")
    assert skipped and "boom inside the guard" in skipped[0].detail
    assert skipped[0].location.endswith("test_rg_core.py:%d" % (broken.__code__.co_firstlineno + 4))
    # The other fixes are still on.
    assert guard.GUARD.fix("cudnn_flags").active


def test_user_errors_propagate_unchanged(guard):
    guard.install(mode="fix", device="cpu")
    try:
        DataLoader([1, 2], sampler=[0, 1], shuffle=True)
    except ValueError as exc:
        assert "sampler" in str(exc)
    else:
        raise AssertionError("DataLoader should refuse sampler with shuffle")


def test_report_words_at_exit():
    code = """
    import runtime_guard, torch
    from torch import nn
    from torch.utils.data import DataLoader, Dataset, TensorDataset
    class Files(Dataset):
        def __len__(self): return 4
        def __getitem__(self, i): return i
    DataLoader(Files(), batch_size=2)  # workers: suggested, with the opt-in line
    DataLoader(TensorDataset(torch.zeros(4)), batch_size=2)  # in memory: left alone
    nn.DataParallel(nn.Linear(2, 2))  # CPU only, no torchrun: left alone
    words = {(e.code, e.action) for e in runtime_guard.report()}
    assert words == {("TPL501", "suggested"), ("TPL501", "left alone"), ("TPL201", "left alone")}, words
    """
    proc = run_python(code)
    lines = proc.stderr.splitlines()
    suggested = [line for line in lines if "TPL501" in line and "suggested" in line]
    assert suggested and "[apply: RUNTIME_GUARD_UNSAFE=loader_workers" in suggested[0]
    assert any("TPL201" in line and "left alone" in line and "CPU only" in line for line in lines)


def test_fixes_reach_nothing_above_them():
    """The guard passes its state down (config, registry, log, relaunch target); a fix never
    imports the core, the runner, prepare() or the report writer, and never names GUARD: the
    former circle core -> fixes -> ddp -> runner -> report_file -> core is gone."""
    import ast
    import pathlib

    above = {"core", "runner", "prepare", "report_file", "__main__"}
    fixes_dir = pathlib.Path(__file__).resolve().parents[2] / "runtime_guard" / "fixes"
    offenders = []
    for path in sorted(fixes_dir.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = (node.module or "").split(".")
                names = {alias.name for alias in node.names}
                if node.level >= 2 and (set(module) & above or (not node.module and names & above)):
                    offenders.append(f"{path.name}:{node.lineno}")
                if node.module and node.module.startswith("runtime_guard.") and \
                        set(node.module.split(".")[1:]) & above:
                    offenders.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Name) and node.id == "GUARD":
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_uninstalled_fixes_are_inactive(guard):
    """A wrapper kept by someone (a reference taken while the guard was installed) must do
    nothing once its fix is uninstalled: every fix's entry points check ``active`` first."""
    guard.install(mode="fix", device="cpu")
    installed = list(guard.GUARD.fixes.values())
    assert installed and all(fix.active for fix in installed)
    kept_item = torch.Tensor.item
    guard.uninstall()
    assert not any(fix.active for fix in installed)
    for _ in range(3):
        kept_item(torch.ones(()))
    assert not events(guard, "TPL102")


def test_internal_failure_names_its_place_disables_the_fix_and_raises_in_debug(guard, monkeypatch):
    import pytest

    guard.install(mode="fix", device="cpu")
    fix = guard.GUARD.fix("sync_report")

    def broken(where, kind):
        raise KeyError("boom")  # BROKEN HERE

    monkeypatch.setattr(fix, "count", broken)
    assert torch.ones(()).item() == 1.0  # the script's call still works
    assert not fix.active
    line = [n for n, text in enumerate(open(__file__), 1) if text.endswith("# BROKEN HERE\n")][0]
    (event,) = events(guard, "TPL102", "left alone")
    assert event.detail == (f"internal failure in sync_report item: KeyError: 'boom' "
                            f"(test_rg_core.py:{line}); fix disabled")
    guard.install(mode="fix", device="cpu")
    monkeypatch.setattr(guard.GUARD, "debug", True)  # RUNTIME_GUARD_DEBUG=1
    monkeypatch.setattr(guard.GUARD.fix("sync_report"), "count", broken)
    with pytest.raises(KeyError, match="boom"):
        torch.ones(()).item()


def _probe_guard(mode):
    """A Guard of its own (not the installed one) for the base class's contract."""
    from runtime_guard.config import Config
    from runtime_guard.core import Guard

    probe = Guard()
    probe.config = Config(mode=mode)
    return probe


def test_the_apply_line_of_each_event_kind_in_each_mode():
    """What a fix's event says, by mode: fixed() is only suggested in warn mode, with the line
    that turns fix mode on; suggested() names the unsafe opt-in when there is one, else fix mode,
    and never an opt-in for None."""
    from runtime_guard.fixes.base import APPLY_FIX_MODE, Fix
    from runtime_guard.config import unsafe_line

    class Probe(Fix):
        name = "probe"
        codes = ("TPL999",)

    def said(event):
        return event.action, event.detail, event.apply

    fixing, warning = Probe(_probe_guard("fix")), Probe(_probe_guard("warn"))
    assert said(fixing.fixed("TPL999", "changed", "s.py:1")) == ("fixed", "changed", "")
    assert said(warning.fixed("TPL999", "changed", "s.py:1")) == (
        "suggested", "changed", APPLY_FIX_MODE)
    assert [said(e) for e in warning.guard.log.events()] == [
        ("suggested", "changed", APPLY_FIX_MODE)]
    opt_in = unsafe_line("loader_workers")
    assert said(fixing.suggested("TPL999", "could", "loader_workers", "s.py:2")) == (
        "suggested", "could", opt_in)
    assert said(fixing.suggested("TPL999", "could", None, "s.py:3")) == (
        "suggested", "could", APPLY_FIX_MODE)
    assert said(warning.suggested("TPL999", "could", "loader_workers", "s.py:2")) == (
        "suggested", "could", f"RUNTIME_GUARD=fix with {opt_in}")
    assert said(warning.suggested("TPL999", "could", None, "s.py:3")) == (
        "suggested", "could", APPLY_FIX_MODE)


def test_a_fix_is_off_until_installed_and_one_without_codes_fails_as_tpl900():
    from runtime_guard.fixes.base import Fix

    class CannotInstall(Fix):
        name = "probe"

        def _install(self):
            raise RuntimeError("no such attribute in this torch")  # RAISED HERE

    probe = _probe_guard("fix")
    fix = CannotInstall(probe)
    assert fix.active is False and fix.codes == ()
    fix.install()  # the failure is reported, not raised
    assert fix.active is False
    line = [n for n, text in enumerate(open(__file__), 1) if text.endswith("# RAISED HERE\n")][0]
    (event,) = probe.log.events()
    assert (event.code, event.action, event.detail) == (
        "TPL900", "left alone", "internal failure in probe install: RuntimeError: no such "
        f"attribute in this torch (test_rg_core.py:{line}); fix disabled")
