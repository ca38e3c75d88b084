"""Resolving local names to the torch objects they stand for.

The module-level import table is built from the ``ast`` tree (flake8 has already parsed it, so this
costs one pass over the top-level statements). Names bound inside functions are tracked by the
libcst walk (see ``walker.Frame``). A module-level definition that shadows an imported name removes
the torch meaning: ``class DataParallel: ...`` is the project's own class, not torch's.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, Iterable, Optional

from .segments import walk_statements

# A cheap text test run before anything is parsed: does the file import torch at all?
_IMPORTS_TORCH = re.compile(r"^[ \t]*(?:from[ \t]+torch\b|import[ \t]+(?:[\w. \t]+,[ \t]*)*torch\b)", re.M)
# ``from byol_a.common import (os, np, torch, nn)``: the project re-exports the torch module under its
# own name, which imports torch as surely (byol-a's scripts import torch only this way).
_IMPORTS_TORCH_NAME = re.compile(r"^[ \t]*from[ \t]+\.*[\w.]*[ \t]+import[ \t]*(?:\([^)]*|[^\n]*)\btorch\b(?![ \t]+as\b)",
                                 re.M)


# Conversions of a parameter to a number that keep the value its branches compare (``norm_type =
# float(norm_type)``): no rebinding for the readings of literal arguments (R103).
VALUE_KEEPING_CONVERSIONS = frozenset(("float", "int"))
# Builtins that ask what a value is, never which step it is: ``if hasattr(t_iter, "set_postfix"):``
# hands no step counter to an interval test (R129; the walker's and the index's readings).
INTROSPECTION_BUILTINS = frozenset(("hasattr", "getattr", "isinstance", "issubclass", "callable", "type"))
# The Hugging Face Trainer's ``TrainerControl`` flags, set by its callback handler at the logging,
# evaluation and saving intervals (``logging_steps``, ``eval_steps``, ``save_steps``): a copy of the
# Trainer's loop in a project tests them as the Trainer does (MM-Interleaved's
# ``_maybe_log_save_evaluate``, holdout197; R174).
TRAINER_CONTROL_FLAGS = frozenset(("should_log", "should_evaluate", "should_save"))
# ``np.mod(step, n)``, ``math.fmod``, ``torch.remainder``: the ``%`` of an interval test by name
# (step_loops._ast_tests_interval and syntax.tests_interval, the two twins).
MODULO_FUNCTIONS = frozenset(("mod", "fmod", "remainder"))
MODULO_OWNERS = frozenset(("np", "numpy", "math", "torch"))
# ``if idx % world_size != rank: continue``: each process takes its share of the items (BasicSR's
# ``dist_validation``), every item of the share, so no interval (R70). The divisor names the number
# of processes; the other side of the comparison names this process.
_PROCESS_COUNT = re.compile(
    r"^(?:world_size|\w+_world_size|world|num_replicas|num_processes|n_?procs|nprocs|num_gpus|n_?gpus|"
    r"num_shards|n_?shards|num_ranks|n_?ranks)$", re.I)
_PROCESS_RANK = re.compile(r"^(?:\w*rank|process_index|shard_id|shard_index|proc_id)$", re.I)


def is_process_rank(name: Optional[str]) -> bool:
    """Does ``name`` name this process's rank (``rank``, ``local_rank``, ``process_index``)? A
    ``rank % n`` picks processes (``args.rank % ngpus_per_node == 0``: the first of each node,
    NeWCRFs, holdout144; R115), never steps."""
    return bool(name) and _PROCESS_RANK.match(name) is not None


def is_shard_split(divisor: Optional[str], other: Optional[str]) -> bool:
    """Do ``x % <divisor> == <other>`` (or ``!=``) split items among processes: the divisor a number
    of processes, the other side this process's rank?"""
    return bool(divisor and other and _PROCESS_COUNT.match(divisor) and _PROCESS_RANK.match(other))


# Subclasses of torch's DataLoader that take its settings (``pin_memory=``) and hand out batches
# whose ``.to(device, non_blocking=...)`` copies as a tensor's does: PyTorch Geometric's loader
# (const_layout's ``from torch_geometric.data import DataLoader``, holdout168; R148). Read for
# pinning only (TPL104); TPL501/TPL502 keep to torch's own class.
SUBCLASSED_LOADERS = frozenset(("torch_geometric.loader.DataLoader", "torch_geometric.data.DataLoader",
                                "torch_geometric.loader.dataloader.DataLoader"))

# Objects that hold a run's settings (``args.pretrain_steps``, ``self.hparams.max_steps``): a value
# fixed for the run, which a step counter equals once (syntax.tests_once, R142).
SETTINGS_OWNERS = frozenset(("args", "opt", "opts", "cfg", "config", "conf", "hparams", "hp", "params", "flags",
                             "FLAGS", "options", "hyperparams"))


def setting_root(parts) -> bool:
    """Do the names of an attribute chain, from its root (``["args", "pretrain_steps"]``,
    ``["self", "hparams", "max_steps"]``), read a run's setting?"""
    if len(parts) >= 3 and parts[0] == "self":
        parts = parts[1:]
    return len(parts) >= 2 and parts[0] in SETTINGS_OWNERS


# ``import *``, also written ``import*`` (the bytes twin serves script_folders' raw reads)
STAR_IMPORT_PATTERN = r"\bimport[ \t]*\*"
_STAR_IMPORT = re.compile(STAR_IMPORT_PATTERN)


def text_has_star_import(source: str) -> bool:
    """``from x import *``, also written ``from x import*`` (STBP's ``from spiking_model import*``,
    holdout223): a text test, before any parse."""
    return _STAR_IMPORT.search(source) is not None


def text_mentions_torch_import(source: str) -> bool:
    return "torch" in source and (_IMPORTS_TORCH.search(source) is not None
                                  or _IMPORTS_TORCH_NAME.search(source) is not None)


def _imports_torch_name(node: ast.ImportFrom) -> bool:
    """``from <module> import torch`` (not ``as`` another name): the torch module, re-exported."""
    return any(a.name == "torch" and a.asname in (None, "torch") for a in node.names)


def is_torch_name(qualname: Optional[str]) -> bool:
    return qualname is not None and (qualname == "torch" or qualname.startswith("torch."))


def bind_import(table: Dict[str, Optional[str]], node: ast.AST) -> None:
    """Record what the names an import statement binds stand for."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                table[alias.asname] = alias.name
            else:
                # ``import torch.nn`` binds ``torch`` (to the package).
                top = alias.name.split(".")[0]
                table[top] = top
    elif isinstance(node, ast.ImportFrom):
        if node.level or not node.module:
            for alias in node.names:  # relative imports are the project's own code
                if alias.name != "*":  # (``from .fix_label import *`` binds no name it shows)
                    table[alias.asname or alias.name] = None
            if _imports_torch_name(node):
                table["torch"] = "torch"
            return
        if node.module.split(".", 1)[0] != "torch" and _imports_torch_name(node):
            table["torch"] = "torch"  # ``from common import torch``: the module, re-exported
            for alias in node.names:
                if alias.name != "torch" and alias.name != "*":
                    table[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            return
        for alias in node.names:
            if alias.name == "*":
                continue
            table[alias.asname or alias.name] = f"{node.module}.{alias.name}"


def bound_names(target: ast.AST) -> Iterable[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from bound_names(target.value)


def dotted_name_ast(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class ImportTable:
    """Module-level names and the qualified names they resolve to (None: not an import)."""

    def __init__(self, bindings: Dict[str, Optional[str]], imports_torch: bool, instances=None):
        self.bindings = bindings
        self.imports_torch = imports_torch
        # Module-level objects made by a torch class: ``criterion = nn.MSELoss()`` -> torch.nn.MSELoss
        self.instances: Dict[str, str] = instances or {}

    def with_star_bindings(self, star: Dict[str, str]) -> "ImportTable":
        """This table with the torch and host-library names a ``from <module> import *`` brings in
        (names the module binds itself keep their meaning): a module that uses torch, or numpy,
        only through them."""
        bindings = dict(star)
        bindings.update(self.bindings)
        return ImportTable(bindings, True, dict(self.instances))

    @classmethod
    def from_ast(cls, tree: ast.Module) -> "ImportTable":
        bindings: Dict[str, Optional[str]] = {}
        instances: Dict[str, str] = {}
        imports_torch = False
        # Only module-level statements, including those in top-level if/try/with blocks
        # (``try: import torch except ImportError: ...``); function-local imports are frames'.
        pending = list(tree.body)
        while pending:
            stmt = pending.pop(0)
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                bind_import(bindings, stmt)
                modules = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else [stmt.module or ""]
                if not getattr(stmt, "level", 0) and any(m == "torch" or m.startswith("torch.") for m in modules):
                    imports_torch = True
                elif isinstance(stmt, ast.ImportFrom) and _imports_torch_name(stmt):
                    imports_torch = True
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bindings[stmt.name] = None
            elif isinstance(stmt, ast.Assign):
                alias_of = dotted_name_ast(stmt.value)
                resolved = _resolve_dotted(bindings, alias_of) if alias_of else None
                made_by = None
                if isinstance(stmt.value, ast.Call):
                    func = dotted_name_ast(stmt.value.func)
                    made_by = _resolve_dotted(bindings, func) if func else None
                    if not (is_torch_name(made_by) and made_by.rsplit(".", 1)[-1][:1].isupper()):
                        made_by = None
                for target in stmt.targets:
                    for name in bound_names(target):
                        # ``DP = torch.nn.DataParallel`` keeps the torch meaning; anything else shadows.
                        bindings[name] = resolved if is_torch_name(resolved) else None
                        if made_by:
                            instances[name] = made_by
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
                if not isinstance(stmt, ast.AnnAssign) or stmt.value is not None:
                    bindings[stmt.target.id] = None
            elif isinstance(stmt, ast.If):
                pending[0:0] = stmt.body + stmt.orelse
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                handlers = [s for h in stmt.handlers for s in h.body]
                pending[0:0] = stmt.body + handlers + stmt.orelse + stmt.finalbody
            elif isinstance(stmt, ast.With):
                pending[0:0] = stmt.body
        if not imports_torch:
            # Imports inside functions count too ("never imports torch" is about the whole file).
            # An import is a statement: the statements are walked, not every expression node
            # (the project index builds a table for every module it summarises, most without torch).
            for node, _ in walk_statements(tree.body):
                if isinstance(node, ast.Import) and any(
                    a.name == "torch" or a.name.startswith("torch.") for a in node.names
                ):
                    imports_torch = True
                    break
                if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "torch":
                    imports_torch = True
                    break
        return cls(bindings, imports_torch, instances)

    def resolve(self, dotted: Optional[str]) -> Optional[str]:
        return _resolve_dotted(self.bindings, dotted) if dotted else None


def _resolve_dotted(bindings: Dict[str, Optional[str]], dotted: str) -> Optional[str]:
    head, _, rest = dotted.partition(".")
    base = bindings.get(head)
    if base is None:
        return None
    if base == "torch":
        while rest.startswith("torch."):
            rest = rest[6:]  # ``torch.torch.rand``: the module is its own attribute (flow_matching)
    return f"{base}.{rest}" if rest else base


# Name sets several rules and the module facts share.
AUTOCASTS = frozenset(("torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast"))
SCALERS = frozenset(("torch.amp.GradScaler", "torch.cuda.amp.GradScaler", "torch.cpu.amp.GradScaler"))
# Contexts and decorators that turn autograd off. ``set_grad_enabled(x)`` counts whatever ``x`` is:
# a grad mode given by a value the linter cannot see means silence.
GRAD_OFF = frozenset((
    "torch.no_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.autograd.no_grad",
    "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.inference_mode",
))
GRAD_OFF_NAMES = frozenset(("no_grad", "inference_mode", "set_grad_enabled"))


def turns_grad_off(qualname: Optional[str], dotted: Optional[str]) -> bool:
    """Is this context/decorator (resolved name, or as written) one that disables autograd?
    A project's own wrapper named so (``@smart_inference_mode()``) counts too."""
    last = (dotted or "").rsplit(".", 1)[-1]
    return qualname in GRAD_OFF or any(word in last for word in GRAD_OFF_NAMES)


# Some torch objects are reachable under several paths; rules compare canonical names.
_CANONICAL = {
    "torch.nn.parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "torch.utils.data.dataloader.DataLoader": "torch.utils.data.DataLoader",
    # MONAI's DataLoader subclasses torch's and hands every keyword (pin_memory, num_workers) on.
    "monai.data.DataLoader": "torch.utils.data.DataLoader",
    "monai.data.dataloader.DataLoader": "torch.utils.data.DataLoader",
    "torch.utils.data.distributed.DistributedSampler": "torch.utils.data.DistributedSampler",
    "torch.backends.cudnn": "torch.backends.cudnn",
    "torch.amp.autocast_mode.autocast": "torch.amp.autocast",
    "torch.autocast": "torch.amp.autocast",
    "torch.amp.grad_scaler.GradScaler": "torch.amp.GradScaler",
    "torch.cuda.amp.autocast_mode.autocast": "torch.cuda.amp.autocast",
    "torch.cuda.amp.grad_scaler.GradScaler": "torch.cuda.amp.GradScaler",
    "torch.nn.utils.clip_grad.clip_grad_norm_": "torch.nn.utils.clip_grad_norm_",
    "torch.nn.utils.clip_grad.clip_grad_value_": "torch.nn.utils.clip_grad_value_",
    "torch.nn.modules.batchnorm.BatchNorm1d": "torch.nn.BatchNorm1d",
    "torch.nn.modules.batchnorm.BatchNorm2d": "torch.nn.BatchNorm2d",
    "torch.nn.modules.batchnorm.BatchNorm3d": "torch.nn.BatchNorm3d",
}


def canonical(qualname: Optional[str]) -> Optional[str]:
    if qualname is None:
        return None
    while qualname.startswith("torch.torch."):
        qualname = qualname[6:]  # ``torch.torch.rand``: the module is its own attribute (flow_matching)
    return _CANONICAL.get(qualname, qualname)
