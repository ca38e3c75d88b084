"""Functions that their project runs once (the lead's reading R2 of rules.md "A step body",
2026-11-26).

A function whose own body calls ``.backward()`` is a step body ("its caller runs it every step")
unless the project shows its callers and every one of them runs it once: a module-level call
outside any loop, a call in a run-once hook (``__init__``, ``setup``, ``configure_*``,
``on_train_start``, ``on_fit_start``, ``*_dataloader``), or a call in a function that is itself
only called that way. No visible caller keeps the assumption (a closure handed to
``optimizer.step(closure)``, a function another package calls).

The callers are the calls the project index recorded in the modules the step-body walk has read
(the linted file and the modules that import it); each function record keeps where its loops and
comprehensions are (``loops``: first and last line), so a call inside one runs many times.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

RUN_ONCE_HOOKS = frozenset(("__init__", "setup", "on_train_start", "on_fit_start"))
# How many callers up the walk looks for a run-once caller ("a function that is itself only
# called that way").
MAX_DEPTH = 3

Key = Tuple[str, str]


# Hooks a framework runs at the start or end of an epoch or of the run (rules.md "A step body": per
# epoch, not every step): ``on_validation_epoch_end``, Lightning 1.x ``validation_epoch_end``,
# ``on_train_end``. What they call runs once each time, not every step (RAVE computes its receptive
# field, with a backward, from ``validation_epoch_end``).
_PER_EPOCH_HOOK_ENDS = ("epoch_end", "epoch_start", "_fit_end", "_train_end")


def is_per_epoch_hook(name: str) -> bool:
    """``validation_epoch_end``, ``on_train_epoch_start``, ``on_fit_end``: a hook run per epoch or
    per run (the last part of a qualified name)."""
    return name.endswith(_PER_EPOCH_HOOK_ENDS)


def is_run_once_hook(qualname: str) -> bool:
    last = qualname.rsplit(".", 1)[-1]
    return (last in RUN_ONCE_HOOKS or last.startswith("configure_") or last.endswith("_dataloader")
            or last.endswith(_PER_EPOCH_HOOK_ENDS))


def _called_name(ref) -> Optional[str]:
    """The last name a recorded call calls (``self.helper(...)`` -> ``helper``)."""
    kind = ref[0]
    if kind in ("name", "self", "super"):
        return ref[1]
    if kind == "dotted":
        return ref[1].rsplit(".", 1)[-1]
    if kind in ("selfattr", "inst"):
        return ref[2]
    return None


def module_call_sites(module) -> Dict[str, List[tuple]]:
    """A module's recorded calls by the callee's last name: (caller's qualified name, caller's
    record, call), in the order of its functions and their calls. Kept on the module
    (``Module.derived``: its summary never changes; a changed file is a new Module). The module
    itself is not in them: it would hold itself in a cycle, which only the cyclic collector frees."""
    sites = module.derived.get("call_sites")
    if sites is None:
        sites = module.derived["call_sites"] = {}
        for qual, record in module.functions.items():
            for call in record["calls"]:
                called = _called_name(call[0])
                if called is not None:
                    sites.setdefault(called, []).append((qual, record, call))
    return sites


def _in_loop(record: dict, line: int) -> bool:
    return any(first <= line <= last for first, last in record.get("loops", ()))


class RunOnce:
    """Which functions of the modules a StepBodies walk has read are called only once."""

    def __init__(self, bodies):
        self.bodies = bodies
        self._modules: Optional[List] = None  # the modules read when the first caller was looked for
        self._sites: Dict[str, List[tuple]] = {}  # callee's last name -> its call sites, as first found
        self._known: Dict[Key, bool] = {}

    def _call_sites(self, name: str) -> List[tuple]:
        """(module, caller's qualified name, caller's record, call) of every recorded call whose
        callee's last name is ``name``, over the modules read when the first caller was looked for
        (in the order they were read, then each module's functions and calls in order). Each
        module's calls are indexed by callee name once per process (``module_call_sites``): the
        walks of a run read mostly the same modules, and indexing every read module's calls again
        for each walk that asks was a tenth of a run over a library."""
        if self._modules is None:
            self._modules = list(self.bodies._loaded.values())
        found = list(self._sites_named(name))
        if name == "forward":  # ``model(x)`` runs ``forward``
            found += [s for s in self._sites_named("__call__") if s not in found]
        return found

    def _sites_named(self, name: str) -> List[tuple]:
        known = self._sites.get(name)
        if known is None:
            known = self._sites[name] = [(module, qual, record, call) for module in self._modules
                                         for qual, record, call in module_call_sites(module).get(name, ())]
        return known

    def only_once(self, key: Key, depth: int = 0, seen: Optional[Set[Key]] = None) -> bool:
        """Does the project show callers of ``key`` (path, qualified name), each running it once?"""
        if depth == 0 and key in self._known:
            return self._known[key]
        seen = (seen or set()) | {key}
        answer = self._only_once(key, depth, seen)
        if depth == 0:
            self._known[key] = answer
        return answer

    def _only_once(self, key: Key, depth: int, seen: Set[Key]) -> bool:
        bodies = self.bodies
        callers = 0
        for module, qual, record, call in self._call_sites(key[1].rsplit(".", 1)[-1]):
            ref, line = call[0], call[1]
            own = bodies._own_class(module, record)
            # (``balancer.backward(...)`` on a parameter every visible call hands an instance of
            # one project class: the step-loop call of encodec's ``train_one_step``, beside the
            # self-test that runs it once)
            target = bodies.resolve(module, ref, own, own) or bodies.through_callers(module, qual, record, ref)
            if target is None or target[0] != key:
                continue
            if qual == "<module>" and "." in key[1] and any(
                    first <= line <= last for first, last in record.get("main_guard", ())):
                # a method called by a demo under ``if __name__ == "__main__":`` (EasyEdit's MEND.edit,
                # holdout63): the demo shows no caller of the project's own runs
                continue
            callers += 1
            if call[2] or _in_loop(record, line):
                return False  # a call in a loop (a step loop or any other) may run many times
            if qual == "<module>" or is_run_once_hook(qual):
                continue
            caller = (module.path, qual)
            if depth >= MAX_DEPTH or caller in seen or not self.only_once(caller, depth + 1, seen):
                return False
        return callers > 0
