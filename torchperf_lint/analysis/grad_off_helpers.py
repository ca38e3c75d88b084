"""Loops whose model work runs with autograd off inside local helpers (R7, item 4 of issue 20).

parler-tts precomputes its codec labels once per run in a loop over a loader whose body calls
``apply_audio_decoder(batch)``, a function defined beside the loop whose model call runs under
``with torch.no_grad():``. The loop's body runs no model itself: what it copies to the host was made
with autograd off, although no ``no_grad`` is visible around the loop. R7 asks "with autograd off";
this module answers it for such a loop.

A loop qualifies when its body (nested definitions left out) calls at least one function defined
in the module (a nested ``def`` of an enclosing function, or a module-level one, called by its bare
name) whose model calls all run with autograd off (a grad-off decorator, or every model call inside
a grad-off ``with``; at least one model call), and the body makes no model call of its own outside
a grad-off ``with``. Training is checked by the caller (R7: the loop trains nothing).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional

import libcst as cst

from .tree import descendants

_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
# Methods that manage a module and run no forward pass (``audio_decoder.to(device).eval()``).
_MANAGING = frozenset((
    "to", "cuda", "cpu", "eval", "train", "half", "float", "double", "bfloat16", "parameters",
    "named_parameters", "state_dict", "load_state_dict", "requires_grad_", "zero_grad", "modules",
    "children", "named_modules", "register_buffer", "apply", "type",
))


def _runs_model(call: cst.Call, is_model_call: Callable[[cst.Call], bool]) -> bool:
    """A model call (``model(x)``, ``model.forward(x)``), or a method of a model other than one that
    manages it (``audio_decoder.encode(**batch)``, ``vae.decode(z)``)."""
    if is_model_call(call):
        return True
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value not in _MANAGING):
        return False
    receiver = func.value
    return isinstance(receiver, (cst.Name, cst.Attribute)) and is_model_call(cst.Call(func=receiver))


def _prune(node: cst.CSTNode) -> bool:
    return isinstance(node, _NESTED)


def _model_calls_grad_off(body: cst.CSTNode, is_model_call: Callable[[cst.Call], bool],
                          turns_off: Callable[[cst.BaseExpression], bool]) -> Optional[bool]:
    """True when every model call below ``body`` is inside a grad-off ``with`` (and there is one),
    False when one is not, None when there is none."""
    found = False
    pending: List[tuple] = [(body, False)]
    while pending:
        node, quiet = pending.pop()
        if isinstance(node, _NESTED) and node is not body:
            continue
        if isinstance(node, cst.With) and any(turns_off(item.item) for item in node.items):
            quiet = True
        if isinstance(node, cst.Call) and _runs_model(node, is_model_call):
            if not quiet:
                return False
            found = True
        for child in node.children:
            pending.append((child, quiet))
    return True if found else None


def _local_functions(stack) -> Dict[str, cst.FunctionDef]:
    """The functions defined in the module and in each function around the current node, also
    inside their ``if``/``with``/``try`` blocks (not inside other definitions); the innermost
    definition of a name wins."""
    found: Dict[str, cst.FunctionDef] = {}
    for node in stack:
        if isinstance(node, cst.Module):
            roots = list(node.body)
        elif isinstance(node, cst.FunctionDef):
            roots = [node.body]
        else:
            continue
        for root in roots:
            for inner in descendants(root, prune=_prune):
                if isinstance(inner, cst.FunctionDef):
                    found[inner.name.value] = inner
    return found


def runs_model_with_autograd_off(loop_body: cst.CSTNode, stack, is_model_call: Callable[[cst.Call], bool],
                                 turns_off: Callable[[cst.BaseExpression], bool]) -> bool:
    """Does the loop with ``loop_body`` (``stack``: the nodes above the current one) run its model
    work with autograd off inside local helpers, and none outside (module docstring)?"""
    if _model_calls_grad_off(loop_body, is_model_call, turns_off) is False:
        return False  # a model call of the loop's own body with autograd on
    functions = None
    helped = False
    for node in descendants(loop_body, prune=_prune):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
            continue
        if functions is None:
            functions = _local_functions(stack)
        helper = functions.get(node.func.value)
        if helper is None:
            continue
        if any(turns_off(d.decorator) for d in helper.decorators):
            helped = True
            continue
        answer = _model_calls_grad_off(helper.body, is_model_call, turns_off)
        if answer is False:
            return False
        helped = helped or answer is True
    return helped
