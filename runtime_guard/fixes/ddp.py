"""TPL201/TPL202: ``nn.DataParallel`` replaced by ``DistributedDataParallel``.

DataParallel runs one process that scatters every batch over the GPUs, replicates the model each
step and gathers outputs on GPU 0: the GIL and the copies make it slower than one process per GPU.
The guard intercepts ``DataParallel.__init__`` on the class, which catches ``nn.DataParallel``,
``from torch.nn import DataParallel`` and ``torch.nn.parallel.DataParallel`` alike (replacing the
module attribute would catch only one spelling), and builds the replacement in place (see the
comment in ``_install``). Subclasses of DataParallel are left alone.

What happens depends on how the script was started:
- by torchrun (WORLD_SIZE > 1): the module becomes a DDP, after starting the process group if the
  script did not (nccl on CUDA, gloo on CPU) and moving the module to the local device. BatchNorm
  becomes SyncBatchNorm only on CUDA (on CPU SyncBatchNorm raises in training). DDP's state_dict
  keys carry the same ``module.`` prefix as DataParallel's, so checkpoints load both ways.
  Training loaders are then sharded with a DistributedSampler at their first pass (see
  ``shard_loader``), or every rank would train on the whole dataset.
- one visible GPU, no torchrun: a wrapper with no scatter/gather/replicate that keeps the keys.
- several GPUs, no torchrun: a message with the exact torchrun command; RUNTIME_GUARD_LAUNCH=1
  re-executes the script that way.
- CPU only, no torchrun: DataParallel just calls the module there; left alone and reported.
"""

from __future__ import annotations

import atexit
import os
import shlex
import sys
import weakref

import torch
import torch.nn as nn
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler

from torchperf_lint.catalog import RUNTIME_DDP, RUNTIME_SYNCBN

from .base import Fix

CODE = "TPL201"
SYNCBN_CODE = "TPL202"


class SingleDeviceParallel(nn.Module):
    """What DataParallel does on one device, without its per-step replicate/scatter/gather.

    The wrapped module lives in ``self.module`` so state_dict keys keep DataParallel's ``module.``
    prefix and checkpoints stay interchangeable.
    """

    def __init__(self, module: nn.Module, device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.dim = dim
        self.device = device

    def forward(self, *inputs, **kwargs):
        if self.device is not None and self.device.type != "cpu":
            # DataParallel scatters inputs to its device; keep that for inputs still on the host.
            inputs, kwargs = _to_device((inputs, kwargs), self.device)
        return self.module(*inputs, **kwargs)


def _to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=True) if obj.device != device else obj
    if isinstance(obj, tuple):
        return tuple(_to_device(o, device) for o in obj)
    if isinstance(obj, list):
        return [_to_device(o, device) for o in obj]
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def world_size() -> int:
    try:
        return int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return 1


def torchrun_command(nproc: int) -> list:
    script = sys.argv[0] if sys.argv and sys.argv[0] else None
    if script is None or script == "-c":
        return []
    return ["torchrun", "--standalone", f"--nproc_per_node={nproc}", script, *sys.argv[1:]]


class DDPFix(Fix):
    name = RUNTIME_DDP
    codes = (CODE, SYNCBN_CODE)

    def _install(self):
        self.converted = weakref.WeakSet()  # DDP modules the guard made from a DataParallel
        self.decided = weakref.WeakKeyDictionary()  # loader -> sharded or not, decided once
        self.started_group = False
        fix = self
        dp = nn.DataParallel
        original_init = dp.__init__

        def __init__(obj, module, device_ids=None, output_device=None, dim=0):
            if type(obj) is dp and fix.active:
                try:
                    if fix.replace(obj, module, device_ids, output_device, dim):
                        return
                except Exception as exc:
                    fix.fail(exc, "DataParallel")
                    # A replacement that failed half-way leaves a partly built object: start
                    # over as the DataParallel the script asked for.
                    object.__setattr__(obj, "__class__", dp)
                    obj.__dict__.clear()
            original_init(obj, module, device_ids, output_device, dim)

        # Why __init__ and not __new__ (which torch-facts suggests): both catch every import path
        # (nn.DataParallel, from torch.nn import DataParallel, torch.nn.parallel.DataParallel are
        # one class object), but once __new__ has been set on a class CPython cannot put its
        # C-level slot back: after deleting it, DataParallel(module) raises "object.__new__()
        # takes exactly one argument", so uninstall() could not restore DataParallel exactly.
        # __init__ is DataParallel's own attribute and restores identically. The replacement is
        # built in place: the fresh, not yet initialised object changes class and runs the
        # replacement's __init__.
        self.patch(dp, "__init__", __init__)
        original_iter = DataLoader.__iter__

        def __iter__(loader):
            if fix.active and fix.converted:
                try:
                    fix.shard_loader(loader)
                except Exception as exc:
                    fix.fail(exc, "DataLoader sharding")
            return original_iter(loader)

        self.patch(DataLoader, "__iter__", __iter__)

    # -- DataParallel ------------------------------------------------------------------------
    def replace(self, obj, module, device_ids=None, output_device=None, dim=0):
        """Turn ``obj`` (a fresh DataParallel) into its replacement; False keeps DataParallel."""
        made = self.replacement(module, device_ids, dim)
        if made is None:
            return False
        cls, args, kwargs = made
        object.__setattr__(obj, "__class__", cls)
        cls.__init__(obj, *args, **kwargs)
        self.after_replace(obj)
        return True

    def after_replace(self, obj):
        from torch.nn.parallel import DistributedDataParallel as DDP
        if isinstance(obj, DDP):
            import torch.distributed as dist
            self.converted.add(obj)
            self.fixed(CODE, f"DataParallel -> DistributedDataParallel (rank {dist.get_rank()} of "
                             f"{dist.get_world_size()}, {dist.get_backend()}); state_dict keys kept",
                       location=self._location)
        else:
            self.fixed(CODE, self._single_detail, location=self._location)

    def replacement(self, module, device_ids=None, dim=0):
        """(class, args, kwargs) of what DataParallel(module) becomes, or None to keep it."""
        from ..events import user_location
        self._location = user_location(1)
        world = world_size()
        if world > 1:
            return self._to_ddp(module, dim)
        if torch.cuda.is_available() and self.config.device_type == "cuda":
            ngpu = len(device_ids) if device_ids else torch.cuda.device_count()
            if ngpu <= 1:
                return self._single_device(module, device_ids, dim)
            return self._several_gpus(ngpu)
        self.observed(CODE, "DataParallel on CPU only just calls the module: left alone. With "
                            "GPUs use DistributedDataParallel under torchrun (one process per GPU)")
        return None

    def _to_ddp(self, module, dim):
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP

        if isinstance(module, DDP):
            # A DataParallel of a DDP: a pass-through wrapper keeps DataParallel's keys
            # (module.module.…) without replicating the DDP every step.
            if not self.fixing:
                self.observed(CODE, "DataParallel of a DistributedDataParallel: remove it")
                return None
            self._single_detail = "DataParallel of a DistributedDataParallel -> pass-through"
            return SingleDeviceParallel, (module, None, dim), {}
        world = world_size()
        cuda = self.config.device_type == "cuda" and torch.cuda.is_available()
        if not self.fixing:
            self.observed(CODE, f"DataParallel under torchrun (WORLD_SIZE={world}): every process "
                                "trains the whole model on the whole data; use "
                                "DistributedDataParallel with a DistributedSampler")
            return None
        if not any(p.requires_grad for p in module.parameters()):
            # DDP raises on a module with nothing to train; DataParallel is harmless there.
            self.skipped(CODE, "module has no trainable parameters: DataParallel kept")
            return None
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        if not dist.is_initialized():
            backend = "nccl" if cuda else "gloo"
            if cuda:
                torch.cuda.set_device(local_rank)
            dist.init_process_group(backend=backend)
            self.started_group = True
            atexit.register(_destroy_group)
        if cuda:
            device = torch.device("cuda", local_rank)
            module = module.to(device)
        converted = module
        if cuda and world > 1 and self.guard.config.wants(RUNTIME_SYNCBN):
            if any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in module.modules()):
                converted = nn.SyncBatchNorm.convert_sync_batchnorm(module)
                self.fixed(SYNCBN_CODE, "BatchNorm converted to SyncBatchNorm so batch statistics "
                                        "cover the global batch")
        if cuda:
            return DDP, (converted,), dict(device_ids=[local_rank], output_device=local_rank,
                                           dim=dim)
        # On CPU device_ids must stay unset (device_ids=[0] raises for a CPU module).
        return DDP, (converted,), dict(dim=dim)

    def _single_device(self, module, device_ids, dim):
        if not self.fixing:
            self.observed(CODE, "DataParallel on one GPU replicates, scatters and gathers every "
                                "step for nothing; call the module directly")
            return None
        index = device_ids[0] if device_ids else 0
        device = torch.device("cuda", index.index if isinstance(index, torch.device) else index)
        module = module.to(device)
        self._single_detail = "DataParallel on one GPU -> direct call (same state_dict keys)"
        return SingleDeviceParallel, (module, device, dim), {}

    def _several_gpus(self, ngpu):
        cmd = torchrun_command(ngpu)
        text = " ".join(shlex.quote(c) for c in cmd) if cmd else \
            f"torchrun --standalone --nproc_per_node={ngpu} your_script.py"
        if self.config.launch and cmd and self.fixing:
            self.fixed(CODE, f"relaunching under torchrun: {text}")
            print(f"runtime_guard: TPL201 relaunching as: {text}", file=sys.stderr, flush=True)
            sys.stdout.flush()
            argv = [sys.executable, "-m", "torch.distributed.run"] + cmd[1:]
            os.execv(sys.executable, argv)
        print(f"runtime_guard: TPL201 DataParallel over {ngpu} GPUs is slower than one process "
              f"per GPU. Run:\n    {text}\n(the guard turns DataParallel into "
              f"DistributedDataParallel there; RUNTIME_GUARD_LAUNCH=1 relaunches for you)",
              file=sys.stderr, flush=True)
        self.observed(CODE, f"{ngpu} GPUs without torchrun: run {text}")
        return None

    # -- loaders -------------------------------------------------------------------------------
    def _training(self) -> bool:
        return torch.is_grad_enabled() and any(m.training for m in list(self.converted))

    def shard_loader(self, loader):
        """Give a loader a DistributedSampler at its first pass after a conversion.

        Only loaders iterated while a converted model trains are sharded: the ranks then share the
        training data like DDP expects. An evaluation loader (model in eval mode or grad off) keeps
        its full order, so metrics computed on it stay those of the whole set.
        """
        if loader in self.decided:
            return
        import torch.distributed as dist

        if not dist.is_initialized():
            return
        if not self._training():
            self.decided[loader] = False
            return
        self.shard_now(loader)

    def shard_now(self, loader):
        import torch.distributed as dist
        from torch.utils.data.distributed import DistributedSampler

        self.decided[loader] = True
        sampler = loader.sampler
        if isinstance(sampler, DistributedSampler):
            return
        batch_sampler = loader.batch_sampler
        if not isinstance(sampler, (RandomSampler, SequentialSampler)) or (
                batch_sampler is not None and type(batch_sampler) is not BatchSampler):
            self.skipped(CODE, f"loader with a custom sampler ({type(sampler).__name__}) not "
                               "sharded: each rank reads all of it")
            return
        if isinstance(sampler, RandomSampler) and (sampler.replacement or
                                                   sampler._num_samples is not None):
            self.skipped(CODE, "loader with a sampling-with-replacement sampler not sharded")
            return
        if not self.fixing:
            self.observed(CODE, "every rank reads the whole dataset; use a DistributedSampler")
            return
        shuffle = isinstance(sampler, RandomSampler)
        seed = 0
        if loader.generator is not None:
            seed = loader.generator.initial_seed()
        dsampler = DistributedSampler(loader.dataset, num_replicas=dist.get_world_size(),
                                      rank=dist.get_rank(), shuffle=shuffle, seed=seed,
                                      drop_last=False)
        # DataLoader forbids setting these after __init__; the loader has not built an iterator
        # (this is its first pass), so replacing them is what __init__ would have done.
        object.__setattr__(loader, "sampler", dsampler)
        if batch_sampler is not None:
            object.__setattr__(loader, "batch_sampler",
                               BatchSampler(dsampler, batch_sampler.batch_size,
                                            batch_sampler.drop_last))
        object.__setattr__(loader, "_iterator", None)
        self.fixed(CODE, f"loader sharded with DistributedSampler(shuffle={shuffle}) over "
                         f"{dist.get_world_size()} ranks (drop_last kept)")


def _destroy_group():
    try:
        import torch.distributed as dist
        if dist.is_initialized():
            dist.destroy_process_group()
    except Exception:
        pass
