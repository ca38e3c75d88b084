"""Functions that measure the device's peak memory (rules.md TPL102 "a ``synchronize()`` that
brackets a timer", the lead's reading R6; R43).

    def benchmark_memory(fn, *inputs):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        torch.cuda.synchronize()
        fn(*inputs)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated()

Such a function, handed the function it measures, resets the peak statistics and reads them back
around its call: its ``synchronize()`` calls make the reading mean something (as they do a
timer's), and its ``empty_cache()`` calls give the measurement a clean start. Neither is a per-step cost the user can remove (hyena-dna's
``benchmark_memory_bwd``, a harness run by hand, judged so by judge45).
"""

from __future__ import annotations

import libcst as cst

from .tree import descendants

_RESETS = frozenset(("reset_peak_memory_stats", "reset_max_memory_allocated"))
_READS = frozenset(("max_memory_allocated", "max_memory_reserved"))


def measures_peak_memory(function: cst.CSTNode, qualname) -> bool:
    """Does ``function`` (a FunctionDef) both reset and read back the peak memory statistics of
    ``torch.cuda`` around a call of a function it is handed (``fn(*inputs)``: a harness that
    measures what it is given)? A trainer that records its own peak memory every step (ludic's
    ``_capture_forward_memory_stats``, labelled in holdout35) calls nothing it is handed: its
    ``synchronize()`` stays a per-step wait. ``qualname`` resolves a call's function."""
    params = function.params
    handed = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    resets = reads = calls_handed = False
    for node in descendants(function, prune=lambda n: n is not function and isinstance(
            n, (cst.FunctionDef, cst.ClassDef, cst.Lambda))):
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name) and node.func.value in handed:
                calls_handed = True
                continue
            name = qualname(node.func) or ""
            if name.startswith("torch.cuda."):
                last = name.rsplit(".", 1)[1]
                resets = resets or last in _RESETS
                reads = reads or last in _READS
    return resets and reads and calls_handed
