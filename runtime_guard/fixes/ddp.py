"""TPL201/TPL202: ``nn.DataParallel`` replaced by ``DistributedDataParallel``.

DataParallel runs one process that scatters every batch over the GPUs, replicates the model each
step and gathers outputs on GPU 0: the GIL and the copies make it slower than one process per GPU.
The guard intercepts ``DataParallel.__init__`` on the class, which catches ``nn.DataParallel``,
``from torch.nn import DataParallel`` and ``torch.nn.parallel.DataParallel`` alike (replacing the
module attribute would catch only one spelling), and builds the replacement in place (see the
comment in ``_install``). Subclasses of DataParallel are left alone.

What happens depends on how the script was started:
- by torchrun (WORLD_SIZE > 1): the module becomes a DDP, after starting the process group if the
  script did not (nccl on CUDA, gloo on CPU) and moving the module to the local device. The object
  is a ``DataParallelDDP``: a DistributedDataParallel that is also an ``nn.DataParallel``, so
  ``model.module if isinstance(model, nn.DataParallel) else model`` still finds the bare network,
  ``state_dict`` keys carry DataParallel's ``module.`` prefix, and ``torch.save(model)`` /
  ``copy.deepcopy`` produce the plain ``nn.DataParallel`` the script asked for (loadable in a
  process without the guard or a process group). BatchNorm becomes SyncBatchNorm only on CUDA and
  only on opt-in (``RUNTIME_GUARD_UNSAFE=syncbn``): DataParallel computes batch statistics per GPU,
  as DDP does; SyncBatchNorm changes them. Training loaders are sharded with a DistributedSampler at
  their first pass in training mode (see ``shard_loader``), or every rank would train on the whole
  dataset; a pass under ``eval()``/``no_grad`` (an initial validation) is not a training pass.
- Invariants checked while the run goes on, with a fallback that never crashes and keeps ranks
  equal: parameters that get no gradient (DDP would raise "Expected to have finished reduction in
  the prior iteration" at the next forward): found before the optimizer step, that step's gradients
  are all-reduced by the guard and DDP is rebuilt with ``find_unused_parameters=True``; parameters
  the optimizer trains outside the DDP module (only a sub-module was wrapped in DataParallel):
  broadcast from rank 0 before the first training pass and their gradients all-reduced (averaged)
  before every optimizer step, as the DDP module's own are.
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

from torch.nn.parallel import DistributedDataParallel

from torchperf_lint.catalog import RUNTIME_DDP, RUNTIME_SYNCBN

from ..config import UNSAFE_SYNCBN
from ..events import _is_internal, user_location
from .base import Fix
from .set_epoch import GUARD_MADE

CODE = "TPL201"
SYNCBN_CODE = "TPL202"


class SingleDeviceParallel(nn.DataParallel):
    """What DataParallel does on one device, without its per-step replicate/scatter/gather.

    The wrapped module lives in ``self.module`` so state_dict keys keep DataParallel's ``module.``
    prefix and checkpoints stay interchangeable; it is an ``nn.DataParallel`` for isinstance checks
    and pickles as the plain DataParallel the script asked for.
    """

    def __init__(self, module: nn.Module, device=None, dim: int = 0):
        nn.Module.__init__(self)  # not DataParallel's: that one replicates over every GPU
        self.module = module
        self.dim = dim
        self.device = device

    def __reduce_ex__(self, protocol):
        return _reduce_as(_as_data_parallel(self), protocol)

    def __deepcopy__(self, memo):
        import copy
        return copy.deepcopy(_as_data_parallel(self), memo)

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


class GuardedDDP(DistributedDataParallel):
    """A DistributedDataParallel the guard made: same computation, plus two fallbacks.

    ``forward`` catches DDP's "Expected to have finished reduction in the prior iteration" (a
    parameter got no gradient, or a training forward had no backward): the reducer is rebuilt with
    ``find_unused_parameters=True`` and the forward runs again. The usual case never gets there:
    the guard's optimizer pre-hook finds the unfinished reduction before the step (see
    ``DDPFix.before_step``)."""

    _rg_fix = None  # the DDPFix that reports for this module

    def _rg_watch(self):
        """Count, per parameter, the gradients accumulated since the last training forward.

        DDP all-reduces one backward per forward: a second backward of the same forward
        (``loss_a.backward(retain_graph=True); loss_b.backward()``, harmless under DataParallel)
        accumulates each rank's own gradients on top. The guard then averages the whole .grad
        before the step: the first part is already equal on every rank, so the average is exactly
        the all-reduced sum. It does so at the end of that backward (a callback queued on the
        autograd engine, as DDP queues its own), so code reading ``.grad`` after ``backward()``
        sees what the single DataParallel process would have; the step pre-hook is the fallback."""
        state = {"generation": 0, "seen": {}, "extra": False, "queued": False}
        self.__dict__["_rg_passes"] = state
        module = self.module
        # The hooks live on the parameters, which DDP's reducer holds from C++ where the
        # collector cannot see them: a strong reference back to this DDP would keep it alive.
        watched = weakref.ref(self)

        def average_now():
            state["queued"] = False
            if not state["extra"]:
                return
            state["extra"] = False
            _average([p.grad for p in module.parameters()
                      if p.grad is not None and not p.grad.is_sparse])
            ddp = watched()
            fix = ddp._rg_fix if ddp is not None else None
            if fix is not None:
                fix.fixed(CODE, "several backward passes of one forward (DDP all-reduces only "
                                "the first): the guard averages the gradients at the end of each "
                                "later backward, so every rank has the all-reduced sum")

        def counted(param):
            key = id(param)
            if state["seen"].get(key) == state["generation"]:
                state["extra"] = True
                if not state["queued"]:
                    state["queued"] = True
                    from torch.autograd import Variable
                    Variable._execution_engine.queue_callback(average_now)
            else:
                state["seen"][key] = state["generation"]

        handles = [p.register_post_accumulate_grad_hook(counted)
                   for p in self.module.parameters() if p.requires_grad]
        self.__dict__["_rg_handles"] = handles

    def forward(self, *inputs, **kwargs):
        passes = self.__dict__.get("_rg_passes")
        if passes is not None and torch.is_grad_enabled() and self.training:
            passes["generation"] += 1
        if not self.find_unused_parameters and torch.is_grad_enabled() and self.training:
            self.__dict__["_rg_trained"] = True
            try:
                return super().forward(*inputs, **kwargs)
            except RuntimeError as error:
                if "finished reduction in the prior iteration" not in str(error):
                    raise
                rebuild_with_unused(self)
                # No optimizer step of the guard's saw it coming (parameters updated by hand):
                # the last update used each rank's own gradients. Rank 0's values win, as at
                # DDP's construction, so every rank goes on with the same model.
                with torch.no_grad():
                    _broadcast([p for p in self.module.parameters()] +
                               [b for b in self.module.buffers()])
                if self._rg_fix is not None:
                    self._rg_fix.fixed(CODE, "DDP raised 'Expected to have finished reduction' "
                                             "(a parameter got no gradient): rebuilt with "
                                             "find_unused_parameters=True, parameters and buffers "
                                             "re-broadcast from rank 0; the update before used "
                                             "each rank's own gradients")
        return super().forward(*inputs, **kwargs)


class _DataParallelInit(nn.DataParallel):
    """Sits between DistributedDataParallel and DataParallel in ``DataParallelDDP``'s MRO.

    DDP's ``__init__`` calls ``super().__init__()``, which must be Module's, not DataParallel's."""

    def __init__(self, *args, **kwargs):
        if "_modules" not in self.__dict__:
            nn.Module.__init__(self)


class DataParallelDDP(GuardedDDP, _DataParallelInit):
    """The guard's replacement for ``nn.DataParallel`` under torchrun.

    A DistributedDataParallel (all of DDP's behaviour comes first in the MRO) that is also an
    ``nn.DataParallel``: isinstance checks written for DataParallel keep working. Pickles and deep
    copies are the ``nn.DataParallel`` the script asked for (what it would have saved without the
    guard), so they load in a process with no guard and no process group."""

    def __reduce_ex__(self, protocol):
        return _reduce_as(_as_data_parallel(self), protocol)

    def __deepcopy__(self, memo):
        import copy
        return copy.deepcopy(_as_data_parallel(self), memo)


def _reduce_as(dp, protocol):
    """``dp``'s pickle recipe, usable from another object (pickle insists that __newobj__'s class
    is the pickled object's; copyreg._reconstructor, the stdlib's protocol-0/1 path, makes
    ``object.__new__(DataParallel)`` without that check)."""
    import copyreg
    reduced = dp.__reduce_ex__(protocol)
    if isinstance(reduced, tuple) and len(reduced) > 1 and reduced[0] is copyreg.__newobj__:
        reduced = (copyreg._reconstructor, (type(dp), object, None)) + tuple(reduced[2:])
    return reduced


def _as_data_parallel(ddp):
    """A plain ``nn.DataParallel`` of ``ddp.module`` as the script's DataParallel call would have
    made it on this machine, built without moving anything (DataParallel.__init__ would move the
    module to GPU 0)."""
    from torch._utils import _get_all_device_indices, _get_available_device_type, \
        _get_device_index

    dp = nn.DataParallel.__new__(nn.DataParallel)
    nn.Module.__init__(dp)
    dp.module = ddp.module
    args = ddp.__dict__.get("_rg_dp_args", (None, None, 0))
    device_ids, output_device, dim = args
    device_type = _get_available_device_type()
    if device_type is None or device_type == "mps":
        dp.device_ids = []
        return dp
    ids = device_ids if device_ids is not None else _get_all_device_indices()
    dp.dim = dim
    dp.device_ids = [_get_device_index(x, True) for x in ids]
    dp.output_device = _get_device_index(output_device if output_device is not None
                                         else dp.device_ids[0], True)
    dp.src_device_obj = torch.device(device_type, dp.device_ids[0])
    return dp


def rebuild_with_unused(ddp):
    """Rebuild ``ddp``'s reducer with ``find_unused_parameters=True`` (what torch's own
    ``__setstate__`` does to build one), dropping the old reducer's autograd hooks first."""
    try:
        ddp._remove_autograd_hooks()
    except Exception:
        pass
    ddp.find_unused_parameters = True
    parameters, expect_sparse_gradient = ddp._build_params_for_reducer()
    mapping = ddp._build_debug_param_to_name_mapping(parameters)
    ddp._ddp_init_helper(parameters, expect_sparse_gradient, mapping, ddp.static_graph)


def _average(tensors, group=None):
    """All-reduce (average) tensors in place, one collective per dtype/device (flattened)."""
    import torch.distributed as dist
    from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors

    world = dist.get_world_size(group)
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    for items in groups.values():
        flat = _flatten_dense_tensors(items)
        dist.all_reduce(flat, group=group)
        flat.div_(world)
        for t, v in zip(items, _unflatten_dense_tensors(flat, items)):
            t.copy_(v)


def _broadcast(tensors, group=None):
    import torch.distributed as dist
    from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors

    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    with torch.no_grad():
        for items in groups.values():
            flat = _flatten_dense_tensors(items)
            dist.broadcast(flat, src=0, group=group)
            for t, v in zip(items, _unflatten_dense_tensors(flat, items)):
                t.copy_(v)


def _ranks_without_a_gpu(local_rank: int) -> str:
    """Why DDP on CUDA cannot be built here ("" when it can): torchrun started more processes on
    this node than it has GPUs (``--nproc_per_node=2`` on a one-GPU machine), so some rank has no
    GPU of its own (``cuda.set_device`` of that rank fails: invalid device ordinal)."""
    try:
        local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(local_rank + 1)))
    except ValueError:
        local_world = local_rank + 1
    gpus = torch.cuda.device_count()
    if max(local_world, local_rank + 1) <= gpus:
        return ""
    return (f"{local_world} processes on this node but {gpus} GPU{'s' if gpus != 1 else ''} "
            f"visible: DistributedDataParallel on CUDA needs one GPU per process (torchrun "
            f"--nproc_per_node={gpus}); DataParallel kept as written")


def world_size() -> int:
    try:
        return int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return 1


def torchrun_command(nproc: int, target=None) -> list:
    """The torchrun command that relaunches this script. ``target``: what replaces the script under
    ``python -m runtime_guard train.py`` (the guard's ``relaunch_target``, set by the runner): the
    relaunched ranks must go through the runner too, or they would run without the guard (and their
    DataParallel would stay one)."""
    if target is not None:
        return ["torchrun", "--standalone", f"--nproc_per_node={nproc}", *target, *sys.argv[1:]]
    script = sys.argv[0] if sys.argv and sys.argv[0] else None
    if script is None or script == "-c":
        return []
    return ["torchrun", "--standalone", f"--nproc_per_node={nproc}", script, *sys.argv[1:]]


class DDPFix(Fix):
    name = RUNTIME_DDP
    codes = (CODE, SYNCBN_CODE)

    def _install(self):
        self.converted = weakref.WeakSet()  # DDP modules the guard made from a DataParallel
        self.decided = weakref.WeakKeyDictionary()  # loader -> True once sharded
        self.started_group = False
        self._init_invariants()
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
        if world_size() > 1:
            original_len = DataLoader.__len__

            def __len__(loader):
                length = original_len(loader)
                if fix.active and not fix.decided.get(loader) and loader not in fix.len_read:
                    try:
                        # Only the script's own reads size something: a progress bar's (tqdm
                        # reads len() from site-packages) only shows a count.
                        if not _is_internal(sys._getframe(1).f_code.co_filename):
                            fix.len_read[loader] = (length, user_location(1))
                    except Exception as exc:
                        fix.fail(exc, "len(DataLoader)")
                return length

            self.patch(DataLoader, "__len__", __len__)
            # Only under torchrun can a conversion happen: the invariants need to know the
            # optimizers (which parameters are trained) and to run before each of their steps.
            original_opt_init = torch.optim.Optimizer.__init__

            def optimizer_init(optimizer, *args, **kwargs):
                result = original_opt_init(optimizer, *args, **kwargs)
                if fix.active:
                    fix.optimizers.add(optimizer)
                return result

            self.patch(torch.optim.Optimizer, "__init__", optimizer_init)
            from torch.optim.optimizer import register_optimizer_step_pre_hook
            handle = register_optimizer_step_pre_hook(self._pre_step)
            self.on_undo(handle.remove)

    def _init_invariants(self):
        # loader -> (its length, where the script read it) for len(loader) read before the
        # loader's first training pass (a scheduler sized by it: OneCycleLR). prepare() shards the
        # loaders it is given at once, so it never fills this.
        self.len_read = weakref.WeakKeyDictionary()
        self.optimizers = weakref.WeakSet()  # optimizers made since install
        self.outside = weakref.WeakKeyDictionary()  # optimizer -> its params outside the DDPs
        self.broadcast_done = set()  # id()s of outside params already broadcast from rank 0
        self.group_covered = weakref.WeakKeyDictionary()  # optimizer -> [DDPs it trains]

    def _pre_step(self, optimizer, args, kwargs):
        if not self.active or not self.converted:
            return None
        try:
            self.before_step(optimizer)
        except Exception as exc:
            self.fail(exc, "optimizer step")
        return None

    # -- invariants ----------------------------------------------------------------------------
    def _ddp_param_ids(self):
        ids = set()
        for ddp in list(self.converted):
            ids.update(id(p) for p in ddp.module.parameters())
        return ids

    def _outside_params(self, optimizer):
        """The trainable parameters of ``optimizer`` that no guard-made DDP holds."""
        if optimizer not in self.outside:
            covered = self._ddp_param_ids()
            self.outside[optimizer] = [p for group in optimizer.param_groups
                                       for p in group["params"]
                                       if p.requires_grad and id(p) not in covered]
        return self.outside[optimizer]

    def sync_outside(self, optimizers, where):
        """Broadcast from rank 0 the trainable parameters outside the DDP modules (once), so
        every rank starts from the same values, as DDP does for its module."""
        todo, seen = [], set()
        for optimizer in optimizers:
            for p in self._outside_params(optimizer):
                if id(p) not in self.broadcast_done and id(p) not in seen:
                    seen.add(id(p))
                    todo.append(p)
        if not todo:
            return
        _broadcast(todo)
        self.broadcast_done.update(id(p) for p in todo)
        numel = sum(p.numel() for p in todo)
        self.fixed(CODE, f"{len(todo)} trained parameter tensors ({numel} values) are outside the "
                         f"DataParallel module (only a sub-module was wrapped): broadcast from "
                         f"rank 0 {where} and their gradients all-reduced (averaged) before each "
                         "optimizer step, so every rank keeps the same model")

    def before_step(self, optimizer):
        params = {id(p) for group in optimizer.param_groups for p in group["params"]}
        # 1. Parameters without gradients: DDP (find_unused_parameters=False) left the reduction
        # unfinished, so gradients are each rank's own. Average them now, rebuild the reducer.
        for ddp in list(self.converted):
            if not ddp.__dict__.get("_rg_trained") or ddp.find_unused_parameters:
                continue
            if not any(id(p) in params for p in ddp.module.parameters()):
                continue  # another optimizer's model (a GAN's generator): its own step checks it
            ddp.__dict__["_rg_trained"] = False
            try:
                ddp._check_reducer_finalized()
                continue
            except RuntimeError:
                pass
            unused = [n for n, p in ddp.module.named_parameters()
                      if p.requires_grad and p.grad is None]
            _average([p.grad for p in ddp.module.parameters() if p.grad is not None])
            rebuild_with_unused(ddp)
            names = ", ".join(unused[:4]) + (" …" if len(unused) > 4 else "")
            self.fixed(CODE, "parameters without gradients" + (f" ({names})" if names else "") +
                             ": DDP would raise at the next forward; this step's gradients "
                             "all-reduced by the guard, DDP rebuilt with "
                             "find_unused_parameters=True")
        # 2. Several backward passes of one forward: DDP reduced only the first.
        for ddp in list(self.converted):
            passes = ddp.__dict__.get("_rg_passes")
            if not passes or not passes["extra"]:
                continue
            if not any(id(p) in params for p in ddp.module.parameters()):
                continue
            passes["extra"] = False
            _average([p.grad for p in ddp.module.parameters()
                      if p.grad is not None and not p.grad.is_sparse])
            self.fixed(CODE, "several backward passes of one forward (DDP all-reduces only the "
                             "first): the guard averages the gradients before the step, as "
                             "DataParallel's single process would have summed them")
        # 3. Parameters the optimizer trains outside every DDP module.
        outside = self._outside_params(optimizer)
        if outside:
            if any(id(p) not in self.broadcast_done for p in outside):
                self.sync_outside([optimizer], "at the first optimizer step (the first step's "
                                               "gradients came from each rank's own values)")
            grads = [p.grad for p in outside if p.grad is not None and not p.grad.is_sparse]
            if grads:
                _average(grads)

    # -- DataParallel ------------------------------------------------------------------------
    def replace(self, obj, module, device_ids=None, output_device=None, dim=0):
        """Turn ``obj`` (a fresh DataParallel) into its replacement; False keeps DataParallel."""
        made = self.replacement(module, device_ids, dim)
        if made is None:
            return False
        cls, args, kwargs = made
        object.__setattr__(obj, "__class__", cls)
        cls.__init__(obj, *args, **kwargs)
        obj.__dict__["_rg_dp_args"] = (device_ids, output_device, dim)
        self.after_replace(obj)
        return True

    def after_replace(self, obj):
        from torch.nn.parallel import DistributedDataParallel as DDP
        if isinstance(obj, DDP):
            import torch.distributed as dist
            self.converted.add(obj)
            obj._rg_fix = self
            obj._rg_watch()
            if self.guard.registry is not None:
                ref = weakref.ref(obj)
                self.on_undo(lambda: [h.remove() for h in
                                      (ref().__dict__.get("_rg_handles", ()) if ref() else ())])
            self.fixed(CODE, f"DataParallel -> DistributedDataParallel (rank {dist.get_rank()} of "
                             f"{dist.get_world_size()}, {dist.get_backend()}); state_dict keys kept",
                       location=self._location)
        else:
            self.fixed(CODE, self._single_detail, location=self._location)

    def replacement(self, module, device_ids=None, dim=0):
        """(class, args, kwargs) of what DataParallel(module) becomes, or None to keep it."""
        self._location = user_location(1)
        world = world_size()
        if world > 1:
            return self._to_ddp(module, dim)
        if torch.cuda.is_available() and self.config.device_type == "cuda":
            ngpu = len(device_ids) if device_ids else torch.cuda.device_count()
            if ngpu <= 1:
                return self._single_device(module, device_ids, dim)
            return self._several_gpus(ngpu)
        self.left_alone(CODE, "DataParallel on CPU only just calls the module. With GPUs use "
                              "DistributedDataParallel under torchrun (one process per GPU)")
        return None

    def _to_ddp(self, module, dim, as_data_parallel=True):
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP

        if isinstance(module, DDP):
            # A DataParallel of a DDP: a pass-through wrapper keeps DataParallel's keys
            # (module.module.…) without replicating the DDP every step.
            if not self.fixing:
                self.suggested(CODE, "DataParallel of a DistributedDataParallel: remove it")
                return None
            self._single_detail = "DataParallel of a DistributedDataParallel -> pass-through"
            return SingleDeviceParallel, (module, None, dim), {}
        world = world_size()
        cuda = self.config.device_type == "cuda" and torch.cuda.is_available()
        if not self.fixing:
            self.suggested(CODE, f"DataParallel under torchrun (WORLD_SIZE={world}): every process "
                                "trains the whole model on the whole data; use "
                                "DistributedDataParallel with a DistributedSampler")
            return None
        if not any(p.requires_grad for p in module.parameters()):
            # DDP raises on a module with nothing to train; DataParallel is harmless there.
            self.left_alone(CODE, "module has no trainable parameters: DataParallel kept")
            return None
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        if cuda and not dist.is_initialized():
            short = _ranks_without_a_gpu(local_rank)
            if short:
                # Decided from facts every rank of the node shares (LOCAL_WORLD_SIZE, the GPUs
                # visible), so no rank builds a DDP whose collectives the others never join.
                self.left_alone(CODE, short)
                return None
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
                if self.config.allows(UNSAFE_SYNCBN):
                    converted = nn.SyncBatchNorm.convert_sync_batchnorm(module)
                    self.fixed(SYNCBN_CODE, "BatchNorm converted to SyncBatchNorm so batch "
                                            "statistics cover the global batch (opted in: syncbn)")
                else:
                    self.suggested(SYNCBN_CODE, "BatchNorm keeps per-GPU batch statistics, as "
                                                "under DataParallel; SyncBatchNorm would compute "
                                                "them over the global batch (changes numerics)",
                                   UNSAFE_SYNCBN)
        cls = DataParallelDDP if as_data_parallel else GuardedDDP
        if cuda:
            return cls, (converted,), dict(device_ids=[local_rank], output_device=local_rank,
                                           dim=dim)
        # On CPU device_ids must stay unset (device_ids=[0] raises for a CPU module).
        return cls, (converted,), dict(dim=dim)

    def _single_device(self, module, device_ids, dim):
        if not self.fixing:
            self.suggested(CODE, "DataParallel on one GPU replicates, scatters and gathers every "
                                "step for nothing; call the module directly")
            return None
        index = device_ids[0] if device_ids else 0
        device = torch.device("cuda", index.index if isinstance(index, torch.device) else index)
        module = module.to(device)
        self._single_detail = "DataParallel on one GPU -> direct call (same state_dict keys)"
        return SingleDeviceParallel, (module, device, dim), {}

    def _several_gpus(self, ngpu):
        cmd = torchrun_command(ngpu, getattr(self.guard, "relaunch_target", None))
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
        self.suggested(CODE, f"{ngpu} GPUs without torchrun: one process per GPU is faster",
                       apply=f"{text} (or RUNTIME_GUARD_LAUNCH=1)")
        return None

    # -- loaders -------------------------------------------------------------------------------
    def _training(self) -> bool:
        return torch.is_grad_enabled() and any(m.training for m in list(self.converted))

    def shard_loader(self, loader):
        """Give a loader a DistributedSampler at its first training pass after a conversion.

        Only loaders iterated while a converted model trains are sharded: the ranks then share the
        training data like DDP expects. A pass in eval mode or with grad off keeps the full order,
        so metrics computed on it stay those of the whole set; the loader is looked at again at
        its next pass (a training loader first used for an initial validation pass is sharded
        when training starts).
        """
        if self.decided.get(loader):
            return
        import torch.distributed as dist

        if not dist.is_initialized():
            return
        if not self._training():
            return
        self.shard_now(loader)

    def shard_now(self, loader):
        import torch.distributed as dist
        from torch.utils.data.distributed import DistributedSampler

        self.decided[loader] = True
        sampler = loader.sampler
        if isinstance(sampler, DistributedSampler):
            return
        # Before any data is split: every parameter the optimizers train must be kept equal
        # across ranks (those outside the DDP module are broadcast now, averaged every step).
        if self.fixing and self.optimizers:
            self.sync_outside(list(self.optimizers), "before the first training pass")
        batch_sampler = loader.batch_sampler
        if not isinstance(sampler, (RandomSampler, SequentialSampler)) or (
                batch_sampler is not None and type(batch_sampler) is not BatchSampler):
            self.left_alone(CODE, f"loader with a custom sampler ({type(sampler).__name__}) not "
                               "sharded: each rank reads all of it")
            return
        if isinstance(sampler, RandomSampler) and (sampler.replacement or
                                                   sampler._num_samples is not None):
            self.left_alone(CODE, "loader with a sampling-with-replacement sampler not sharded")
            return
        if not self.fixing:
            self.suggested(CODE, "every rank reads the whole dataset; use a DistributedSampler")
            return
        world = dist.get_world_size()
        if loader in self.len_read:
            length, where = self.len_read[loader]
            per_rank = _sharded_batches(len(loader.dataset), world, batch_sampler)
            if per_rank != length:
                # What was sized by the length (OneCycleLR's total steps, a progress bar, a
                # warm-up in steps) would no longer match the batches each rank runs: a schedule
                # sized for 27 steps would stop after 15. Keeping every rank on the whole data
                # keeps the length the script planned with.
                self.left_alone(CODE, f"loader not sharded: len(loader) = {length} was read at "
                                      f"{where} before its first training pass (a scheduler or "
                                      f"step count sized by it?); sharded over {world} ranks it "
                                      f"would be {per_rank}, so every rank reads the whole dataset "
                                      "(the run is not what hand-written DDP with a "
                                      "DistributedSampler computes); build the DataLoader with a "
                                      "DistributedSampler to shard it")
                return
        shuffle = isinstance(sampler, RandomSampler)
        seed = 0
        if loader.generator is not None:
            seed = loader.generator.initial_seed()
        dsampler = DistributedSampler(loader.dataset, num_replicas=dist.get_world_size(),
                                      rank=dist.get_rank(), shuffle=shuffle, seed=seed,
                                      drop_last=False)
        setattr(dsampler, GUARD_MADE, True)  # set_epoch applies to it without an opt-in
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


def _sharded_batches(samples, world, batch_sampler):
    """Batches per rank of a loader sharded by DistributedSampler(drop_last=False)."""
    per_rank = -(-samples // world)
    if batch_sampler is None:
        return per_rank
    size = batch_sampler.batch_size
    return per_rank // size if batch_sampler.drop_last else -(-per_rank // size)


def _destroy_group():
    """Tear down the process group the guard started, while the interpreter is still whole.

    A gloo worker thread that drops the last reference to a finished collective takes the GIL (the
    work holds Python thread-local state). If it asks for the GIL once finalization has begun, the
    thread is unwound through a noexcept destructor and the rank aborts with "terminate called
    without an active exception" (about 1 run in 30 here, with or without the guard; torch's
    ``destroy_process_group`` comments on the same race). Collecting cycles and yielding the GIL
    after the group is gone lets those threads finish before finalization starts."""
    try:
        import gc
        import time

        import torch.distributed as dist
        if dist.is_initialized():
            dist.destroy_process_group()
        gc.collect()
        time.sleep(0.05)
    except Exception:
        pass
