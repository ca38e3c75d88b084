"""TPL501/TPL502 loader defaults and TPL204 automatic set_epoch (single process)."""
import time

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, get_worker_info
from torch.utils.data.distributed import DistributedSampler

from _rg_helpers import events


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


class Random(Slow):
    def __getitem__(self, i):
        time.sleep(0.0002)
        return torch.rand(2), i


def _batches(loader, epochs=3):
    return [[b[1].tolist() for b in loader] for _ in range(epochs)]


def test_workers_raised_for_a_slow_dataset_with_same_batches(guard):
    guard.install(mode="fix", device="cpu")
    loader = DataLoader(Slow(), batch_size=4, shuffle=True,
                        generator=torch.Generator().manual_seed(3))
    assert loader.num_workers >= 1 and loader.persistent_workers
    got = _batches(loader)
    guard.uninstall()
    plain = DataLoader(Slow(), batch_size=4, shuffle=True,
                       generator=torch.Generator().manual_seed(3))
    assert plain.num_workers == 0
    assert got == _batches(plain)
    ev = events(guard, "TPL501", "fixed")
    assert len(ev) == 1 and ev[0].location.endswith("test_rg_loaders.py:44")


def test_workers_keep_the_global_random_stream(guard):
    guard.install(mode="fix", device="cpu")
    torch.manual_seed(11)
    loader = DataLoader(Slow(16), batch_size=4, shuffle=True)
    assert loader.num_workers >= 1
    got, after = _batches(loader), torch.rand(3)
    guard.uninstall()
    torch.manual_seed(11)
    plain = DataLoader(Slow(16), batch_size=4, shuffle=True)
    assert got == _batches(plain) and torch.equal(after, torch.rand(3))


def test_workers_left_alone_where_unsafe_or_useless(guard):
    guard.install(mode="fix", device="cpu")
    cases = [
        DataLoader(TensorDataset(torch.arange(8.0)), batch_size=2),  # in-memory tensors
        DataLoader(Random(), batch_size=2),  # draws random numbers: workers would change them
        DataLoader(Slow(), batch_size=2, num_workers=0),  # the user's explicit choice
    ]
    assert all(loader.num_workers == 0 for loader in cases)
    details = " ".join(e.detail for e in events(guard, "TPL501"))
    assert "TensorDataset" in details and "random" in details and "explicitly" in details
    # Probing the dataset restored the global generator: the script's draws are unchanged.
    torch.manual_seed(0)
    DataLoader(Random(), batch_size=2)
    after = torch.rand(1)
    torch.manual_seed(0)
    assert torch.equal(after, torch.rand(1))


def test_worker_failure_at_first_batch_falls_back(guard):
    guard.install(mode="fix", device="cpu")
    torch.manual_seed(5)
    loader = DataLoader(FailsInWorkers(), batch_size=4, shuffle=True)
    assert loader.num_workers >= 1
    got = _batches(loader)
    assert loader.num_workers == 0
    ev = events(guard, "TPL501", "skipped")
    assert ev and "first batch" in ev[0].detail
    guard.uninstall()
    torch.manual_seed(5)
    plain = DataLoader(FailsInWorkers(), batch_size=4, shuffle=True)
    assert got == _batches(plain)  # the order the user's own settings give


def test_pin_memory_only_for_cuda(guard):
    guard.install(mode="fix", device="cpu")
    assert DataLoader(Slow(), batch_size=2).pin_memory is False
    assert not events(guard, "TPL502")


def test_set_epoch_called_each_new_pass(guard):
    ds = TensorDataset(torch.arange(32))

    def orders(**kw):
        sampler = DistributedSampler(ds, num_replicas=1, rank=0, shuffle=True)
        loader = DataLoader(ds, batch_size=8, sampler=sampler)
        return [[x for b in loader for x in b[0].tolist()] for _ in range(3)], sampler

    guard.install(mode="fix", device="cpu")
    fixed, sampler = orders()
    assert fixed[0] != fixed[1] != fixed[2] and sampler.epoch == 2
    assert events(guard, "TPL204", "fixed")[0].count == 2
    guard.uninstall()
    plain, _ = orders()
    assert plain[0] == plain[1] == plain[2] == fixed[0]


def test_set_epoch_left_to_a_script_that_calls_it(guard):
    ds = TensorDataset(torch.arange(16))
    guard.install(mode="fix", device="cpu")
    sampler = DistributedSampler(ds, num_replicas=1, rank=0, shuffle=True)
    loader = DataLoader(ds, batch_size=4, sampler=sampler)
    seen = []
    for _ in range(3):
        sampler.set_epoch(7)  # the script's own choice: same order each time
        seen.append([x for b in loader for x in b[0].tolist()])
    assert seen[0] == seen[1] == seen[2] and sampler.epoch == 7
    assert not events(guard, "TPL204")
