"""Rule documentation, generated from the rule modules (the one source of truth).

    python -m torchperf_lint.frontends.docs [OUTPUT_DIR]     # writes docs/rules/TPLxxx.md and an index

``render_rule(code)`` is also what ``torchperf-lint rule CODE`` prints.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Dict

from ..catalog import API_FLOORS, CATALOG, NO_FIX, SAFE, UNSAFE, fix_safety, version_text

RUNTIME_FIXES: Dict[str, str] = {
    "device_native": "device-native creation: learned call sites build the tensor on the device (deterministic factories by default; random ones only with `RUNTIME_GUARD_UNSAFE=random_on_device`, as they draw other numbers)",
    "sync_report": "sync report: host syncs counted per source line and shown at exit",
    "ddp": "DDP wrapping: `nn.DataParallel` becomes `DistributedDataParallel` under torchrun",
    "syncbn": "SyncBN conversion: suggested; BatchNorm becomes SyncBatchNorm before DDP wrapping (CUDA, world size > 1) only with `RUNTIME_GUARD_UNSAFE=syncbn` (it changes the statistics)",
    "set_epoch": "automatic `set_epoch`: the guard's own DistributedSamplers advance their epoch each time the loader is iterated; a script's own sampler only with `RUNTIME_GUARD_UNSAFE=set_epoch` (it changes the order)",
    "amp": "AMP step: loss scaling for float16 autocast steps without a GradScaler",
    "cudnn_flags": "flags reconciled: `cudnn.benchmark` is turned off when determinism is requested",
    "loader_defaults": "loader defaults: `pin_memory` for CUDA; worker processes suggested (applied with `RUNTIME_GUARD_UNSAFE=loader_workers`: a dataset with its own random generator or files yields differently in workers); in-memory datasets left alone, as by this rule",
    "batchnorm_batch_of_one": "a clear error naming the loader when a batch of one reaches BatchNorm",
    "ddp_accumulation": "observed: DDP gradient all-reduces per optimizer step (reported when more than one)",
    "tf32": "opt-in `RUNTIME_GUARD_TF32=1`: `torch.set_float32_matmul_precision(\"high\")` on GPUs with TF32 (compute capability 8.0+)",
    "anomaly_mode": "observed: autograd anomaly detection on during optimizer steps, with where it was turned on",
    "conv_bias": "observed at model construction: `nn.Sequential` conv biases cancelled by the next BatchNorm, and the parameters they cost",
}
FIX_LABELS = {SAFE: "safe (applied by `--fix`)", UNSAFE: "unsafe (applied with `--unsafe-fixes`)", NO_FIX: "none"}
DOCS_URL = "docs/rules/{code}.md"

_TPL900 = {
    "what": "Reports a file the linter could not analyse, with the reason.",
    "why": (
        "A parser failure (a syntax error, syntax newer than the running Python), code nested more "
        "deeply than the parser's recursion allows, undecodable bytes, NUL bytes or a file larger "
        "than 8 MB would otherwise abort the whole lint run. The file gets this one finding, at the "
        "error's line and column where one is known (a syntax error, a bad byte, the expression too "
        "deep or too wide for the parser), else at line 1, and every other file is still checked. "
        "In flake8, a file with a syntax error or NUL bytes never reaches a plugin: flake8 reports "
        "it as E999, so select `E999` along with `TPL`."
    ),
    "instead": "Fix the reason the message names, or exclude the file (generated code).",
}


class _Placeholders(dict):
    """Messages have per-finding fields (``{factory}``); the docs show them as ``…``."""

    def __missing__(self, key: str) -> str:
        return "…"


def _block(code: str) -> str:
    return "```python\n" + textwrap.dedent(code).strip("\n") + "\n```"


def render_rule(code: str) -> str:
    from ..rules import RULES

    entry = CATALOG[code]
    header = [
        f"# {code} {entry.name}",
        "",
        f"- Default: {'on' if entry.default_on else 'off (opt-in: select it by its code)'}",
        f"- Autofix: {fix_safety(code)}",
        f"- Runtime guard: {RUNTIME_FIXES[entry.runtime_fix] if entry.runtime_fix else 'none'}",
        f"- Target torch: {torch_floor(code)}",
        "",
    ]
    rule = RULES.get(code)
    if rule is None:
        body = [
            "## What it does", _TPL900["what"], "",
            "## Why is this bad?", _TPL900["why"], "",
            "## What to do", _TPL900["instead"],
        ]
        return "\n".join(header + body) + "\n"
    what = (sys.modules[rule.__module__].__doc__ or entry.summary).strip()
    what = what.split(":", 1)[1].strip() if what.startswith(code) else what
    body = [
        "## What it does",
        f"Flags {what[0].lower() + what[1:]}",
        "",
        f"Message: {rule.message.format_map(_Placeholders())}",
        "",
        "## Why is this bad?",
        rule.WHY.strip(),
        "",
        "## Example",
        _block(rule.EXAMPLE),
        "",
        "## Use instead",
        _block(rule.USE_INSTEAD),
        "",
        "## Fix safety",
        rule.FIX_NOTE.strip() or fix_safety(code),
    ]
    if rule.INVALID or rule.VALID:
        body += ["", "## Checked examples", "Flagged (the marked lines):"]
        body += [_block(example) for example in rule.INVALID]
        body += ["", "Not flagged:"]
        body += [_block(example) for example in rule.VALID]
    if rule.REFERENCES:
        body += ["", "## References"] + [f"- <{url}>" for url in rule.REFERENCES]
    return "\n".join(header + body) + "\n"


def torch_floor(code: str) -> str:
    """The oldest torch the rule's remedy works on (catalog ``needs_torch``), in words."""
    apis = CATALOG[code].needs_torch
    if not apis:
        return "no floor: reported whatever `target-torch` says"
    by_version: Dict[tuple, list] = {}
    for api in apis:
        by_version.setdefault(API_FLOORS[api], []).append(f"`{api}`")
    needs = "; ".join(f"{' and '.join(names)} {'needs' if len(names) == 1 else 'need'} torch {version_text(v)}"
                      for v, names in sorted(by_version.items()))
    return (f"{needs}. Under a project whose `target-torch` (by default the lower bound of torch in its "
            f"dependencies) is older, a finding whose remedy needs it is not reported and its fix not offered")


def render_index() -> str:
    lines = [
        "# Rules",
        "",
        "| code | name | default | autofix | runtime guard |",
        "|---|---|---|---|---|",
    ]
    for code, entry in CATALOG.items():
        lines.append(
            f"| [{code}]({code}.md) | {entry.name} | {'on' if entry.default_on else 'opt-in'} | "
            f"{entry.fix_detail or entry.fix} | {entry.runtime_fix or '—'} |"
        )
    return "\n".join(lines) + "\n"


def write_docs(directory: Path) -> None:
    from .atomic_write import write_atomic  # each page whole or not at all

    directory.mkdir(parents=True, exist_ok=True)
    for code in CATALOG:
        write_atomic(str(directory / f"{code}.md"), render_rule(code).encode("utf-8"))
    write_atomic(str(directory / "README.md"), render_index().encode("utf-8"))


if __name__ == "__main__":
    write_docs(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules"))
