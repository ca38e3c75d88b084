"""Project functions that cannot train with what they are handed: no step work of their own, and
calls of library functions only.

TPL102 reads a loop that hands an optimizer to a call (``loss_scaler(loss, optimizer, ...)``, the
DeiT/MAE wrapper that runs backward and the step in another module) as a loop that trains, and it
knows an optimizer by its name (``opt``, ``optimizer``, ``scaler``). A name can say ``opt`` for
"optimised" too: PARE's demo inference loop hands SMPLify's refined camera ``new_opt_cam`` to
``convert_weak_perspective_to_perspective``, a project function whose whole body is one
``torch.stack`` of the camera's columns. A function the project shows, that calls no backward,
steps nothing and calls only library functions (no function, method or class of the project),
cannot run a training step with what it is handed, whatever that is: the call does not make the
loop train.
"""

from __future__ import annotations

from typing import Optional

# Method names of step work on any receiver (the index records ``x.step()`` as a dotted call).
_STEP_WORK = frozenset(("backward", "step", "zero_grad", "manual_backward"))


def _callee(bodies, dotted: str, scope: str):
    """(module, record) of the project function ``dotted`` names in the linted file's function
    ``scope``: one of the file's own (nested ones first), or one reached through its imports."""
    module = bodies.module
    if "." not in dotted:
        while scope:
            record = None if scope in module.classes else module.functions.get(f"{scope}.{dotted}")
            if record is not None:
                return module, record
            scope = scope.rpartition(".")[0]
        record = module.functions.get(dotted)
        if record is not None:
            return module, record
    found = bodies.symbol(module.resolve(dotted), load=True)
    if found is None or found[0] != "function":
        return None
    return found[1], found[1].functions.get(found[2])


def _library_call(bodies, module, ref) -> bool:
    """Is the call ``ref`` (a project index call reference of ``module``) one of a library function
    that is no step work: a dotted name or a bare name that the project does not define?"""
    if ref[0] not in ("dotted", "name"):
        return False  # ``self.x(...)``, an instance's method: the project's own code
    name = ref[1]
    if name.rpartition(".")[2] in _STEP_WORK:
        return False
    if ref[0] == "name" and (name in module.functions or name in module.classes):
        return False
    resolved = module.resolve(name)
    if resolved is None:
        # a builtin, or a name bound in the function (a parameter called, a local): a local may
        # be anything, so only a dotted call through a module the file imports counts
        return ref[0] == "name" and name in _BUILTINS
    return not _in_project(bodies, resolved)


def _in_project(bodies, dotted: str) -> bool:
    """Does ``dotted`` (an absolute name) name something of a module of the project?"""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix == bodies.module.name or (bodies.project is not None and bodies.project.path_of(prefix)):
            return True
    return False


_BUILTINS = frozenset("len range min max abs sum int float str bool list tuple dict set zip enumerate isinstance "
                      "print round sorted reversed any all map filter getattr hasattr".split())


def trains_nothing(bodies, dotted: Optional[str], scope: str) -> bool:
    """Is ``dotted`` (a callee's bare or dotted name in the linted file's function ``scope``) a
    project function that cannot train with its arguments: it calls no backward, steps no
    optimizer, and every call it makes is a library function's that is no step work?"""
    if bodies is None or not dotted:
        return False
    found = _callee(bodies, dotted, scope)
    if found is None or found[1] is None:
        return False
    module, record = found
    if record.get("backward"):
        return False
    return all(_library_call(bodies, module, call[0]) for call in record["calls"])
