"""TPL501/TPL502 loader defaults and TPL204 automatic set_epoch (single process).

By default the guard never touches a dataset in the main process (no sample, no pickling) and
only *suggests* worker processes; ``loader_workers`` / ``persistent_workers`` opt in.
"""
import os
import random
import time

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, get_worker_info
from torch.utils.data.distributed import DistributedSampler

from _rg_helpers import events

from torchperf_lint.analysis.in_memory import runtime_in_memory_reason


class Slow(Dataset):
    """A map-style dataset whose samples cost something to make (like decoding a file)."""

    def __init__(self, n=24):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(0.0002)
        return torch.full((2,), float(i)), i


class FailsInWorkers(Slow):
    def __getitem__(self, i):
        if get_worker_info() is not None:
            raise RuntimeError("this dataset cannot run in a worker")
        return super().__getitem__(i)


class OwnRandom(Dataset):
    """Augmentation from the dataset's own seeded generator: any call in the parent (or splitting
    the indices over workers) shifts every later draw."""

    def __init__(self, n=12):
        self.n = n
        self.rng = random.Random(1234)
        self.parent_calls = 0
        self.pid = os.getpid()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if os.getpid() == self.pid:
            self.parent_calls += 1
        return torch.tensor([float(i), self.rng.random()]), i


class LazyFile(Dataset):
    """Opens its file at the first sample: opened in the parent, forked workers would share it."""

    def __init__(self):
        self.handle = None

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if self.handle is None:
            self.handle = open(os.devnull, "rb")
        return i


class NoPickle(Slow):
    """Pickling it (the old check copied every tensor of a 768 MiB dataset) must never happen."""

    pickled = 0

    def __reduce_ex__(self, protocol):
        NoPickle.pickled += 1
        return super().__reduce_ex__(protocol)


class Curriculum(Slow):
    """A dataset the script changes between epochs."""

    def __init__(self):
        super().__init__(8)
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __getitem__(self, i):
        return torch.tensor([float(self.epoch)]), i


def _batches(loader, epochs=3):
    return [[b[1].tolist() for b in loader] for _ in range(epochs)]


def test_workers_only_suggested_and_dataset_never_touched(guard):
    guard.install(mode="fix", device="cpu")
    own, lazy, nopickle = OwnRandom(), LazyFile(), NoPickle()
    loaders = [DataLoader(d, batch_size=2) for d in (own, lazy, nopickle)]
    assert all(loader.num_workers == 0 for loader in loaders)
    assert own.parent_calls == 0 and lazy.handle is None and NoPickle.pickled == 0
    suggested = events(guard, "TPL501", "suggested")
    assert len(suggested) == 1 and suggested[0].count == 3
    assert "RUNTIME_GUARD_UNSAFE=loader_workers" in suggested[0].apply
    assert not events(guard, "TPL501", "fixed")


def test_dataset_with_its_own_generator_yields_the_same_samples(guard):
    guard.install(mode="fix", device="cpu")
    got = [b[0] for b in DataLoader(OwnRandom(), batch_size=3)]
    guard.uninstall()
    plain = [b[0] for b in DataLoader(OwnRandom(), batch_size=3)]
    assert len(got) == len(plain) == 4
    assert all(torch.equal(a, b) for a, b in zip(got, plain))


def test_in_memory_left_alone_with_the_linters_reason(guard):
    guard.install(mode="fix", device="cpu")
    ds = TensorDataset(torch.arange(8.0))
    loader = DataLoader(ds, batch_size=2)
    assert loader.num_workers == 0
    (ev,) = events(guard, "TPL501", "left alone")
    assert runtime_in_memory_reason(ds) in ev.detail


def test_opt_in_applies_workers_with_same_batches_and_not_persistent(guard):
    guard.install(mode="fix", device="cpu", unsafe="loader_workers")
    loader = DataLoader(Slow(), batch_size=4, shuffle=True,
                        generator=torch.Generator().manual_seed(3))
    assert loader.num_workers >= 1 and not loader.persistent_workers
    got = _batches(loader)
    guard.uninstall()
    plain = DataLoader(Slow(), batch_size=4, shuffle=True,
                       generator=torch.Generator().manual_seed(3))
    assert plain.num_workers == 0
    assert got == _batches(plain)
    (ev,) = events(guard, "TPL501", "fixed")
    assert "opted in" in ev.detail
    assert events(guard, "TPL501", "suggested")[0].apply.startswith(
        "RUNTIME_GUARD_UNSAFE=persistent_workers")


def test_opt_in_by_environment_and_code():
    from _rg_helpers import run_python
    code = """
    import runtime_guard, time, torch
    from torch.utils.data import DataLoader, Dataset
    class D(Dataset):
        def __len__(self): return 4
        def __getitem__(self, i): return i
    assert runtime_guard.GUARD.config.unsafe == {"loader_workers"}, runtime_guard.GUARD.config
    assert DataLoader(D(), batch_size=2).num_workers >= 1
    """
    run_python(code, RUNTIME_GUARD_UNSAFE="TPL501")


def test_dataset_changed_between_epochs_is_seen_by_workers(guard):
    guard.install(mode="fix", device="cpu", unsafe="loader_workers")
    ds = Curriculum()
    loader = DataLoader(ds, batch_size=4)
    assert loader.num_workers >= 1 and not loader.persistent_workers
    seen = []
    for epoch in range(3):
        ds.set_epoch(epoch)
        seen.append({float(v) for b in loader for v in b[0].flatten()})
    assert seen == [{0.0}, {1.0}, {2.0}]


def test_persistent_workers_only_on_their_own_opt_in(guard):
    guard.install(mode="fix", device="cpu", unsafe="loader_workers,persistent_workers")
    torch.manual_seed(11)
    loader = DataLoader(Slow(16), batch_size=4, shuffle=True)
    assert loader.num_workers >= 1 and loader.persistent_workers
    got, after = _batches(loader), torch.rand(3)
    guard.uninstall()
    torch.manual_seed(11)
    plain = DataLoader(Slow(16), batch_size=4, shuffle=True)
    assert got == _batches(plain) and torch.equal(after, torch.rand(3))


def test_worker_failure_at_first_batch_falls_back(guard):
    guard.install(mode="fix", device="cpu", unsafe="loader_workers")
    torch.manual_seed(5)
    loader = DataLoader(FailsInWorkers(), batch_size=4, shuffle=True)
    assert loader.num_workers >= 1
    got = _batches(loader)
    assert loader.num_workers == 0
    ev = events(guard, "TPL501", "left alone")
    assert ev and "first batch" in ev[0].detail
    guard.uninstall()
    torch.manual_seed(5)
    plain = DataLoader(FailsInWorkers(), batch_size=4, shuffle=True)
    assert got == _batches(plain)  # the order the user's own settings give


def test_explicit_zero_and_pin_memory_on_cpu(guard):
    guard.install(mode="fix", device="cpu", unsafe="loader_workers")
    loader = DataLoader(Slow(), batch_size=2, num_workers=0)
    assert loader.num_workers == 0 and loader.pin_memory is False
    assert "explicitly" in events(guard, "TPL501", "left alone")[0].detail
    assert not events(guard, "TPL502")


def _orders(ds):
    sampler = DistributedSampler(ds, num_replicas=1, rank=0, shuffle=True)
    loader = DataLoader(ds, batch_size=8, sampler=sampler)
    return [[x for b in loader for x in b[0].tolist()] for _ in range(3)], sampler


def test_set_epoch_of_the_scripts_sampler_is_suggested(guard):
    ds = TensorDataset(torch.arange(32))
    guard.install(mode="fix", device="cpu")
    seen, sampler = _orders(ds)
    assert seen[0] == seen[1] == seen[2] and sampler.epoch == 0  # unchanged: the script's order
    (ev,) = events(guard, "TPL204", "suggested")
    assert "RUNTIME_GUARD_UNSAFE=set_epoch" in ev.apply


def test_set_epoch_called_each_new_pass_on_opt_in(guard):
    ds = TensorDataset(torch.arange(32))
    guard.install(mode="fix", device="cpu", unsafe="TPL204")
    fixed, sampler = _orders(ds)
    assert fixed[0] != fixed[1] != fixed[2] and sampler.epoch == 2
    assert events(guard, "TPL204", "fixed")[0].count == 2
    guard.uninstall()
    plain, _ = _orders(ds)
    assert plain[0] == plain[1] == plain[2] == fixed[0]


def test_set_epoch_left_to_a_script_that_calls_it(guard):
    ds = TensorDataset(torch.arange(16))
    guard.install(mode="fix", device="cpu", unsafe="set_epoch")
    sampler = DistributedSampler(ds, num_replicas=1, rank=0, shuffle=True)
    loader = DataLoader(ds, batch_size=4, sampler=sampler)
    seen = []
    for _ in range(3):
        sampler.set_epoch(7)  # the script's own choice: same order each time
        seen.append([x for b in loader for x in b[0].tolist()])
    assert seen[0] == seen[1] == seen[2] and sampler.epoch == 7
    assert not events(guard, "TPL204")


def test_explicit_workers_without_persistence_get_the_persistent_suggestion(guard):
    guard.install(mode="fix", device="cpu")
    loader = DataLoader(Slow(8), batch_size=4, num_workers=2)
    assert loader.num_workers == 2 and not loader.persistent_workers  # nothing changed
    (event,) = events(guard, "TPL501")
    assert event.action == "suggested" and event.apply.startswith("RUNTIME_GUARD_UNSAFE=persistent")
    assert event.detail.startswith("workers start again every epoch; persistent_workers=True")


def test_no_workers_offered_inside_a_worker_process(guard, monkeypatch):
    import multiprocessing

    guard.install(mode="fix", device="cpu", unsafe="loader_workers")

    class Daemon:
        daemon = True

    monkeypatch.setattr(multiprocessing, "current_process", lambda: Daemon())
    loader = DataLoader(Slow(8), batch_size=4)
    assert loader.num_workers == 0
    (event,) = events(guard, "TPL501")
    assert (event.action, event.detail) == (
        "left alone", "num_workers left at 0: already inside a worker process")


def test_worker_count_leaves_a_core_per_process(monkeypatch):
    from runtime_guard.fixes import loader_defaults

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(12)), raising=False)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert loader_defaults.worker_count() == 5  # 12 cores / 2 processes - 1
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    assert loader_defaults.worker_count() == 8  # at most 8
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "")  # set but empty: one process
    assert loader_defaults.worker_count() == 8
    monkeypatch.delattr(os, "sched_getaffinity")  # macOS, Windows: all the machine's cores
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert loader_defaults.worker_count() == 3


def test_the_first_pass_iterator_is_itself_iterable(guard):
    """``for batch in iter(loader)`` (or zip/islice over it) calls iter() on the iterator the
    guard's first pass returns: it must give the same batches as the plain loader's."""
    import itertools

    def run():
        loader = DataLoader(Slow(12), batch_size=4, shuffle=True,
                            generator=torch.Generator().manual_seed(3))
        first = [b[1].tolist() for b in iter(loader)]
        second = [b[1].tolist() for b in itertools.islice(iter(loader), 2)]
        return loader.num_workers, first, second

    guard.install(mode="fix", device="cpu", unsafe="loader_workers")
    workers, *got = run()
    assert workers >= 1
    guard.uninstall()
    plain_workers, *plain = run()
    assert plain_workers == 0 and got == plain and len(plain[0]) == 3


def _fake_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)


def test_pin_memory_set_for_a_cuda_target_and_said(guard, monkeypatch):
    _fake_cuda(monkeypatch)
    guard.install(mode="fix", device="cuda", fixes="loader_defaults")
    loader = DataLoader(Slow(8), batch_size=4)
    assert loader.pin_memory is True
    (event,) = events(guard, "TPL502")
    assert (event.action, event.detail, event.apply) == (
        "fixed", "pin_memory=True: the loader feeds CUDA (faster, asynchronous copies; same "
        "values)", "")
    made_at = test_pin_memory_set_for_a_cuda_target_and_said.__code__.co_firstlineno + 3
    assert event.location == f"{__file__}:{made_at}"  # the DataLoader(...) line


def test_pin_memory_only_suggested_in_warn_mode(guard, monkeypatch):
    from runtime_guard.fixes.base import APPLY_FIX_MODE

    _fake_cuda(monkeypatch)
    guard.install(mode="warn", device="cuda", fixes="loader_defaults")
    loader = DataLoader(Slow(8), batch_size=4)
    assert loader.pin_memory is False
    (event,) = events(guard, "TPL502")
    assert (event.action, event.apply) == ("suggested", APPLY_FIX_MODE)
    assert event.detail.startswith("pin_memory=True: the loader feeds CUDA")
