"""Functions that perform one step through a function of the project (the lead's reading R18 of
rules.md "A step body", 2026-11-26).

rules.md: "a function whose own body, outside any loop, calls ``.backward()`` ... performs one step,
and its caller runs it every step". R18 reads the same upward: a function whose own body, outside
any loop, calls a project function that performs one step performs one step too, so it is a step
body as well (XLM: ``mlm_step`` computes a loss, logs ``loss.item()`` and calls ``self.optimize(loss)``,
whose own body calls ``loss.backward()``; ``train.py`` calls ``trainer.mlm_step(...)`` every
iteration). The reading R2 applies to it as to a function with its own backward: it is not a step
body when the project shows callers and every one of them runs it once (run_once.RunOnce).

One step of training updates the parameters: the caller, or a function on its way down to the
backward, steps an optimizer or a scaler. A function that only computes gradients (a notebook's
``get_grads`` for a plot of an activation function, called from a loop over a few activation
functions) makes its callers perform nothing per step; the function itself stays what rules.md
makes it.

The walk goes up from the functions that call backward themselves, at most MAX_LEVELS callers up,
over the calls the project index recorded in the modules the step-body walk has read (the linted
file, the modules that import it, the base classes it met), each call resolved as the step-body
walk resolves it (``self.`` methods, imports, instances of project classes). It never goes through
a loop: a function that calls a step function inside its own loop (a step loop, or any loop) runs
many steps, it does not perform one. A function that drives a step loop of its own is not a step
body either (as for a function with its own backward: a warm-up step before the loop).
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from .run_once import is_run_once_hook, module_call_sites
from .step_loops import OPTIMIZER_WORD

# How many callers up from a function with its own backward the walk looks.
MAX_LEVELS = 3

Key = Tuple[str, str]
# One call down to the backward: (caller's path, line of the call, callee's path, the line of the
# callee's ``def``, callee's qualified name).
Down = Tuple[str, int, str, int, str]


def _in_loop(record: dict, line: int) -> bool:
    return any(first <= line <= last for first, last in record.get("loops", ()))


def steps_optimizer(record: dict) -> bool:
    """Does the function step an optimizer or a scaler (``optimizer.step()``, ``self.opt.step()``,
    ``scaler.step(opt)``; in a loop over several optimizers too, ``self._optims[name].step()``), by
    the names step_loops reads?"""
    for call in record["calls"]:
        ref = call[0]
        if ref[0] == "dotted" and ref[1].endswith(".step") and "." in ref[1]:
            receiver = ref[1].rsplit(".", 2)[-2]
        elif ref[0] == "selfattr" and ref[2] == "step":
            receiver = ref[1]
        else:
            continue
        if OPTIMIZER_WORD.search(receiver):
            return True
    return False


def updates_parameters(bodies, module, record: dict) -> bool:
    """Does the function step an optimizer or a scaler itself (steps_optimizer), or through a
    project function it calls outside its loops (Dassl's ``model_backward_and_update`` calls
    ``self.model_backward(loss)``, whose body calls backward, then ``self.model_update()``, whose
    body steps ``self._optims[name]``)?"""
    if steps_optimizer(record):
        return True
    own = bodies._own_class(module, record)
    for call in record["calls"]:
        ref, line = call[0], call[1]
        if ref[0] not in ("self", "name", "selfattr", "inst", "super") or _in_loop(record, line):
            continue
        target = bodies.resolve(module, ref, own, own)
        if target is None:
            continue
        path, qual = target[0]
        callee_module = bodies._loaded.get(path)
        callee = callee_module.functions.get(qual) if callee_module is not None else None
        if callee is not None and steps_optimizer(callee):
            return True
    return False


def step_performers(bodies, modules: List) -> Dict[Key, Tuple[Down, ...]]:
    """Every function of ``modules`` (the summaries a StepBodies walk has read) that performs one
    training step through calls, MAX_LEVELS at most, outside its loops: its calls down to a
    function whose own body calls backward, first call first. A training step updates the
    parameters: the function or one on its way down steps an optimizer or a scaler (a function
    that only computes gradients, ``get_grads`` for a plot, performs no step; callers above it
    still may). Functions with their own backward are not in it (they are step bodies by rules.md
    itself)."""
    found: Dict[Key, Tuple[Down, ...]] = {}
    performing = set()
    frontier: List[Tuple[Key, int, Tuple[Down, ...]]] = []
    for module in modules:
        for qual in module.backward_functions:
            performing.add((module.path, qual))
            record = module.functions[qual]
            frontier.append(((module.path, qual), record["line"], (), steps_optimizer(record)))
    for _ in range(MAX_LEVELS):
        following = []
        for callee, callee_line, down, updated in frontier:
            name = callee[1].rsplit(".", 1)[-1]
            for module in modules:
                for qual, record, call in module_call_sites(module).get(name, ()):
                    ref, line, step_loop = call[0], call[1], call[2]
                    if qual == "<module>" or is_run_once_hook(qual) or step_loop or _in_loop(record, line):
                        continue  # module level and run-once hooks run once (R2); a loop runs many steps
                    if record.get("drives") or record["backward"]:
                        continue  # drives a step loop; or performs a step by its own backward
                    caller = (module.path, qual)
                    if caller in performing:
                        continue
                    own = bodies._own_class(module, record)
                    target = bodies.resolve(module, ref, own, own)
                    if target is None or target[0] != callee:
                        continue
                    performing.add(caller)
                    steps = ((module.path, line, callee[0], callee_line, callee[1]),) + down
                    updates = updated or updates_parameters(bodies, module, record)
                    if updates:
                        found[caller] = steps
                    following.append((caller, record["line"], steps, updates))
        frontier = following
        if not frontier:
            break
    return found


def describe_performs(performs: Tuple[Down, ...], relative) -> str:
    """``runs one step: calls optimize (xlm/trainer.py:194), which calls backward``."""
    calls = [f"calls {qual.rsplit('.', 1)[-1]} ({relative(path)}:{line})" for _, _, path, line, qual in performs]
    return f"runs one step: {', which '.join(calls)}, which calls backward"


def related_performs(performs: Tuple[Down, ...]) -> Tuple[Tuple[str, int, str], ...]:
    """(path, line, note) per call on the way down to the backward."""
    return tuple((path, line, f"runs one step here: calls {qual.rsplit('.', 1)[-1]}")
                 for path, line, _, _, qual in performs)
