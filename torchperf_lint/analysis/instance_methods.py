"""Methods of a project class called on a name or a ``self.`` attribute bound to an instance of it
(TPL102; issue 20, holdout7; prec9).

cleanrl's prioritized replay writes ``rb = PrioritizedReplayBuffer(...)`` once and, every update,
``rb.update_priorities(data.indices, new_priorities)``, a method of the same file that hands its
``priorities`` parameter to ``np.abs``: the copy it is given must reach the host (the lead's reading
R3, a numpy consumer). host_library_parameters.project_function follows bare and dotted function
names only; this finds the method record of ``name.method(...)`` where ``name``'s value in the
function is a call of a class the file defines, and binds the call's arguments past ``self``.
dirichlet-flow-matching's ``self.condflow.c_factor(xt.cpu().numpy(), s.item())``, with
``self.condflow = DirichletConditionalFlow(...)`` in ``__init__`` and ``c_factor`` in another file
handing both parameters to scipy and numpy, is the same through an attribute (attribute_method).
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from .syntax import dotted_name


def instance_method(bodies, func: cst.BaseExpression,
                    assigned_expr: Callable[[str], Optional[cst.BaseExpression]]) -> Optional[dict]:
    """The index record of ``Class.method`` when ``func`` is ``name.method`` and ``name`` is bound
    (``assigned_expr``: its reaching value in the function) to ``Class(...)``, a project class of the
    linted file or imported from another (through its project bases); None otherwise (``self.``
    attributes and objects handed in are not followed here)."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)) or func.value.value in ("self", "cls"):
        return None
    made = assigned_expr(func.value.value)
    if not (isinstance(made, cst.Call) and isinstance(made.func, (cst.Name, cst.Attribute))):
        return None
    module = getattr(bodies, "module", None)
    if module is None:
        return None
    if isinstance(made.func, cst.Name) and made.func.value in module.classes:
        return module.functions.get(f"{made.func.value}.{func.attr.value}")
    # a class imported from another project file (openvla's ``action_tokenizer =
    # ActionTokenizer(processor.tokenizer)`` in finetune.py, the class in prismatic/vla/): what
    # annotated_method finds for a parameter annotated with it, R34
    dotted = dotted_name(made.func)
    ask = getattr(bodies, "class_method", None)
    return ask(dotted, func.attr.value) if dotted and ask is not None else None


def attribute_method(bodies, func: cst.BaseExpression, qualname: Optional[str]) -> Optional[dict]:
    """The index record of ``Class.method`` when ``func`` is ``self.<attr>.method`` in the method
    ``qualname`` and ``__init__`` binds ``self.<attr>`` to ``Class(...)``, a project class in any
    file (step_bodies.StepBodies.attribute_method); None otherwise."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute)
            and isinstance(func.value.value, cst.Name) and func.value.value.value == "self") or not qualname:
        return None
    ask = getattr(bodies, "attribute_method", None)
    return ask(qualname, func.value.attr.value, func.attr.value) if ask is not None else None


def own_method(bodies, func: cst.BaseExpression, qualname: Optional[str]) -> Optional[dict]:
    """The index record of the method ``func`` (``self.<method>``) names in the method ``qualname``:
    the class's own or a project base's (sac-discrete's ``pas = self._pa(ps)``, which hands ``ps``
    to ``np.clip``, holdout126; R160); None otherwise."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
            and func.value.value == "self") or not qualname:
        return None
    ask = getattr(bodies, "own_method", None)
    return ask(qualname, func.attr.value) if ask is not None else None


def attribute_module_forward(bodies, func: cst.BaseExpression, qualname: Optional[str]) -> Optional[dict]:
    """The index record of ``Class.forward`` when ``func`` is ``self.<attr>`` (a call of a module
    kept on ``self``) in the method ``qualname`` and ``__init__`` binds ``self.<attr>`` to
    ``Class(...)``, a project class in any file: ``self.encoder(x, lengths)`` runs
    ``Encoder.forward(x, lengths)``, its arguments in the same places; None otherwise."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
            and func.value.value == "self") or not qualname:
        return None
    ask = getattr(bodies, "attribute_method", None)
    return ask(qualname, func.attr.value, "forward") if ask is not None else None


def annotated_method(bodies, func: cst.BaseExpression, function: Optional[cst.FunctionDef]) -> Optional[dict]:
    """The index record of ``Class.method`` when ``func`` is ``name.method`` and ``name`` is a
    parameter of ``function`` annotated with a project class, in any file (openvla's
    ``action_tokenizer: ActionTokenizer`` ... ``action_tokenizer.decode_token_ids_to_actions(ids)``,
    with the class in another module: rules.md "Where a value lives" and R34, an annotation that
    names a class is what the value is); None otherwise."""
    if function is None or not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None
    name = func.value.value
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value != name:
            continue
        annotation = param.annotation.annotation if param.annotation is not None else None
        dotted = _dotted(annotation)
        ask = getattr(bodies, "class_method", None)
        return ask(dotted, func.attr.value) if dotted and ask is not None else None
    return None


def _dotted(expr) -> Optional[str]:
    """The dotted name an annotation writes, also as a string (``"ActionTokenizer"``)."""
    if isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value
        return text if isinstance(text, str) and text.replace(".", "").replace("_", "").isalnum() else None
    return dotted_name(expr) if expr is not None else None


def method_parameter(record: dict, position: Optional[int], keyword: Optional[str]) -> Optional[str]:
    """The parameter of the method ``record`` that an instance call's argument binds: ``position``
    among the positional arguments (after ``self``), or ``keyword``."""
    params = [p[0] for p in record.get("params", ())]
    if not params or params[0] != "self":
        return None  # a static or class method: how its arguments bind is not read here
    params = params[1:]
    if keyword is not None:
        return keyword if keyword in params else None
    if position is None:
        return None
    return params[position] if position < len(params) else None
