"""Host-only scripts (rules.md "Where a value lives"): a script that names no device at all.

A file whose text never names a device or something that picks one (``cuda``, ``device``, ``.to(``,
``mps``, ``xla``, an accelerator, a framework that places tensors for the user, ``torch.distributed``)
makes every tensor on the CPU, so nothing it reads back waits for a device. That holds only when
no value comes in from elsewhere: the file must be a script that runs by itself (module-level code
runs a loop or calls its functions), that no other project module imports (whose functions could be
handed device tensors) and that imports no project module (which could hand it some). pytorch/examples' ``regression/main.py`` and
``reinforcement_learning/actor_critic.py`` are such scripts; their per-step helpers stay silent.
"""

from __future__ import annotations

import re
from typing import Sequence

_DEVICE_WORDS = re.compile(
    r"cuda|device|\.to\(|\bmps\b|(?<![a-z])xla(?![a-z])|accelerat|fabric|deepspeed|lightning|trainer|\bnpu\b|\bhpu\b|\bxpu\b"
    r"|\bipu\b|distributed|nccl|\btpu\b",
    re.I,
)


def names_no_device(lines: Sequence[str]) -> bool:
    """Does no line of the file name a device (see the module docstring)?"""
    return not any(_DEVICE_WORDS.search(line) for line in lines)


def host_only_script(lines: Sequence[str], bodies) -> bool:
    """Is the file a host-only script: it names no device, it runs by itself (module-level code runs
    a step loop or calls a function of the file: a script, not a library whose functions are handed
    values by callers we cannot see), and (``bodies``: its step_bodies.StepBodies) no module of the
    project imports it and it imports none?"""
    if not names_no_device(lines) or bodies is None:
        return False
    return _runs_by_itself(bodies.module) and not bodies.shares_values_with_project()


def _runs_by_itself(module) -> bool:
    record = module.functions.get("<module>")
    if record is None:
        return False
    if record.get("drives"):
        return True
    return any(ref[0] == "name" and ref[1] in module.functions for ref, *_ in record["calls"])
