"""The rule registry: one module per rule, each defining one ``Rule`` subclass.

The catalog (codes, names, defaults) is ``torchperf_lint.catalog``; this registry maps each code to
the class that detects it. The flake8 plugin, the CLI and the docs generator all read it.
"""

from __future__ import annotations

import importlib
from typing import Dict, Type

from ..catalog import CATALOG
from ..analysis.walker import Rule

# One module per rule, named tpl<code>_<name>: each defines ``RULE``.
_MODULE_NAMES = (
    "tpl101_cpu_then_device",
    "tpl102_host_sync_in_loop",
    "tpl103_empty_cache_in_loop",
    "tpl104_blocking_copy",
    "tpl201_data_parallel",
    "tpl202_ddp_without_syncbn",
    "tpl203_sampler_shuffle_conflict",
    "tpl204_missing_set_epoch",
    "tpl205_find_unused_parameters",
    "tpl206_legacy_launcher",
    "tpl207_ddp_accumulation_without_no_sync",
    "tpl301_missing_grad_scaler",
    "tpl302_scaler_misuse",
    "tpl303_clip_without_unscale",
    "tpl304_deprecated_amp_api",
    "tpl305_no_mixed_precision",
    "tpl306_fp32_matmul_precision",
    "tpl401_benchmark_with_determinism",
    "tpl501_dataloader_no_workers",
    "tpl502_dataloader_no_pin_memory",
    "tpl503_batchnorm_partial_batch",
    "tpl601_matmul_chain",
    "tpl602_grad_in_inference",
    "tpl603_debug_api_in_training",
    "tpl604_zero_grad_not_none",
    "tpl605_conv_bias_before_batchnorm",
)

RULES: Dict[str, Type[Rule]] = {}
for _name in _MODULE_NAMES:
    _rule = importlib.import_module(f"{__name__}.{_name}").RULE
    assert _rule.code in CATALOG and _name == f"tpl{_rule.code[3:]}_{CATALOG[_rule.code].name.replace('-', '_')}", _name
    RULES[_rule.code] = _rule
