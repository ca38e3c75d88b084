"""The pitfall catalog: fixed codes, names, default state, fix applicability and runtime fix.

This module is pure data and imports nothing heavy, so that the flake8 plugin can read it at start-up
and ``runtime_guard`` can name the same pitfalls as the linter without importing libcst.
Detection, messages and examples live in one module per rule under ``torchperf_lint.rules``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

# Fix applicability, with ruff's vocabulary.
SAFE = "safe"  # applied by --fix
UNSAFE = "unsafe"  # applied only with --unsafe-fixes
NO_FIX = "none"  # the message says what to do; nothing is rewritten

# Names of the runtime guard's fixes. runtime_guard uses these names for RUNTIME_GUARD_FIXES/SKIP.
RUNTIME_DEVICE_NATIVE = "device_native"
RUNTIME_SYNC_REPORT = "sync_report"
RUNTIME_DDP = "ddp"
RUNTIME_SYNCBN = "syncbn"
RUNTIME_SET_EPOCH = "set_epoch"
RUNTIME_AMP = "amp"
RUNTIME_CUDNN = "cudnn_flags"
RUNTIME_LOADER = "loader_defaults"
RUNTIME_BATCHNORM = "batchnorm_batch_of_one"
RUNTIME_DDP_ACCUMULATION = "ddp_accumulation"
RUNTIME_TF32 = "tf32"
RUNTIME_ANOMALY = "anomaly_mode"
RUNTIME_CONV_BIAS = "conv_bias"


@dataclass(frozen=True)
class CatalogEntry:
    code: str
    name: str
    default_on: bool
    summary: str
    fix: str  # SAFE, UNSAFE or NO_FIX (for rules whose fix is safe only in some cases: the best case)
    runtime_fix: Optional[str]  # a RUNTIME_* name, or None
    # How safe the fix is, in words, where SAFE/UNSAFE alone would mislead (a fix safe in some cases
    # only). The one wording that `rule`, the docs and SARIF show: see fix_safety().
    fix_detail: str = ""
    # The torch APIs (keys of API_FLOORS) that the rule's remedy or fix writes: under a project
    # whose target torch is older than an API's floor, a finding that needs it is not reported.
    needs_torch: Tuple[str, ...] = ()


# A torch version as (major, minor): patch releases add no API.
TorchVersion = Tuple[int, int]

# The release that brought each API a remedy or a fix writes (shared/rules.md "Target torch").
API_FLOORS: Dict[str, TorchVersion] = {
    "torch.amp.autocast": (1, 10),  # torch.autocast and torch.amp.autocast("cuda", ...)
    "torch.amp.GradScaler": (2, 3),
    "torch.amp.custom_fwd": (2, 4),  # with device_type=
    "torch.amp.custom_bwd": (2, 4),
    "torchrun": (1, 10),
    "torch.set_float32_matmul_precision": (1, 12),
}


def torch_has(target: Optional[TorchVersion], api: str) -> bool:
    """Whether a project that must run on torch ``target`` (None: no limit) can use ``api``."""
    return target is None or target >= API_FLOORS[api]


def version_text(version: TorchVersion) -> str:
    return f"{version[0]}.{version[1]}"


def _entries(*rows: CatalogEntry) -> Dict[str, CatalogEntry]:
    return {row.code: row for row in rows}


CATALOG: Dict[str, CatalogEntry] = _entries(
    CatalogEntry("TPL101", "cpu-then-device", True,
                 "tensor created on the CPU, then moved to the device", SAFE, RUNTIME_DEVICE_NATIVE,
                 "safe for deterministic factories (applied by `--fix`); unsafe for random factories "
                 "(applied with `--unsafe-fixes`: the device draws other numbers than the CPU)"),
    CatalogEntry("TPL102", "host-sync-in-loop", True,
                 "host-device synchronisation inside the training loop", NO_FIX, RUNTIME_SYNC_REPORT),
    CatalogEntry("TPL103", "empty-cache-in-loop", True,
                 "torch.cuda.empty_cache() inside a loop", NO_FIX, None),
    CatalogEntry("TPL104", "blocking-copy", True,
                 "batch copied to the device without non_blocking=True from a pinned loader", SAFE, None),
    CatalogEntry("TPL201", "data-parallel", True,
                 "nn.DataParallel instead of DistributedDataParallel", NO_FIX, RUNTIME_DDP),
    CatalogEntry("TPL202", "ddp-without-syncbn", True,
                 "DistributedDataParallel of a BatchNorm model without SyncBatchNorm", UNSAFE, RUNTIME_SYNCBN),
    CatalogEntry("TPL203", "sampler-shuffle-conflict", True,
                 "DataLoader given both a sampler and shuffle=True", SAFE, None),
    CatalogEntry("TPL204", "missing-set-epoch", True,
                 "DistributedSampler whose set_epoch() is never called", NO_FIX, RUNTIME_SET_EPOCH),
    CatalogEntry("TPL205", "find-unused-parameters", True,
                 "DistributedDataParallel(find_unused_parameters=True)", NO_FIX, None),
    CatalogEntry("TPL206", "legacy-launcher", True,
                 "--local_rank argument or torch.distributed.launch", NO_FIX, None, needs_torch=("torchrun",)),
    CatalogEntry("TPL207", "ddp-accumulation-without-no-sync", True,
                 "gradient accumulation on a DDP model without no_sync()", NO_FIX, RUNTIME_DDP_ACCUMULATION),
    CatalogEntry("TPL301", "missing-grad-scaler", True,
                 "float16 autocast training step without a GradScaler", NO_FIX, RUNTIME_AMP),
    CatalogEntry("TPL302", "scaler-misuse", True,
                 "GradScaler used without scaler.step(optimizer) or scaler.update()", NO_FIX, RUNTIME_AMP),
    CatalogEntry("TPL303", "clip-without-unscale", True,
                 "gradients clipped while still scaled (no scaler.unscale_)", SAFE, RUNTIME_AMP),
    CatalogEntry("TPL304", "deprecated-amp-api", True,
                 "deprecated torch.cuda.amp / torch.cpu.amp API", SAFE, None,
                 needs_torch=("torch.amp.autocast", "torch.amp.GradScaler", "torch.amp.custom_fwd",
                              "torch.amp.custom_bwd")),
    CatalogEntry("TPL305", "no-mixed-precision", False,
                 "CUDA training loop without autocast", NO_FIX, RUNTIME_AMP),
    CatalogEntry("TPL306", "fp32-matmul-precision", False,
                 "CUDA training loop with full-precision float32 matmuls (TF32 off)", NO_FIX, RUNTIME_TF32,
                 needs_torch=("torch.set_float32_matmul_precision",)),
    CatalogEntry("TPL401", "benchmark-with-determinism", True,
                 "cudnn.benchmark=True together with determinism", SAFE, RUNTIME_CUDNN),
    CatalogEntry("TPL501", "dataloader-no-workers", True,
                 "DataLoader loading in the main process (num_workers=0)", NO_FIX, RUNTIME_LOADER),
    CatalogEntry("TPL502", "dataloader-no-pin-memory", True,
                 "DataLoader without pin_memory=True feeding a CUDA device", SAFE, RUNTIME_LOADER),
    CatalogEntry("TPL503", "batchnorm-partial-batch", False,
                 "training DataLoader without drop_last=True for a BatchNorm model", UNSAFE, RUNTIME_BATCHNORM),
    CatalogEntry("TPL601", "matmul-chain", False,
                 "product of three or more matrices in one expression", UNSAFE, None),
    CatalogEntry("TPL602", "grad-in-inference", True,
                 "model evaluated in a loop with autograd on", NO_FIX, None),
    CatalogEntry("TPL603", "debug-api-in-training", True,
                 "anomaly detection or an unscheduled profiler left on in training", NO_FIX, RUNTIME_ANOMALY),
    CatalogEntry("TPL604", "zero-grad-not-none", True,
                 "zero_grad(set_to_none=False) in the training loop", UNSAFE, None),
    CatalogEntry("TPL605", "conv-bias-before-batchnorm", True,
                 "convolution bias cancelled by the BatchNorm that follows", UNSAFE, RUNTIME_CONV_BIAS),
    CatalogEntry("TPL900", "analysis-failed", True,
                 "the file could not be analysed", NO_FIX, None),
)

_FIX_WORDS = {SAFE: "safe (applied by `--fix`)", UNSAFE: "unsafe (applied with `--unsafe-fixes`)", NO_FIX: "none"}


def fix_safety(code: str) -> str:
    """How safe a rule's fix is, in words: the single wording for the docs, `rule` and SARIF."""
    entry = CATALOG[code]
    return entry.fix_detail or _FIX_WORDS[entry.fix]


OPT_IN_CODES = frozenset(code for code, entry in CATALOG.items() if not entry.default_on)


def codes_for_runtime_fix(fix_name: str) -> list:
    """The rule codes a runtime fix answers (runtime_guard names events with these)."""
    return [code for code, entry in CATALOG.items() if entry.runtime_fix == fix_name]
