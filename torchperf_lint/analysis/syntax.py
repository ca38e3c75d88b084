"""Small questions about libcst nodes that several rules ask: names, arguments, steps, loops."""

from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, Iterator, List, Optional, Tuple

import libcst as cst

from .names import AUTOCASTS, SCALERS, is_torch_name, turns_grad_off  # noqa: F401 (re-exported)
from .names import MODULO_FUNCTIONS, MODULO_OWNERS, TRAINER_CONTROL_FLAGS, is_process_rank, is_shard_split, setting_root
from .step_loops import (  # noqa: F401 (re-exported)
    OPTIMIZER_WORD, is_counter_name, is_model_name, is_step_or_batch_counter, is_step_shape, names_holding)
from .in_memory import classify
from .tree import descendants, less_than_sides


# ---- names -------------------------------------------------------------------------------------
def dotted_name(expr: cst.CSTNode) -> Optional[str]:
    parts: List[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


def last_identifier(expr: cst.CSTNode) -> Optional[str]:
    """``self.model`` -> ``model``; ``model`` -> ``model``; anything else -> None."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if isinstance(expr, cst.Name):
        return expr.value
    return None


def method_call(node: cst.CSTNode) -> Optional[Tuple[cst.BaseExpression, str]]:
    """``recv.name(...)`` -> (recv, name)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.value, node.func.attr.value
    return None


def assigned_names(target: cst.CSTNode) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from assigned_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from assigned_names(target.value)


def parameter_names(params: cst.Parameters) -> Iterator[str]:
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        yield param.name.value
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star.name.value


def import_bindings(node: cst.CSTNode) -> Iterator[Tuple[str, Optional[str]]]:
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted_name(alias.name)
            if alias.asname is not None:
                yield alias.asname.name.value, full
            elif full:
                top = full.split(".")[0]
                yield top, top
    elif isinstance(node, cst.ImportFrom):
        if isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module) if node.module is not None else None
        relative = bool(node.relative)
        for alias in node.names:
            name = dotted_name(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            yield local, (None if relative or not module else f"{module}.{name}")


# ---- arguments ---------------------------------------------------------------------------------
def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def has_splat(call: cst.Call) -> bool:
    """``f(*args)`` or ``f(**kwargs)``: a value the linter cannot see may be in there."""
    return any(arg.star for arg in call.args)


def has_double_splat(call: cst.Call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def positional(call: cst.Call) -> List[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def is_true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def is_false(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def string_value(expr: cst.BaseExpression) -> Optional[str]:
    if isinstance(expr, cst.SimpleString):
        try:
            return expr.evaluated_value if isinstance(expr.evaluated_value, str) else None
        except Exception:  # odd prefixes: treat as unknown
            return None
    return None


def int_value(expr: cst.BaseExpression) -> Optional[int]:
    if isinstance(expr, cst.Integer):
        try:
            return int(expr.value.replace("_", ""), 0)
        except ValueError:
            return None
    return None


def is_literal_data(expr: cst.BaseExpression) -> bool:
    """Data written in the source: a list, tuple, number or comprehension (TPL101's ``tensor([...])``)."""
    if isinstance(expr, (cst.List, cst.Tuple, cst.Integer, cst.Float, cst.ListComp, cst.GeneratorExp)):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return is_literal_data(expr.expression)
    return False


# ---- devices -----------------------------------------------------------------------------------
_DEVICE_WORD = re.compile(
    r"(^|_)(device|dev|gpu|cuda|local_rank|rank|devices)$|device|(^|_)(gpu|cuda|rank|dev)_?(id|ids|idx|index|num)$",
    re.I,
)
# Calls that return the accelerator in use.
_ACCELERATOR_CALLS = frozenset((
    "torch.accelerator.current_accelerator", "torch.cuda.current_device", "torch.xpu.current_device",
    "torch.get_default_device",
))
_ACCELERATOR_PREFIXES = ("cuda", "xpu", "mps", "hpu", "npu", "mtia", "xla")


def text_device_kind(text: str) -> Optional[str]:
    """A device written as a string (``"cuda:0"``, ``"cpu"``): "cpu", "accelerator" or None."""
    if text.startswith("cpu"):
        return "cpu"
    return "accelerator" if text.startswith(_ACCELERATOR_PREFIXES) else None


def name_device_kind(name: str) -> Optional[str]:
    """A ``.to()`` argument by its name alone (``device``, ``args.local_rank``, ``weight_dtype``):
    "dtype", "cpu", "accelerator" or None. The ``ast`` side reads names with it too (return_kinds)."""
    if "dtype" in name.lower():
        return "dtype"
    if name.lower() == "cpu":
        return "cpu"
    return "accelerator" if _DEVICE_WORD.search(name) else None


def device_kind(expr: cst.BaseExpression, ctx, _depth: int = 0) -> Optional[str]:
    """Classify a ``.to(...)`` argument: "cpu", "accelerator", "dtype" or None (cannot tell)."""
    text = string_value(expr)
    if text is not None:
        return text_device_kind(text)
    if isinstance(expr, cst.Integer):
        return "accelerator"  # .to(0) is cuda:0
    if isinstance(expr, cst.IfExp) and _depth < 8:
        # ``"cuda:0" if torch.cuda.is_available() else "cpu"``: a device chosen at run time, the
        # accelerator wherever there is one (KDD2023-DCdetector's RevIN, holdout198; R172)
        kinds = {device_kind(expr.body, ctx, _depth + 1), device_kind(expr.orelse, ctx, _depth + 1)}
        return "accelerator" if "accelerator" in kinds and kinds <= {"accelerator", "cpu"} else None
    if isinstance(expr, cst.FormattedString):  # f"cuda:{rank}"
        head = expr.parts[0] if expr.parts else None
        return text_device_kind(head.value) if isinstance(head, cst.FormattedStringText) else None
    if isinstance(expr, cst.Call):
        qual = ctx.qualname(expr.func)
        if qual in _ACCELERATOR_CALLS:
            return "accelerator"
        if qual == "torch.device":
            args = positional(expr)
            if args:
                return device_kind(args[0].value, ctx)
            type_arg = keyword(expr, "type")
            return device_kind(type_arg.value, ctx) if type_arg else None
        called = last_identifier(expr.func)
        if not expr.args and called is not None and not is_torch_name(qual) and _DEVICE_WORD.search(called) \
                and "name" not in called.lower():
            # ``.to(self._device())``, a method of the project that names what it returns
            # (continual-learning's ``return next(self.parameters()).device``), as ``.to(self.device)``
            return "accelerator"
        return None
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        # ``.to(self.args["device"])``, ``.to(cfg["gpu_id"])``: a settings mapping's device entry,
        # as ``.to(args.device)`` (GEARS)
        key = string_value(expr.slice[0].slice.value)
        return "accelerator" if key and _DEVICE_WORD.search(key) and "dtype" not in key.lower() else None
    qual = ctx.qualname(expr)
    if is_torch_name(qual):
        return "dtype" if qual.count(".") == 1 else None  # torch.float16 and friends
    name = last_identifier(expr)
    if name is None:
        return None
    if isinstance(expr, cst.Name) and not _DEVICE_WORD.search(name) and "dtype" not in name.lower():
        assigned = ctx.values.assigned_expr(name)  # ``d = torch.device("cuda")`` ... ``.to(d)``
        return device_kind(assigned, ctx, _depth + 1) if assigned is not None and _depth < 8 else None
    if name == "device" and isinstance(expr, cst.Attribute):
        return "accelerator"  # x.device: where another tensor lives (CPU tensors rarely matter here)
    return name_device_kind(name)


def move_target(call: cst.Call, ctx) -> Optional[str]:
    """If ``call`` is ``x.cuda(...)`` or ``x.to(<device>)``, the kind of move ("accelerator"); else None."""
    found = method_call(call)
    if found is None:
        return None
    _, name = found
    if name == "cuda":
        return "accelerator"
    if name != "to":
        return None
    device_arg = keyword(call, "device")
    if device_arg is not None:
        return "accelerator" if device_kind(device_arg.value, ctx) == "accelerator" else None
    args = positional(call)
    if not args:
        return None
    return "accelerator" if device_kind(args[0].value, ctx) == "accelerator" else None


# ---- training steps ----------------------------------------------------------------------------
# The names and shapes live in step_loops.py (one definition for the libcst and the ast side); these
# are the name-only forms, for code that has no module facts at hand.
def is_model_call(call: cst.Call) -> bool:
    return is_model_name(last_identifier(call.func))


def is_step_call(call: cst.Call) -> bool:
    """``loss.backward()``, ``optimizer.step()``/``scaler.step(opt)``, or a model call (by name)."""
    found = method_call(call)
    if found is not None:
        return is_step_shape(found[1], last_identifier(found[0]), found[1], frozenset())
    return is_step_shape(None, None, last_identifier(call.func), frozenset())


def _is_definition(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))  # defining runs nothing


def runs_step(node: cst.CSTNode) -> bool:
    return any(
        isinstance(n, cst.Call) and is_step_call(n) for n in descendants(node, prune=_is_definition)
    )


# (not a method that shows or stores losses: MGN-pytorch's ``self.loss.display_loss(batch)`` joins
# formatted strings, holdout151; R126)
_LOSS_FUNCTION = re.compile(
    r"(?i)^(?!(?:display|show|print|plot|format|report|draw|dump|save|write|visuali[sz]e)_)"
    r"(?:criterion|\w*_criterion|loss_fn|loss_func|compute_loss|\w*_loss|loss)$")
_OPTIMIZER_WORD = OPTIMIZER_WORD


def _statements(block: cst.CSTNode) -> List[cst.CSTNode]:
    if isinstance(block, (cst.If, cst.Else)):
        block = block.body
    body = getattr(block, "body", ())
    return list(body) if isinstance(body, (list, tuple)) else []


def branch_leaves(branch: cst.CSTNode, failures: bool = True) -> bool:
    """Does this branch end by leaving the loop (``break``, ``return``, ``raise``)? Without
    ``failures``, only ``break`` and ``return``: a ``raise`` or an exit call ends a run that went
    wrong, not a loop that is done."""
    if isinstance(branch, cst.If):  # an ``elif`` chain: the branch is the elif's own body
        branch = branch.body
    for stmt in _statements(branch):
        # ``if stop: break`` on one line: the suite holds the small statements themselves
        small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else (
            (stmt,) if isinstance(stmt, cst.BaseSmallStatement) else ())
        for part in small:
            if isinstance(part, (cst.Break, cst.Return)):
                return True
            if not failures:
                continue
            if isinstance(part, cst.Raise):
                return True
            if isinstance(part, cst.Expr) and isinstance(part.value, cst.Call) and dotted_name(
                part.value.func
            ) in _EXITS:
                return True  # ``sys.exit(1)`` ends the run
    return False


_EXITS = frozenset(("sys.exit", "exit", "quit", "os._exit"))


def chain_leaves(node: cst.If, failures: bool = True) -> bool:
    """Does a branch of this ``if``, of its ``elif``s or of its ``else`` leave the loop? Then its
    test decides whether the loop stops (a line search's ``if not finite: ... elif worse: ...
    else: break``: every test of the chain picks whether the ``else`` runs)."""
    current: Optional[cst.CSTNode] = node
    while isinstance(current, cst.If):
        if branch_leaves(current.body, failures):
            return True
        current = current.orelse
    return isinstance(current, cst.Else) and branch_leaves(current.body, failures)


def branch_skips_rest(branch: cst.CSTNode) -> bool:
    """Does this branch end the current time round a loop: leave it (``branch_leaves``) or go on
    to the next time round (``continue``)?"""
    if branch_leaves(branch):
        return True
    if isinstance(branch, cst.If):
        branch = branch.body
    return any(isinstance(part, cst.Continue) for stmt in _statements(branch)
               for part in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()))


def branch_returns(branch: cst.CSTNode) -> bool:
    """Does this branch end by ``return`` (and neither raise nor exit before it)?"""
    if isinstance(branch, cst.If):
        branch = branch.body
    for stmt in _statements(branch):
        for part in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()):
            if isinstance(part, cst.Return):
                return True
            if isinstance(part, (cst.Raise, cst.Break)):
                return False
    return False


def tests_interval(test: cst.BaseExpression, outer_counters: FrozenSet[str] = frozenset(),
                   interval_names: FrozenSet[str] = frozenset()) -> bool:
    """``if step % log_every == 0`` (any test using ``%``, also inside ``or``/``and``) runs every N
    steps; ``if i == 0:`` / ``if step == 0:`` (a counter against a number) runs once. See
    ``tests_once`` for ``outer_counters``; ``interval_names`` hold such tests (``interval_names``)."""
    shards: list = []  # (a second walk only for a test that holds a ``%``: _step_modulo)
    for n in descendants(test):
        if _step_modulo(n, test, shards):
            return True
        if interval_names and isinstance(n, cst.Name) and n.value in interval_names:
            return True
        if (isinstance(n, cst.Attribute) and n.attr.value in TRAINER_CONTROL_FLAGS
                and last_identifier(n.value) == "control"):
            return True  # ``if self.control.should_log:`` (R174)
    return tests_once(test, outer_counters)


def _step_modulo(n: cst.CSTNode, test: cst.BaseExpression, shards: list) -> bool:
    """Is ``n`` (a node of ``test``) a ``%`` of the step, not a process's share (``shards`` holds
    the test's shard splits once asked), or ``np.mod(step, n)`` (``%`` by another name)?"""
    if isinstance(n, cst.BinaryOperation):
        if not isinstance(n.operator, cst.Modulo):
            return False
        if not shards:
            shards.append(_shard_splits(test))
        return id(n) not in shards[0]
    return (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in MODULO_FUNCTIONS
            and isinstance(n.func.value, cst.Name) and n.func.value.value in MODULO_OWNERS)


def tests_periodic(test: cst.BaseExpression) -> bool:
    """A ``%`` of the step (not a process's share) or ``np.mod`` in ``test``: it holds every N steps,
    not only in the first few (``tests_once``)."""
    shards: list = []
    return any(_step_modulo(n, test, shards) for n in descendants(test))


def exits_only_early(test: cst.BaseExpression) -> bool:
    """``if i == 0: continue`` / ``if i < 5: continue``: a test that holds only at the first steps
    (``tests_once``, no ``%`` in it). What follows an early exit under it runs at every later step,
    no interval (R171)."""
    return tests_once(test) and not tests_periodic(test)


def else_runs_every_n(test: cst.BaseExpression) -> bool:
    """Is the ``else`` of ``if <test>:`` taken only when a counter is a multiple of something: the
    test ``x % n != 0`` or ``x % n`` (false only there), also or-ed with other tests, or and-ed with
    tests that are false at one value each (``cnt != turn_point``: Social-STGCNN's validation,
    holdout159; R140)? Not a process's share (``rank % n``, ``x % world_size``)."""
    if isinstance(test, cst.BooleanOperation):
        left, right = test.left, test.right
        if isinstance(test.operator, cst.Or):
            return else_runs_every_n(left) or else_runs_every_n(right)
        return ((else_runs_every_n(left) and _false_at_one_value(right))
                or (else_runs_every_n(right) and _false_at_one_value(left)))
    modulo = test
    if isinstance(test, cst.Comparison):
        if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, cst.NotEqual):
            return False
        modulo, zero = test.left, test.comparisons[0].comparator
        if not (isinstance(zero, cst.Integer) and zero.value == "0"):
            return False
    return (isinstance(modulo, cst.BinaryOperation) and isinstance(modulo.operator, cst.Modulo)
            and not _shard_splits(test))


def _false_at_one_value(test: cst.BaseExpression) -> bool:
    """``a != b``: false at one value of ``a`` only; also several and-ed."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _false_at_one_value(test.left) and _false_at_one_value(test.right)
    return (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.NotEqual))


def _shard_splits(test: cst.BaseExpression) -> set:
    """The ids of the ``%`` operations of ``test`` that test the process, not the step: ``x %
    world_size`` compared with a rank (names.is_shard_split: a process's share of the items; R70) and a
    rank's own ``%`` (``rank % ngpus_per_node == 0``; R115). No interval."""
    found = set()
    for node in descendants(test):
        if (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)
                and is_process_rank(last_identifier(node.left))):
            found.add(id(node))  # ``rank % ngpus_per_node == 0``: a test of the process (R115)
        if (isinstance(node, cst.Comparison) and len(node.comparisons) == 1
                and isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual))):
            sides = (node.left, node.comparisons[0].comparator)
            for modulo, other in (sides, sides[::-1]):
                if (isinstance(modulo, cst.BinaryOperation) and isinstance(modulo.operator, cst.Modulo)
                        and is_shard_split(last_identifier(modulo.right), last_identifier(other))):
                    found.add(id(modulo))
    return found


def interval_names(body: cst.CSTNode, outer_counters: FrozenSet[str] = frozenset()) -> FrozenSet[str]:
    """Names ``body`` (a loop's) assigns only interval tests: ``is_log_step = step % N == 0``, also
    through other such names (``log_now = is_log_step or is_last``). Nested definitions apart."""
    values: Dict[str, List[cst.BaseExpression]] = {}
    for node in descendants(body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    values.setdefault(target.target.value, []).append(node.value)
                else:
                    for name in assigned_names(target.target):
                        values.setdefault(name, []).append(None)  # unpacked: not a test
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            values.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            values.setdefault(node.target.value, []).append(None)  # ``flag |= ...``: not a test
    return names_holding(values, lambda value, found: tests_interval(value, outer_counters, found))


def tests_once(test: cst.BaseExpression, outer_counters: FrozenSet[str] = frozenset()) -> bool:
    """``if i == 0:``, ``if step == 0:``: a counter compared with a number picks one time round
    (``if i < 5:`` the first few, see ``_first_steps``).

    ``outer_counters`` are the counters of loops around the loop being judged (a fold or epoch
    loop): ``if fold == 0:`` inside the batch loop is true for every batch of the first fold, so
    comparing one of them picks no single time round of the inner loop."""
    for node in descendants(test):
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 and isinstance(
            node.comparisons[0].operator, cst.Equal
        ):
            left, right = node.left, node.comparisons[0].comparator
            if isinstance(left, cst.Integer):
                left, right = right, left
            if not _fixed_index(right) and _fixed_index(left):
                left, right = right, left
            counter = last_identifier(left)
            if _fixed_index(right) and is_counter_name(counter) and not (
                isinstance(left, cst.Name) and counter in outer_counters
            ):
                return True
            if any(_shifted_counter(a, outer_counters) and _bound(b) for a, b in ((left, right), (right, left))):
                return True  # ``step + 1 == config.steps``, ``val_step + 1 == len(loader)``: the last one
            if any(_step_counter(a, outer_counters) and _setting(b) for a, b in ((left, right), (right, left))):
                return True  # ``train_step == args.pretrain_steps``: once a run (deq, holdout162; R142)
        if _first_steps(node, outer_counters) or _chosen_steps(node, outer_counters):
            return True
    return False


def _chosen_steps(node, outer_counters: FrozenSet[str]) -> bool:
    """``if batch_idx in self.val_log_indices:`` / ``if step in [0, 100, 1000]:``: a step or batch
    counter tested for membership runs at the steps chosen (rules.md "An interval": a test on the
    step or batch counter). Not ``i``/``idx`` (layers and samples are counted so too), nor an
    outer loop's counter, nor ``not in`` (every step but those)."""
    if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, cst.In)):
        return False
    left = _unshifted(node.left)  # ``step + 1 in log_steps``
    counter = last_identifier(left) if isinstance(left, (cst.Name, cst.Attribute)) else None
    return is_step_or_batch_counter(counter) and not (isinstance(left, cst.Name) and counter in outer_counters)


def _unshifted(node):
    """``step`` of ``step + 1`` / ``step - 1``; any other node as it is."""
    if (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract))
            and isinstance(node.right, cst.Integer)):
        return node.left
    return node


def _shifted_counter(node, outer_counters: FrozenSet[str]) -> bool:
    """``step + 1``, ``self.global_step + 1``: a counter a number away, which equals a bound once
    per run of its loop (not an outer loop's counter: ``fold + 1 == k`` holds for a whole fold)."""
    inner = _unshifted(node)
    counter = last_identifier(inner)
    return inner is not node and is_counter_name(counter) and not (
        isinstance(inner, cst.Name) and counter in outer_counters)


def _step_counter(node, outer_counters: FrozenSet[str]) -> bool:
    """``train_step``, ``self.global_step``: a step or batch counter (not an outer loop's)."""
    return (isinstance(node, (cst.Name, cst.Attribute)) and is_step_or_batch_counter(last_identifier(node))
            and not _setting(node) and not (isinstance(node, cst.Name) and node.value in outer_counters))


def _setting(node) -> bool:
    """``args.pretrain_steps``, ``self.hparams.max_steps``: a run's setting (names.setting_root)."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    return isinstance(node, cst.Name) and setting_root([node.value, *reversed(parts)])


def _bound(node) -> bool:
    """What a shifted counter is compared with for its last step: a number, ``len(loader)``, a
    name or a setting's attribute (``config.steps``), or a length and a number."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Name) and node.func.value == "len"
    return isinstance(node, (cst.Name, cst.Attribute)) or _fixed_index(node)


def _fixed_index(node) -> bool:
    """A number, or a length and a number (``len(loader) - 1``, ``nb - 1``: the last batch): one
    position that a loop's counter is equal to once per run of the loop."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
        return isinstance(node.right, cst.Integer) and _length(node.left)
    return False


def _length(node) -> bool:
    """``len(...)``, or a name that is no counter (``nb``, ``num_batches``)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len":
        return True
    return isinstance(node, cst.Name) and not is_counter_name(node.value)


def _first_steps(node, outer_counters: FrozenSet[str]) -> bool:
    """``if i < 5:`` / ``if j <= 4:`` / ``if 5 > i:``: the loop's own counter below a number picks
    the first few times round, then never again (the same as ``i == 0`` for a per-step cost)."""
    sides = less_than_sides(node)
    if sides is None:
        return False
    left, right = sides
    if isinstance(left, cst.Attribute) and isinstance(right, cst.Integer):
        # ``if self.global_step < 5:`` (PaSST's first spectrograms, holdout48): the step counter
        return is_step_or_batch_counter(left.attr.value)
    return (isinstance(left, cst.Name) and isinstance(right, cst.Integer) and is_counter_name(left.value)
            and left.value not in outer_counters)


def tests_first_steps_by_setting(test: cst.BaseExpression, outer_counters: FrozenSet[str] = frozenset()) -> bool:
    """``if j < args.num_plots:`` (also an operand of ``and``): the loop's own counter below a number
    the run's settings give picks the first few times round, as ``j < 5`` does (xcodec's first
    validation plots, holdout196; R166). Only for what the ``if``'s body runs: an early ``continue``
    under it (``if global_step < args.start_step: continue``, a resumed run skipping the steps it
    has done) leaves every later step to what follows."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return (tests_first_steps_by_setting(test.left, outer_counters)
                or tests_first_steps_by_setting(test.right, outer_counters))
    sides = less_than_sides(test)
    if sides is None:
        return False
    left, right = sides
    return (isinstance(left, cst.Name) and _setting(right) and is_counter_name(left.value)
            and left.value not in outer_counters)


# ---- value kinds (see value_flow.py) -----------------------------------------------------------


def is_loss_function_name(name: Optional[str]) -> bool:
    """``criterion``, ``loss_fn``, ``compute_loss``, ``mse_loss``: a call that returns a loss tensor;
    also a criterion named for what it compares (R136: hFT-Transformer's ``criterion_onset_A``,
    pix2pix's ``criterionGAN``, ``criterion2``), not one named for its settings (``criterion_name``)."""
    if not name:
        return False
    if _LOSS_FUNCTION.search(name) is not None:
        return True
    found = _NAMED_CRITERION.match(name)
    rest = found.group(1).lower().strip("_") if found is not None else ""
    return bool(rest) and not _NOT_A_CRITERION.intersection(rest.split("_"))


# (one ``\w+``: a repeated group of optional underscores and letters backtracks exponentially on a
# long name ending in ``__``, which a user's code may hold)
_NAMED_CRITERION = re.compile(r"(?i)^criterion(\w+)$")
# Parts of a name that say it holds a criterion's settings or its maker, not the criterion
_NOT_A_CRITERION = frozenset(("name", "names", "type", "types", "cfg", "config", "configs", "conf", "builder",
                              "build", "factory", "class", "args", "kwargs", "params", "list", "dict", "map",
                              "key", "keys", "str", "string", "id", "idx", "index", "s"))


# Collections of loss functions, called item by item: ``loss_functions[name](logits, label)``
# (ZTomorTrain's Accelerate scripts, holdout67), ``self.losses[k](pred, gt)``, ``criterions[i](...)``.
_LOSS_COLLECTION = re.compile(
    r"(?i)^(?:\w+_)?(?:loss_functions|loss_funcs|loss_fns|losses|criterions|criteria|loss_dict|loss_modules)$")


def is_loss_collection_name(name: Optional[str]) -> bool:
    """A name for a dict or list of loss functions, whose items are called on a model's output."""
    return bool(name) and _LOSS_COLLECTION.search(name) is not None


# ---- mixed precision, grad mode, version checks (TPL3xx, TPL6xx) --------------------------------
_VERSION_TEST = re.compile(
    # ``hasattr(torch, "amp")`` asks about torch; ``hasattr(pl_module, "log_images")`` does not.
    r"version|(?:hasattr|getattr)\(\s*(?:torch|amp|cuda)\b|torch_?\d|(?:^|_)(?:pt|th)_?\d|greater|_ge_|(?:^|_)(?:ge|gte|lt|atleast|at_least)_?\d"
    r"|newer|older|_before_|_after_|\bparse\(|\(\s*\d+\s*,\s*\d+",
    re.I,
)


def code_of(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def is_version_test(test: cst.BaseExpression) -> bool:
    """``if TORCH_2_4:``, ``if version.parse(torch.__version__) >= ...``, ``if hasattr(torch, "amp")``."""
    return _VERSION_TEST.search(code_of(test)) is not None


def in_version_fallback(ctx) -> bool:
    """Inside a branch chosen by a torch-version test, or an ``except`` fallback (``ImportError``)."""
    frame = ctx.frame
    while frame is not None:
        for block in frame.blocks:
            if block.kind == "except":
                return True
            if block.kind == "if" and is_version_test(block.node.test):
                return True
        frame = frame.parent
    for node in ctx.stack:
        if isinstance(node, cst.IfExp) and is_version_test(node.test):
            return True
    return False


def in_type_position(ctx) -> bool:
    """Annotations, ``isinstance``/``issubclass`` tests and ``type(x) in (...)`` are not uses."""
    for node in ctx.stack:
        if isinstance(node, cst.Annotation):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in (
            "isinstance", "issubclass"
        ):
            return True
        if isinstance(node, cst.Comparison) and isinstance(node.left, cst.Call) and isinstance(
            node.left.func, cst.Name
        ) and node.left.func.value == "type":
            return True
    return False


def is_scaler_expr(expr: cst.BaseExpression, ctx) -> bool:
    """``scaler``, ``self.grad_scaler``, or a name holding a ``GradScaler``."""
    name = last_identifier(expr)
    if name is None:
        return False
    if "scaler" in name.lower():
        return True
    return (ctx.torch_instance(expr) or "") in SCALERS


def scaled_backward_scaler(call: cst.Call, ctx) -> Optional[cst.BaseExpression]:
    """For ``scaler.scale(loss).backward(...)``: the scaler expression."""
    found = method_call(call)
    if found is None or found[1] != "backward":
        return None
    inner = method_call(found[0])
    if inner is None or inner[1] != "scale" or not is_scaler_expr(inner[0], ctx):
        return None
    return inner[0]


def is_plain_backward(call: cst.Call) -> bool:
    """``loss.backward()`` on a tensor (not ``accelerator.backward(loss)``/``engine.backward(loss)``,
    which scale the loss themselves)."""
    found = method_call(call)
    if found is None or found[1] != "backward" or positional(call) or has_splat(call):
        return False
    owner = last_identifier(found[0]) or ""
    return not re.search(r"accelerator|fabric|engine|trainer|strategy|precision|plugin|self$|model", owner, re.I)


def is_optimizer_step(call: cst.Call, ctx) -> Optional[cst.BaseExpression]:
    """``optimizer.step()`` (not a scaler's or a scheduler's step): the optimizer expression."""
    found = method_call(call)
    if found is None or found[1] != "step":
        return None
    owner = last_identifier(found[0])
    if owner is None or "sched" in owner.lower() or is_scaler_expr(found[0], ctx):
        return None
    return found[0] if _OPTIMIZER_WORD.search(owner) else None


def is_grad_off(expr: cst.BaseExpression, ctx) -> bool:
    """A ``with`` item or decorator that disables autograd (``torch.no_grad()``, ``@torch.inference_mode()``)."""
    target = expr.func if isinstance(expr, cst.Call) else expr
    return turns_grad_off(ctx.qualname(target), dotted_name(target))


def find_calls(node: cst.CSTNode, predicate) -> List[cst.Call]:
    """The calls in ``node`` (a function's body, a loop...) for which ``predicate`` holds, in source
    order, not looking into nested functions, lambdas and classes (defining them runs nothing)."""
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        node = node.body
    return [
        n for n in descendants(node, prune=_is_definition)
        if isinstance(n, cst.Call) and predicate(n)
    ]


def loader_dataset(call: cst.Call) -> Optional[cst.BaseExpression]:
    """A ``DataLoader(...)`` call's dataset argument (first positional or ``dataset=``)."""
    args = positional(call)
    if args:
        return args[0].value
    arg = keyword(call, "dataset")
    return arg.value if arg is not None else None


def dataset_kind(expr: Optional[cst.BaseExpression], ctx) -> Optional[str]:
    """in_memory.IN_MEMORY, in_memory.CUDA or None for a DataLoader's dataset: the judgement the
    runtime guard shares (in_memory.py), on the expression and, through a name, on what the file
    assigns to that name (``ds = TensorDataset(x, y)``; ``x = torch.randn(n, device="cuda")``)."""
    if expr is None:
        return None
    try:
        tree = ast.parse("(" + code_of(expr) + "\n)", mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None

    def resolve(dotted: str) -> Optional[str]:
        if not dotted:
            return None
        try:
            return ctx.qualname(cst.parse_expression(dotted))
        except cst.ParserSyntaxError:
            return None

    return classify(tree, resolve, ctx.facts.dataset_kinds())
