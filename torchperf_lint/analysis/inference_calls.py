"""Calls that run inference only (the lead's reading R7, carried along the call chain).

R7: in a loop that trains nothing (no backward, no optimizer or scaler step), with autograd off, a
copy to the host that host code keeps is the result the run is for, not a per-step sync. The loop
and the ``no_grad`` are often in another function than the copy: Deformable-DETR's ``evaluate()``
(``@torch.no_grad()``, a loop over the loader that steps nothing) calls ``coco_evaluator.update``,
whose helper turns boxes into COCO result dicts with ``.tolist()`` in another file.

The project index records, per call, how it is made (``call_mode``): under autograd off (a ``with
torch.no_grad():`` around it or a decorator on its function), inside a loop of its function, and
whether that loop trains. The step-body walk carries two facts along each chain (``chain_state``):
autograd is off on the way, and the innermost loop on the way trains. A function reached only by
chains with autograd off and no training loop runs inference only.

Lightning runs ``validation_step`` and ``test_step`` with autograd off, in a loop that trains
nothing: such a root starts a chain that runs inference (rules.md keeps them step bodies; R7 is
what they are a step body of).
"""

from __future__ import annotations

import ast
import re
from typing import Optional, Tuple

from .names import canonical, dotted_name_ast, turns_grad_off

# Bits of a call record's mode.
GRAD_OFF = 1  # autograd is off where the call is made
IN_LOOP = 2  # the call is inside a loop of the calling function
LOOP_TRAINS = 4  # ... and that (innermost) loop runs a backward or an optimizer/scaler step
# ... inside a branch of its function that runs only in evaluation (``if stage == "val":``,
# ``if not self.training:``): the callee runs from there in no training step, whatever the caller
# does on its other paths (R8, carried to the callee: evaluation_branches.py says it for the branch)
EVALUATION_BRANCH = 8

# A stage's name is one of these words, alone or as the last part of a snake_case name
# (``stage``, ``self.mode``, ``run_phase``); ``model`` or ``mode_weights`` is no stage.
STAGE_NAME = re.compile(r"(?:^|_)(?:stage|mode|split|phase)$", re.IGNORECASE)
EVALUATION_STAGES = frozenset(("val", "valid", "validate", "validation", "test", "eval", "evaluation", "predict",
                               "inference"))
TRAINING_STAGES = frozenset(("train", "training", "fit"))
# A flag that is true in training: ``if is_training:`` (EasyTPP's run_batch), ``if train:``; on an
# attribute not ``.train`` (``nn.Module.train`` is a method, always true).
TRAINING_FLAG = re.compile(r"^(?:is_|in_|do_)?train(?:ing)?(?:_mode|_phase)?$", re.IGNORECASE)

# Names that say a function may run a training step (R8: a loop that calls one, or a chain through
# one, is not known to train nothing): ``train_step``, ``training_step``, ``take_step``,
# ``optimizer_step``, ``run_backward``, ``step``; not the evaluation steps (``validation_step``,
# ``eval_step``, ``test_step``, ``predict_step``, ``inference_step``).
_TRAINING_NAME = re.compile(r"train|backward|(?:^|_)step$|optimi[sz]", re.IGNORECASE)
_EVALUATION_NAME = re.compile(
    r"(?:^|_)(?:val|valid|validation|eval|evaluation|test|predict|prediction|inference)_step$", re.IGNORECASE)

# Lightning evaluation steps: the framework runs them under no_grad/inference_mode, training nothing.
LIGHTNING_EVALUATION_STEPS = frozenset(("validation_step", "test_step"))


def ast_turns_grad_off(expr: ast.AST, table) -> bool:
    """A ``with`` item or decorator that disables autograd (``torch.no_grad()``, ``@torch.inference_mode()``)."""
    target = expr.func if isinstance(expr, ast.Call) else expr
    dotted = dotted_name_ast(target)
    return turns_grad_off(canonical(table.resolve(dotted)) if dotted else None, dotted)


def call_mode(grad_off: bool, loop_trains: Optional[bool], evaluating: bool = False) -> int:
    """The mode of a call made with autograd off or on, in a loop that trains (True), in one that
    does not (False), or in no loop of its function (None); ``evaluating``: in a branch that runs
    only in evaluation."""
    mode = GRAD_OFF if grad_off else 0
    if loop_trains is not None:
        mode |= IN_LOOP | (LOOP_TRAINS if loop_trains else 0)
    if evaluating:
        mode |= EVALUATION_BRANCH
    return mode


def chain_state(mode: int, grad_off: bool, trains: bool, caller_backward: bool) -> Tuple[bool, bool]:
    """(autograd off, innermost loop trains) for a callee reached by a call of ``mode`` from a
    caller whose chain has ``grad_off`` and ``trains``; a caller that calls backward itself trains.
    A call in a branch that runs only in evaluation trains nothing, whatever the caller's other
    paths do."""
    off = grad_off or bool(mode & GRAD_OFF)
    if mode & EVALUATION_BRANCH:
        return off, False
    if mode & IN_LOOP:
        return off, bool(mode & LOOP_TRAINS) or caller_backward
    return off, trains or caller_backward


def runs_inference(grad_off: bool, trains: bool) -> bool:
    return grad_off and not trains


def chain_level(grad_off: bool, trains: bool) -> int:
    """How much of training a chain runs: 0 inference only (autograd off, no training loop), 1
    evaluation with autograd on (no training loop), 2 training. A function's highest level over
    every chain to it decides both R7 (level 0 only) and R8 (never level 2)."""
    if trains:
        return 2
    return 0 if grad_off else 1


# A getter, loader or reporter of training things (``get_train_smiles``, ``load_train_data``,
# ``log_train_metrics``) does not say it trains: "train" there names the data split, not the act.
_FETCHES_TRAINING_THINGS = re.compile(
    r"^_*(?:get|load|build|make|create|prepare|read|download|split|save|write|plot|show|print|format|parse"
    r"|collate|log|visuali[sz]e|count|describe|dump)_(?!.*(?:backward|(?:^|_)step$|optimi[sz]))",
    re.IGNORECASE)


# A name that ends in what it does to the training data: ``train_evaluate`` (kd-pytorch: the
# accuracy on the training set, holdout41), ``train_set_eval``; ``train_and_evaluate`` does both.
_EVALUATES_LAST = re.compile(r"(?:^|_)(?:eval|evaluate|evaluation|validate|validation|test|predict|inference)$",
                             re.IGNORECASE)


def names_training(name: str) -> bool:
    """Does a function's or method's own name say it may train (``train_step``, ``take_step``)?"""
    return (_TRAINING_NAME.search(name) is not None and _EVALUATION_NAME.search(name) is None
            and _FETCHES_TRAINING_THINGS.match(name) is None
            and (_EVALUATES_LAST.search(name) is None or "_and_" in name.lower()))


def _ast_string(node) -> Optional[str]:
    """A stage's value: a string literal, or the member of an enum (``RunnerPhase.TRAIN``), lowercased."""
    owner = node.value if isinstance(node, ast.Attribute) else None
    owner = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else None
    if owner is not None and owner[:1].isupper():
        return node.attr.lower()  # an enum's member (``RunnerPhase.TRAIN``), not ``args.val``
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def is_training_flag(name: Optional[str], attribute: bool) -> bool:
    """Does a name (or an attribute's last identifier) say it is true in training?"""
    return name is not None and TRAINING_FLAG.match(name) is not None and not (attribute and name == "train")


def stage_values_sense(values) -> Optional[bool]:
    """The sense of ``stage in (<values>)``: True when every value is an evaluation stage (the body
    runs only in evaluation), False when a training stage is among known stages (the ``else`` runs
    only in evaluation: ``phase in (TRAIN, VALIDATE)``), None otherwise."""
    if not values or None in values or not values <= EVALUATION_STAGES | TRAINING_STAGES:
        return None
    return False if values & TRAINING_STAGES else True


def bool_op_sense(senses, conjunction: bool) -> Optional[bool]:
    """The sense (ast_stage_test) of an ``and`` (``conjunction``) or ``or`` of tests with ``senses``:
    an ``and`` with one operand that holds only in evaluation holds only there; an ``or`` with one that
    holds in training holds there, so that what its ``else`` (or an early return under it) guards
    runs only in evaluation (myria3d's ``if self.training or "copies" not in batch: return``, R168)."""
    if conjunction:
        return True if True in senses else (False if all(sense is False for sense in senses) else None)
    return False if False in senses else (True if all(sense is True for sense in senses) else None)


def ast_leaves_block(body) -> bool:
    """Does a block end by leaving it (``return``, ``raise``, ``continue``, ``break``)? The
    statements after an ``if`` whose body does run only when its test failed."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def ast_evaluation_rest(stmt) -> bool:
    """Is ``stmt`` an ``if`` that holds in training and leaves its block, with no ``else``
    (``if self.training: return losses``)? What follows it in the block runs only in evaluation
    (R168, R8's evaluation branch)."""
    return (isinstance(stmt, ast.If) and not stmt.orelse and ast_leaves_block(stmt.body)
            and ast_stage_test(stmt.test) is False)


def _ast_names_stage(node) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name is not None and STAGE_NAME.search(name) is not None


def ast_stage_test(test: ast.AST) -> Optional[bool]:
    """The ``ast`` twin of evaluation_branches' test: True when ``test`` holds only in evaluation
    (``stage == "val"``, ``mode in ("val", "test")``, ``not self.training``), False when it fails
    only in evaluation, so that its ``else`` runs only there (``self.training``, ``if is_training:``,
    ``stage == "train"``, ``phase in (RunnerPhase.TRAIN, RunnerPhase.VALIDATE)``), None otherwise."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = ast_stage_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        return bool_op_sense([ast_stage_test(value) for value in test.values], isinstance(test.op, ast.And))
    if isinstance(test, ast.Attribute) and (test.attr == "training" or is_training_flag(test.attr, True)):
        return False
    if isinstance(test, ast.Name) and is_training_flag(test.id, False):
        return False
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right, operator = test.left, test.comparators[0], test.ops[0]
    if _ast_names_stage(right) and not _ast_names_stage(left):
        left, right = right, left
    if not _ast_names_stage(left):
        return None
    if isinstance(operator, (ast.Eq, ast.NotEq)):
        value = _ast_string(right)
        if value in EVALUATION_STAGES:
            return isinstance(operator, ast.Eq)
        if value in TRAINING_STAGES:
            return isinstance(operator, ast.NotEq)
        return None
    if isinstance(operator, ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        return stage_values_sense({_ast_string(e) for e in right.elts})
    return None


_BLOCK_STATEMENTS = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.ExceptHandler)


def _before_evaluation_rest(statements) -> list:
    """``statements`` up to and with the first ``if`` that holds in training and leaves the block
    (ast_evaluation_rest): those after it run only in evaluation."""
    for index, stmt in enumerate(statements):
        if ast_evaluation_rest(stmt):
            return list(statements[:index + 1])
    return list(statements)


def called_outside_evaluation(body) -> frozenset:
    """The last names of the functions and methods that ``body`` (a function's statements, nested
    definitions apart) calls outside its branches that run only in evaluation, those under an
    interval ``if`` included (the project index records no call there). A call in an evaluation
    branch of a callee that the function also calls elsewhere (trl's ``_prepare_inputs``: ``if mode
    == "train": (every N steps) self._generate(...) else: self._generate(...)``) does not make the
    callee evaluation code: it runs in training too."""
    names = set()
    pending = _before_evaluation_rest(body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If):
            sense = ast_stage_test(node.test)
            pending.append(node.test)
            if sense is not True:
                pending.extend(_before_evaluation_rest(node.body))
            if sense is not False:
                pending.extend(_before_evaluation_rest(node.orelse))
            continue
        if isinstance(node, _BLOCK_STATEMENTS):
            # (the statements of its blocks, less what follows an early return in training: R168)
            for field, value in ast.iter_fields(node):
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    pending.extend(_before_evaluation_rest(value))
                elif isinstance(value, list):
                    pending.extend(item for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    pending.append(value)
            continue
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name is not None:
                names.add(name)
        pending.extend(ast.iter_child_nodes(node))
    return frozenset(names)
