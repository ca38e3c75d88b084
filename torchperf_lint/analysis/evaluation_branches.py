"""Branches that run only in evaluation: the body of ``if stage == "val":`` (a step function that
Lightning's ``training_step`` and ``validation_step`` share, told apart by a stage or mode string
or an enum member: ``phase == RunnerPhase.VALIDATE``), of ``if not self.training:``, and the
``else`` of ``if self.training:``, of ``if is_training:`` and of ``if phase in (TRAIN, VALIDATE):``.

Such a branch trains nothing, whatever the function around it does on the other path: a copy to the
host there is an evaluation result (the lead's reading R8). Only libcst nodes; the stage is read
from a name or attribute whose last identifier says it is one (``stage``, ``mode``, ``split``,
``phase``), compared with a string literal that names evaluation.
"""

from __future__ import annotations

import libcst as cst

from .inference_calls import EVALUATION_STAGES as _EVALUATION_STAGES
from .inference_calls import STAGE_NAME as _STAGE_NAME
from .inference_calls import TRAINING_STAGES as _TRAINING_STAGES
from .inference_calls import bool_op_sense, is_training_flag, stage_values_sense
from .syntax import last_identifier


def _string(expr: cst.BaseExpression):
    """A stage's value: a string literal, or the member of an enum (``RunnerPhase.TRAIN``), lowercased."""
    owner = last_identifier(expr.value) if isinstance(expr, cst.Attribute) else None
    if owner is not None and owner[:1].isupper():
        return expr.attr.value.lower()  # an enum's member (``RunnerPhase.TRAIN``), not ``args.val``
    return expr.evaluated_value if isinstance(expr, cst.SimpleString) else None


def _names_stage(expr: cst.BaseExpression) -> bool:
    name = last_identifier(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
    return name is not None and _STAGE_NAME.search(name) is not None


def _stage_test(test: cst.BaseExpression):
    """True when ``test`` holds only in evaluation, False when it fails only in evaluation (its
    ``else`` runs only there), None otherwise (inference_calls.ast_stage_test's twin)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _stage_test(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        return bool_op_sense([_stage_test(test.left), _stage_test(test.right)], isinstance(test.operator, cst.And))
    if isinstance(test, cst.Attribute) and (test.attr.value == "training" or is_training_flag(test.attr.value, True)):
        return False  # ``self.training``, ``model.training``: true in training
    if isinstance(test, cst.Name) and is_training_flag(test.value, False):
        return False  # ``if is_training:``, ``if train:``
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    left, right = test.left, target.comparator
    if _names_stage(right) and not _names_stage(left):
        left, right = right, left
    if not _names_stage(left):
        return None
    if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
        value = _string(right)
        if value in _EVALUATION_STAGES:
            return isinstance(target.operator, cst.Equal)
        if value in _TRAINING_STAGES:
            return isinstance(target.operator, cst.NotEqual)
        return None
    if isinstance(target.operator, cst.In) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        return stage_values_sense({_string(e.value) for e in right.elements})
    return None


def in_evaluation_branch(stack) -> bool:
    """Is the last node of ``stack`` in a branch of the current function that runs only in
    evaluation? A function or class between them ends the search. Also after an ``if`` that holds
    in training and leaves the block, with no ``else`` (``if self.training: return losses``), in the
    same block (R168)."""
    for index in range(len(stack) - 2, -1, -1):
        node = stack[index]
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, cst.If):
            child = stack[index + 1]
            sense = _stage_test(node.test)
            if sense is True and child is node.body:
                return True
            if sense is False and child is node.orelse and isinstance(child, cst.Else):
                return True
        elif isinstance(node, (cst.IndentedBlock, cst.Module)):
            child = stack[index + 1]
            for statement in node.body:
                if statement is child:
                    break
                if _evaluation_rest(statement):
                    return True
    return False


def _evaluation_rest(statement) -> bool:
    """``if <holds in training>: ... return`` (or ``raise``, ``continue``, ``break``), no ``else``:
    what follows it in its block runs only in evaluation (inference_calls.ast_evaluation_rest's twin)."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return False
    body = statement.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    parts = last.body if isinstance(last, cst.SimpleStatementLine) else (
        body.body if isinstance(body, cst.SimpleStatementSuite) else ())
    return (bool(parts) and isinstance(parts[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break))
            and _stage_test(statement.test) is False)
