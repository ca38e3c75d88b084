"""TPL201 under torchrun with more processes on a node than GPUs (``--nproc_per_node=2`` on a
one-GPU machine): found on a lent H100, where the guard's DDP tried ``cuda.set_device(1)`` on
rank 1 ("invalid device ordinal") and reported an internal failure. Every rank now leaves
DataParallel as written, with the reason, decided from facts all ranks share, so no rank builds a
DDP whose collectives the others never join. CUDA is faked here (the count of GPUs is what
matters); nothing is moved to a device."""
import torch
import torch.distributed as dist
from torch import nn

from _rg_helpers import events


def _torchrun_env(monkeypatch, local_rank, local_world, gpus):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    monkeypatch.setenv("WORLD_SIZE", str(local_world))
    monkeypatch.setenv("RANK", str(local_rank))
    monkeypatch.setenv("LOCAL_RANK", str(local_rank))
    monkeypatch.setenv("LOCAL_WORLD_SIZE", str(local_world))


def _replacement_on_every_rank(guard, monkeypatch, local_world, gpus):
    results = []
    for rank in range(local_world):
        _torchrun_env(monkeypatch, rank, local_world, gpus)
        guard.install(mode="fix", device="cuda", fixes="ddp")
        fix = guard.GUARD.fixes["ddp"]
        results.append(fix.replacement(nn.Linear(4, 2)))
        assert not dist.is_initialized()
        yield results[-1], events(guard, "TPL201")
        guard.uninstall()
        guard.GUARD.log.clear()


def test_two_processes_on_one_gpu_keep_dataparallel_on_every_rank(guard, monkeypatch):
    seen = list(_replacement_on_every_rank(guard, monkeypatch, local_world=2, gpus=1))
    assert len(seen) == 2
    for replacement, found in seen:
        assert replacement is None
        (event,) = found
        assert (event.action, event.detail) == (
            "left alone", "2 processes on this node but 1 GPU visible: DistributedDataParallel on "
            "CUDA needs one GPU per process (torchrun --nproc_per_node=1); DataParallel kept as "
            "written")


def test_four_processes_on_two_gpus_said_in_the_plural(guard, monkeypatch):
    replacement, found = next(_replacement_on_every_rank(guard, monkeypatch, local_world=4, gpus=2))
    assert replacement is None
    assert found[0].detail.startswith("4 processes on this node but 2 GPUs visible: ")
    assert "(torchrun --nproc_per_node=2)" in found[0].detail


def test_a_gpu_per_process_is_no_reason_to_keep_dataparallel(monkeypatch):
    from runtime_guard.fixes.ddp import _ranks_without_a_gpu

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    for local_world, local_rank in ((2, 0), (2, 1), (1, 0)):
        monkeypatch.setenv("LOCAL_WORLD_SIZE", str(local_world))
        assert _ranks_without_a_gpu(local_rank) == ""
    monkeypatch.delenv("LOCAL_WORLD_SIZE")  # launched without torchrun's variable: the rank decides
    assert _ranks_without_a_gpu(1) == "" and _ranks_without_a_gpu(2).startswith("3 processes")
