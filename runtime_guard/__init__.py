"""runtime_guard: fixes some PyTorch performance pitfalls while the script runs.

``import runtime_guard`` installs the guard once, configured by the environment:
``RUNTIME_GUARD=off|warn|fix`` (default ``fix``), ``RUNTIME_GUARD_FIXES`` / ``RUNTIME_GUARD_SKIP``
(comma lists of fix names or TPL codes), ``RUNTIME_GUARD_DEVICE`` (target device),
``RUNTIME_GUARD_AMP=bf16|fp16`` (opt-in TPL305: the trained model's forward under autocast; on CUDA
bfloat16 where supported, else float16 with loss scaling; on a CPU only bf16, fp16 is skipped),
``RUNTIME_GUARD_UNSAFE`` (comma list of the fixes that can change results, applied only on this
opt-in: ``loader_workers``, ``persistent_workers``, ``random_on_device``, ``set_epoch``, ``syncbn``
or ``all``; without it they are reported as suggested).
Each event names the rule code the linter (``torchperf_lint``) uses for the same pitfall, and says
"fixed", "suggested" (with the line that applies it), "left alone" (with the reason) or
"observed" (see ``runtime_guard.events``).

Public API: ``install()``, ``uninstall()``, ``report()``, ``prepare()``.
"""

from __future__ import annotations

try:
    import torch  # noqa: F401
except ImportError as error:  # the linter installs without torch; the guard cannot
    raise ImportError(
        "runtime_guard needs PyTorch: install it with `pip install \"torchperf-lint[runtime]\"` "
        "(or install torch first)"
    ) from error

from .core import GUARD, install, report, uninstall
from .events import Event
from .prepare import prepare

__all__ = ["install", "uninstall", "report", "prepare", "Event"]

# Installed at import, once: importing again (or from several modules) is a no-op. With
# RUNTIME_GUARD=off the call returns before touching anything.
if not GUARD.installed:
    install()
