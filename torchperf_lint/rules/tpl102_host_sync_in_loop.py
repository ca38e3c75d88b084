"""TPL102 host-sync-in-loop: a device-to-host synchronisation in every step of a loop."""

from __future__ import annotations

import re
from typing import FrozenSet, Optional

import libcst as cst

from ..analysis import value_flow
from ..analysis.evaluation_branches import in_evaluation_branch
from ..analysis.grad_off_helpers import runs_model_with_autograd_off
from ..analysis.host_library_parameters import (HOST_LIBRARIES, hands_to_host_library, host_library_attributes,
                                                 parameter_of_argument, project_function, reaches_host_library)
from ..analysis.host_only import host_only_script
from ..analysis.memory_measurement import measures_peak_memory
from ..analysis.inference_calls import names_training
from ..analysis.instance_methods import (annotated_method, attribute_method, attribute_module_forward, instance_method,
                                         method_parameter, own_method)
from ..analysis.nonfinite_branches import in_nonfinite_branch
from ..analysis.python_containers import container_attributes, settings_container_attributes
from ..analysis.python_ints import HOST, int_for_host, item_size_for_host, list_for_host, statement_uses, use_of_int
from ..analysis.returned_copies import callers_hand_to_host_library, returned_item
from ..analysis.slice_bound_parameters import host_size_parameter
from ..analysis.stop_flags import sets_stop_flag
from ..analysis.test_rereads import rereads_tested_value
from ..analysis.trainless_helpers import trains_nothing
from ..analysis.syntax import (OPTIMIZER_WORD, assigned_names, chain_leaves, dotted_name, is_grad_off, is_model_name,
                               last_identifier, method_call, tests_interval)
from ..analysis.tree import descendants, reads_name
from ..analysis.value_uses import (KEEPING_METHODS, SIZE_BUILTINS, ancestors, assigned_name, climb,
                                   derived_assignment, derived_names, for_over, is_string_literal, kept_as_data, names_a_file,
                                   kept_through_names, name_uses, next_statement, read_as_number, shown, tests_size)
from ..analysis.walker import BODY, LOOP, Rule, compile_text_tests, mode_of_a_name

SYNC_METHODS = frozenset(("item", "cpu", "numpy", "tolist", "nonzero"))
SYNC_FUNCTIONS = frozenset(("torch.cuda.synchronize", "torch.nonzero"))
# torch functions that compare tensors and give back a Python bool: the host waits for the answer.
BOOL_FUNCTIONS = frozenset(("torch.equal", "torch.allclose", "torch.is_nonzero"))
CONVERSIONS = frozenset(("float", "int", "bool"))
_READERS = CONVERSIONS | {"print", "max", "min", "any", "all"}
# Timers a benchmark reads right after ``torch.cuda.synchronize()``: the sync is what makes the
# reading mean something (spec: host-needed).
_TIMERS = frozenset((
    "time.perf_counter", "time.time", "time.monotonic", "time.perf_counter_ns", "time.time_ns",
    "time.monotonic_ns", "timeit.default_timer",
))
# How far after ``torch.cuda.synchronize()`` the timer read may come (R6), and the modules whose
# calls between them queue nothing on the device.
_MAX_STATEMENTS_BEFORE_TIMER = 6
# A timer object's reading (R78): ``timer.toc()``, ``fw_timer.toc()``, ``timers("fwd").stop()`` (pycls,
# detectron2 and Megatron timers read the clock in these methods).
_TIMER_READS = frozenset(("toc", "stop", "lap", "elapsed"))
_TIMER_NAME = re.compile(r"timer", re.I)
_HOST_MODULES = frozenset(("time", "timeit", "logging", "math", "datetime"))
# Arguments torch itself needs on the host (spec: host-needed): callee name -> (positional indexes,
# keywords). For a method (``x.split(sizes)``) the receiver is not counted.
_HOST_ARGUMENTS = {
    "pack_padded_sequence": ((1,), ("lengths",)),
    "torch.split": ((1,), ("split_size_or_sections",)),
    "torch.tensor_split": ((1,), ("indices_or_sections", "sections", "indices")),
    ".split": ((0,), ("split_size", "split_size_or_sections")),
    ".tensor_split": ((0,), ("indices_or_sections", "sections", "indices")),
    ".narrow": ((1, 2), ("start", "length")),
    # ``k`` is a size: torch reads it on the host (yolov7's dynamic-k label assignment).
    "torch.topk": ((1,), ("k",)),
    ".topk": ((0,), ("k",)),
    "torch.kthvalue": ((1,), ("k",)),
    ".kthvalue": ((0,), ("k",)),
    # an output size and a number of points: torch reads them on the host to size the result
    # (e2-tts' ``F.interpolate(x, size=n)`` and ``torch.linspace(0, m, n)`` with ``n`` from a mask's sum)
    "torch.nn.functional.interpolate": ((1,), ("size",)),
    "torch.linspace": ((2,), ("steps",)),
    "torch.logspace": ((2,), ("steps",)),
    # the parameters of an in-place initialisation are Python floats (torch.nn.init's ``mean``/``std``,
    # ``a``/``b``, ``val``): torchcross's MAML head reset re-draws the head from its own statistics
    # (``normal_(w, w.mean().item(), w.std().item())``, holdout77)
    "torch.nn.init.normal_": ((1, 2), ("mean", "std")),
    "torch.nn.init.uniform_": ((1, 2), ("a", "b")),
    "torch.nn.init.trunc_normal_": ((1, 2, 3, 4), ("mean", "std", "a", "b")),
    "torch.nn.init.constant_": ((1,), ("val",)),
    ".normal_": ((0, 1), ("mean", "std")),
    ".uniform_": ((0, 1), ("from", "to")),
}
# The index (and source) of an index op must be on the indexed tensor's device: a ``.cpu()`` copy
# handed there (``store.index_copy_(0, idx.cpu(), feats.cpu())``) means the store is on the host
# and the copy is one torch requires (dino's host feature bank, sd-scripts' CPU schedule). Only for
# ``.cpu()``: an index that stays on the device (``torch.nonzero(mask)``) is no host value.
_HOST_COPY_ARGUMENTS = {
    "torch.index_select": ((2,), ("index",)),
    ".index_select": ((1,), ("index",)),
    ".index_copy_": ((1, 2), ("index", "source")),
    ".index_add_": ((1, 2), ("index", "source")),
}
# Libraries that take host values only: a value handed to them must reach the host (spec: a step body).
# (host_library_parameters.HOST_LIBRARIES: numpy, scipy, OpenCV, PIL, scikit-learn, plotting, audio
# and image-file libraries)
_HOST_LIBRARIES = HOST_LIBRARIES
# Builtins that repack one value for the call around them (R112).
_HANDING_ON = frozenset(("bytes", "bytearray", "list", "tuple"))
# What reads a tensor's size or shape (``idx.numel()``, ``idx.shape[0]``; ``.dim()``: aster's
# ``if eos_indices.nonzero().dim() > 0:``, holdout153; R132).
_SIZE_READS = frozenset(("numel", "nelement", "shape", "size", "dim", "ndimension", "ndim"))
# Calls whose every positional argument is a size or a shape (``x.view(n, -1)``, ``torch.zeros(n)``).
_SHAPE_METHODS = frozenset("view reshape expand repeat new_zeros new_ones new_empty new_full unflatten".split())
_SHAPE_FACTORIES = frozenset(
    "torch.zeros torch.ones torch.empty torch.full torch.rand torch.randn torch.randint torch.arange "
    "torch.randperm".split()
)


class HostSyncInLoop(Rule):
    code = "TPL102"
    message = (
        "{what} waits for the device in every iteration; keep values on the device "
        "(`total += loss.detach()`) and sync once after the loop or every N steps "
        "(runtime_guard: sync report)"
    )
    # A unit is parsed when it has a loop and either a sync method, or a truth test, conversion
    # or print in code that handles losses or reduces tensors to booleans (where tensors worth
    # waiting for are likely). Literal tests first: they are the cheapest and reject most units.
    # (exactly the regexes \.(?:item|cpu|numpy|tolist|nonzero)\(|synchronize\(|torch\.nonzero and
    # backward|loss|model|logits|\.(?:any|all|sum|mean|max|min)\(|isfinite|isnan|isinf|norm\(|\.grad, as ``in`` tests;
    # a unit that formats, compares or takes max/min of values passes the second regex; ``.max(``
    # lets in ``max(best, torch.max(scores))`` in a step method that names no model or loss)
    _SYNC = (".item(", ".cpu(", ".numpy(", ".tolist(", ".nonzero(", "synchronize(", "torch.nonzero")
    # (``norm(`` and ``.grad``: a gradient logger that takes ``float(torch.norm(p.grad))`` of every
    # parameter names no loss or model: ijepa's ``grad_logger``, holdout71)
    _TENSOR_CODE = ("backward", "loss", "model", "logits", ".any(", ".all(", ".sum(", ".mean(", ".max(", ".min(",
                    "isfinite", "isnan", "isinf", "norm(", ".grad")
    _has_loop_word = staticmethod(compile_text_tests((("for", "while"),)))
    _has_sync = staticmethod(compile_text_tests((_SYNC,)))
    # ... and reads a value: a conversion, a print, a test, a formatted string, ``%`` or
    # ``.format(``, builtin max/min, torch.equal/allclose/is_nonzero.
    _READS = (r"\b(?:float|int|bool|print|max|min|equal|allclose|is_nonzero)\(|\bif\b|\.format\(|%"
              r"|\b[fFrR]{1,2}['\"]")
    _reads_tensor = staticmethod(compile_text_tests((_TENSOR_CODE, _READS + r"|\bwhile\b")))
    # (without ``while``: the engine adds the loop words to a step body's text before asking)
    _reads_value = staticmethod(compile_text_tests((_READS,)))
    _has_loop = staticmethod(compile_text_tests((r"\b(?:for|while)\b",)))

    needs_step_loop = True  # reports only in a step loop (_in_step: in_step_loop)

    def __init__(self, ctx, sink: list):
        super().__init__(ctx, sink)
        self._training_loops: dict = {}  # id of a loop body -> (the body, it trains): _trains
        self._grad_off_loops: dict = {}  # id of a loop -> (the loop, its helpers run grad off)
        self._maybe_training_loops: dict = {}  # id of a loop body -> (the body, it may train): _may_train
        self._sibling_training: dict = {}  # id of a loop -> (the loop, a training loop beside it)

    @classmethod
    def may_match(cls, text: str) -> bool:
        return (cls._has_loop_word(text) and (cls._has_sync(text) or cls._reads_tensor(text))
                and cls._has_loop(text))

    @classmethod
    def may_match_in_step_body(cls, text: str) -> bool:
        """In a step body the code need not name a loss, a model or a reduction for its reads to be
        of tensors: ST-P3's ``IntersectionOverUnion.compute`` tests ``if sup + tp + fp == 0:`` of
        its metric states, called every validation step from another module (holdout146; R125)."""
        return cls._has_sync(text) or cls._reads_value(text) or cls.may_match(text)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        found = method_call(node)
        if found is not None and found[1] in SYNC_METHODS:
            receiver, name = found
            function = ctx.qualname(node.func)
            if function is not None and function.split(".", 1)[0] != "torch":
                return  # an imported module's function (``np.nonzero(row)``), not a tensor's method
            if name == "nonzero" and function == "torch.nonzero":
                # ``torch.nonzero(mask)``: the tensor read is the argument, not ``torch``
                data = [a for a in node.args if (a.keyword is None and not a.star)
                        or (a.keyword is not None and a.keyword.value == "input")]
                if not data:
                    return
                receiver = data[0].value
            if name == "numpy" and not _forces_copy(node) and not ctx.is_device_tensor(receiver):
                # torch raises on a device tensor's ``.numpy()``, so a value of unknown origin that
                # reaches a bare ``.numpy()`` is on the host. A value the code itself put on the
                # device stays reported, as the catalog lists ``.numpy()``: there it cannot run as
                # written on an accelerator, and the remedy (keep it on the device) is the same.
                return
            if not self._in_step():
                return
            if ctx.is_host_value(receiver) or self._narrowed_to_numpy(receiver) or self._given_a_number():
                return  # numpy values and host tensors are read without waiting for a device
            if self._project_class_method(node):
                return  # ``val_res.item()`` of ``val_res = utils.Averager()``: the class's own method (R47.4)
            if name == "cpu" and is_model_name(last_identifier(_copied(receiver, ctx))):
                return  # moving a model (or a copy of it: an EMA snapshot), not reading a value
            if name == "cpu" and _lambda_handed_models(receiver, ctx.stack):
                return  # ``fn = lambda x: x.cpu()`` then ``a.model = fn(a.model)``: a model moved (R156)
            if self._read_by_loop_stop(receiver):
                return
            if name in ("cpu", "tolist", "numpy") and (self._kept_inference_result() or self._evaluation_copy()):
                return
            if name == "item" and (self._inference_id_key() or self._kept_prediction_field()
                                   or self._evaluation_id()):
                return
            if name in ("cpu", "numpy", "tolist") and self._returned_to_host_library():
                return
            if name in ("cpu", "numpy") and self._numpy_copy_in_callee(receiver):
                return
            if name == "nonzero" and (self._size_read_on_host() or self._evaluation_indices()):
                return
            if name != "nonzero" and shown(ctx.stack) and (self._rereads_test((receiver,))
                                                           or in_nonfinite_branch(ctx.stack)):
                return  # (``nonzero`` computes new indices whose count the host waits for: no re-read)
            if name == "item" and in_nonfinite_branch(ctx.stack) and self._collected_for_message():
                return
            self._report_unless_host_needed(node, f"`.{name}()`")
            return
        if found is not None and found[1] == "format" and is_string_literal(found[0]):
            if any(ctx.is_device_tensor(a.value) for a in node.args if not a.star) and self._in_step() and not (
                    in_nonfinite_branch(ctx.stack)):
                self._report_unless_host_needed(node, "formatting a tensor")  # ``"{:.3f}".format(t)``
            return
        qual = ctx.qualname(node.func)
        if qual in SYNC_FUNCTIONS:
            if self._in_step() and not (qual == "torch.cuda.synchronize" and (
                    self._brackets_timer() or self._in_memory_measurement())):
                self.report(node, self.message.format(what=f"`{qual}()`"))
            return
        if qual in BOOL_FUNCTIONS:
            args = [a for a in node.args if not a.star][:2]
            if any(ctx.is_device_tensor(a.value) for a in args) and self._in_step():
                self._report_unless_host_needed(node, f"`{qual}()` (a Python bool)")
            return
        if isinstance(node.func, cst.Name) and node.func.value in _READERS and ctx.is_builtin(node.func.value):
            name = node.func.value
            args = [a for a in node.args if a.keyword is None and not a.star]
            if not args or not self._in_step():
                return
            if name in CONVERSIONS and len(args) == 1 and ctx.is_device_tensor(args[0].value):
                if not (shown(ctx.stack) and (self._rereads_test((args[0].value,)) or in_nonfinite_branch(ctx.stack))):
                    self._report_unless_host_needed(node, f"`{name}()` of a tensor")
            elif name == "print" and any(_shows_tensor(a.value, ctx) for a in args):
                if not (self._rereads_test([read for a in args for read in _shown_tensors(a.value, ctx)])
                        or in_nonfinite_branch(ctx.stack)):
                    self.report(_printed_at(node, args, ctx), self.message.format(what="printing a tensor"))
            elif name in ("max", "min") and any(_holds_device_tensor(a.value, ctx) for a in args):
                # Python compares the tensors with ``bool(a > b)``: one sync per comparison.
                self._report_unless_host_needed(node, f"builtin `{name}()` of tensors")
            elif name in ("any", "all") and len(args) == 1 and len(node.args) == 1 and ctx.is_device_tensor(args[0].value):
                # ``any(torch.isinf(x).view(-1))`` iterates the tensor and calls ``bool()`` on each
                # element: a sync per element (minillm's PPO loss, holdout63); ``t.any()`` is one op
                self._report_unless_host_needed(node, f"builtin `{name}()` of a tensor")

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        """``f"{loss:.3f}"`` reads the tensor's value (``print(f"...")`` is reported as printing)."""
        if _is_print_argument(self.ctx):
            return
        if any(isinstance(part, cst.FormattedStringExpression) and _formats_device_tensor(part.expression, self.ctx)
               for part in node.parts) and self._in_step() and not (
                self._rereads_test(_shown_tensors(node, self.ctx)) or in_nonfinite_branch(self.ctx.stack)):
            self._report_unless_host_needed(node, "formatting a tensor")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """``"%g" % t``, ``"%d/%d" % (a, b)``: %-formatting reads the tensors' values."""
        if not (isinstance(node.operator, cst.Modulo) and is_string_literal(node.left)):
            return
        if _is_print_argument(self.ctx):
            return  # ``print("%.2f" % t)``: reported once, as printing (as an f-string there is)
        if _holds_device_tensor(node.right, self.ctx) and self._in_step() and not in_nonfinite_branch(self.ctx.stack):
            self._report_unless_host_needed(node, "formatting a tensor")

    def visit_If(self, node: cst.If) -> None:
        # The value test first: it is cheap, and most tests are not of a device tensor, while
        # _in_step classifies the loop (a walk of its body) on first use. Both only read.
        if ((_truth_tests_tensor(node.test, self.ctx) or self._tests_carried_total(node)) and self._in_step()
                and not self._stops_loop(node) and not self._guards_host_needed_use(node)
                and not self.ctx.first_operand_closed(node.test) and not self.ctx.first_operand_interval(node.test)):
            self.report(_reported_test(node), self.message.format(what="testing a tensor's truth"))

    def _tests_carried_total(self, node: cst.If) -> bool:
        """``if not loss: loss = cur_loss`` / ``else: loss += cur_loss`` in a loop (transformers_tasks'
        ``mlm_loss``, holdout78): the name starts as ``None`` or ``0``, and from the second time
        round it holds the device tensor the ``if`` itself put there, so the test calls ``bool()``
        on it. Both branches must be written so: one binds the name to a device tensor, the other
        adds to it."""
        test = node.test
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, (cst.Equal, cst.NotEqual))
                and isinstance(test.comparisons[0].comparator, cst.Integer)
                and test.comparisons[0].comparator.evaluated_value == 0):
            # ``if moving_loss == 0: moving_loss = correct`` / ``else: moving_loss = moving_loss * 0.99
            # + correct * 0.01`` (mac-network, holdout165; R154): the same test, written out
            test = test.left
        if not isinstance(test, cst.Name) or not isinstance(node.orelse, cst.Else) or self.ctx.innermost_loop() is None:
            return False
        name, bound, added = test.value, [], []
        for branch in (node.body, node.orelse.body):
            for line in getattr(branch, "body", ()):
                for small in (line.body if isinstance(line, cst.SimpleStatementLine) else ()):
                    if (isinstance(small, cst.Assign) and len(small.targets) == 1
                            and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name):
                        if reads_name(small.value, name):
                            added.append(small.value)  # ``x = x * 0.99 + v * 0.01``: carried on
                        else:
                            bound.append(small.value)
                    elif (isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name)
                          and small.target.value == name):
                        added.append(small.value)
        return bool(bound) and bool(added) and any(self.ctx.is_device_tensor(v) for v in bound + added)

    def _guards_host_needed_use(self, node: cst.If) -> bool:
        """Is the test of one name (``if pad > 0:``, ``if n:``) whose value the ``if`` body then
        needs on the host (``out[:, :-pad]``: a slice bound, R3)? The host fetches the value for
        that use anyway; the test only guards it (``:-0`` would empty the slice), so one ``int()``
        serves both and the test adds no wait of its own (longformer's ``padding_len``)."""
        name = _tested_name(node.test)
        scope = next((n for n in reversed(self.ctx.stack) if isinstance(n, cst.FunctionDef)), None)
        if name is None or scope is None:
            return False
        uses = list(name_uses(node.body, name, list(self.ctx.stack), None, [True]))
        return bool(uses) and self._uses_need_host(scope, name, uses, {name})

    def visit_CompIf(self, node: cst.CompIf) -> None:
        # A comprehension's filter (``{k: v for k in ks if not torch.isnan(v)}``) calls ``bool()``
        # on each item's test, as an ``if`` statement does.
        if _truth_tests_tensor(node.test, self.ctx) and self._in_step() and not (
                _collects_enumerate_indices(self.ctx.stack, node) and self._in_code_that_trains_nothing()):
            self.report(node.test, self.message.format(what="testing a tensor's truth"))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """``invalid = (torch.isnan(g).any() or torch.isinf(g).any())`` (mickey's backward_step,
        holdout64): ``or``/``and`` call ``bool()`` on every operand but the last to choose what
        to hand back, as an ``if`` does on its test. Only an operation that is no test itself
        (an ``if``/``while``/conditional test reports its own) and no operand of a larger one."""
        stack = self.ctx.stack
        index = len(stack) - 2
        parent = stack[index] if index >= 0 else None
        while isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            index -= 1
            parent = stack[index] if index >= 0 else None
        if isinstance(parent, (cst.BooleanOperation, cst.If, cst.While, cst.IfExp, cst.CompIf, cst.Assert)):
            return
        if (_truth_tests_tensor(node.left, self.ctx) and self._in_step()
                and not in_nonfinite_branch(self.ctx.stack)):
            self._report_unless_host_needed(node.left, "testing a tensor's truth")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        # ``a if (seq != 0).sum() != 0 else b`` calls ``bool()`` on its test as an ``if`` statement
        # does (TransformerSum's token pooling, once per sentence of every batch); ``torch.where``
        # keeps the choice on the device.
        if _truth_tests_tensor(node.test, self.ctx) and self._in_step():
            self.report(node.test, self.message.format(what="testing a tensor's truth"))

    def visit_While(self, node: cst.While) -> None:
        # The value test first: it is cheap, and most tests are not of a device tensor, while
        # _in_step classifies the loop (a walk of its body) on first use. Both only read.
        if _truth_tests_tensor(node.test, self.ctx) and self._in_step() and not self._stops_loop(node):
            self.report(_reported_test(node), self.message.format(what="testing a tensor's truth"))

    def _rereads_test(self, reads) -> bool:
        """Does the current message (a print, or a value formatted into text: callers check that)
        only read again values that the ``if`` around it has just waited for in its test
        (``if not math.isfinite(loss.item()): msg = f"Loss is {loss.item()}"``), with nothing queued
        on the device in between (test_rereads)? The test is the per-step sync, reported where it
        is; the warning's read stalls nothing more. A value taken for use (``if torch.isfinite(v):
        total += v.item()``, a metric summed every step) is not a message and stays reported."""
        return rereads_tested_value(self.ctx.stack, reads, self._test_waits_on, self._host_only_work)

    def _test_waits_on(self, test: cst.BaseExpression, read: cst.BaseExpression) -> bool:
        """Does ``test`` read ``read`` and wait for the device to do so: a truth test of a device
        tensor that contains it (``torch.min(y) < -1.0``), or a sync of it (``read.item()``,
        ``float(read)``)?"""
        if not any(type(n) is type(read) and n.deep_equals(read) for n in descendants(test)):
            return False
        if _truth_tests_tensor(test, self.ctx):
            return True
        for node in descendants(test):
            if not isinstance(node, cst.Call):
                continue
            found = method_call(node)
            if found is not None and found[1] in ("item", "cpu", "tolist") and found[0].deep_equals(read):
                return True
            if (isinstance(node.func, cst.Name) and node.func.value in CONVERSIONS and self.ctx.is_builtin(
                    node.func.value) and len(node.args) == 1 and node.args[0].value.deep_equals(read)):
                return True
        return False

    def _report_unless_host_needed(self, node: cst.CSTNode, what: str) -> None:
        """Report ``node`` unless its value is one the host must have (the spec's host-needed
        values): an argument torch requires on the host, or the test that decides whether a loop
        that runs no update stops."""
        if self._torch_needs_on_host() or self._decides_loop_stop() or self._device_fallback():
            return
        self.report(node, self.message.format(what=what))

    def _returned_to_host_library(self) -> bool:
        """Is the current copy returned (the whole value, or an item of a returned tuple) to callers
        that every one hand it to a host library (``correct, n = batch_pix_accuracy(...)`` then
        ``np.round(correct)``): host-needed across the call (R3; returned_copies)?"""
        ctx = self.ctx
        item = returned_item(ctx.stack)
        if item is None:
            return False
        bodies = getattr(ctx.facts, "step_bodies", None)
        returns = ctx.values.return_kinds()
        return (bodies is not None and returns is not None
                and callers_hand_to_host_library(bodies, returns, ctx.function_qualname(), item))

    def _numpy_copy_in_callee(self, receiver: cst.BaseExpression) -> bool:
        """Is the current copy turned into a numpy array (``points.detach().cpu().numpy()``) in a
        function that runs every step only because a step body calls it (a helper of another
        function or file), and not a metric's value (R48)? Such a helper computes on the host with
        the array: a numpy metric, a KD-tree or target assigner, a debug drawing, a record written
        to a file (R3's host libraries, one call away where value flow no longer follows them).
        Copies of a loss or a metric (``loss.detach().cpu().numpy()``, read as a number, shown or
        not), copies read as a number or shown, a copy the helper returns as it is (a converter such
        as ``to_numpy(t)``: its callers decide), and copies in the step body itself stay reported."""
        chain = self.ctx.step_chain()
        if chain is None or not chain.hops:
            return False
        above = _methods_applied(self.ctx.stack)
        if self.ctx.stack[-1].func.attr.value != "numpy" and "numpy" not in above and not self._split_into_numpy():
            return False
        if "item" in above or "tolist" in above or read_as_number(self.ctx.stack) or shown(self.ctx.stack):
            # a number read or shown: a metric (``print((loss - kl).data.cpu().numpy())``); also
            # Python numbers made at once (``chosen_rewards.cpu().numpy().tolist()`` kept in a
            # metrics dict: no array for the host to work with; the DPO trainers, holdout170, R151)
            return False
        if _tested(self.ctx.stack):
            # ``if self.current_steps.detach().cpu().numpy()[0] < self.rollout_init_steps:``: a number
            # read for a decision, as ``.item()`` would be (cem, holdout97): no host work
            return False
        if returned_item(self.ctx.stack) is not None:
            # ``def to_numpy(t): return t.cpu().detach().numpy()``: a converter does no host work of
            # its own; its callers do (mace logs a loss with it): _returned_to_host_library reads them
            return False
        value = _under_copy_methods(receiver)
        named = _value_name(value)
        if named is not None:
            return _METRIC_WORD.search(named) is None and not _item_of_a_metric_dict(self.ctx.stack, named)
        # ``(loss - kl_loss).data.cpu().numpy()``: a value computed from a metric is one
        return not any(_METRIC_WORD.search(n.value) for n in descendants(value) if isinstance(n, cst.Name))

    def _split_into_numpy(self) -> bool:
        """Is the current copy bound to a name (``targetBatch = targetBatch.cpu()``) whose pieces the
        function turns into numpy arrays: ``trgts = list(torch.split(targetBatch, lens.tolist()))``
        then ``trgts[n].numpy()`` (deep_avsr's CER and WER helpers, holdout221; R195), or the name's
        own items (``name[i].numpy()``)? The helper works on the host with them, as when
        ``.numpy()`` follows the copy on the same line (R48)."""
        stack = self.ctx.stack
        found = derived_assignment(stack)
        if found is None:
            return False
        name, statement, _ = found
        scope = next((n for n in reversed(stack[:-1]) if isinstance(n, cst.FunctionDef)), None)
        if scope is None:
            return False
        pieces = []
        for use in name_uses(scope.body, name, [scope], statement, [False], [False]):
            if _numpy_of_item(use, len(use) - 1):
                return True
            split = _split_of(use, self.ctx)
            if split is not None:
                pieces.append(split)
        for piece_name, split_statement in pieces:
            if any(_numpy_of_item(use, len(use) - 1)
                   for use in name_uses(scope.body, piece_name, [scope], split_statement, [False], [False])):
                return True
        return False

    def _kept_inference_result(self) -> bool:
        """Is the current ``.cpu()``/``.tolist()``/``.numpy(force=True)`` a result of inference that
        the host keeps (the lead's reading R7, 2026-11-26)? In a loop that trains nothing (no
        backward, no optimizer or scaler step: ``_trains``), with autograd off
        (``torch.no_grad()``/``inference_mode``), a copy of a model's output to the host that is stored as data (appended, extended, written, put into a
        container: ``encoded.append(reps.cpu().numpy())``, ``recons[name].append((i, out.cpu()))``,
        ``results[k] = out.cpu()``) or bound to a name that host code then stores or iterates
        (``scores = out.cpu().tolist()``; ``for qid, s in zip(qids, scores): ...``) is what the run
        is for: like ``predict_step``'s outputs (rules.md "A step body"), it must reach the host.
        ``.item()``, ``float(t)`` and tests of a metric stay flagged: a number summed per batch can
        stay on the device, and so does a reduction's copy read with ``.item()`` right away
        (``hits.mean().cpu().item()`` stored into a metrics dict: LlamaRec, holdout58), or a
        metric's copy so read (``psnr_values.append(psnr_val.cpu().item())``: mipnerf_pl, holdout146;
        R124); a prediction read so (``"pred": pred.cpu().item()``: FrozenBiLM) is a kept result."""
        ctx = self.ctx
        if read_as_number(ctx.stack) and (_copies_a_reduction(ctx.stack[-1]) or _copies_a_metric(ctx.stack[-1])):
            return False
        scope = self._inference_scope()
        if scope is None:
            return False
        stack = ctx.stack
        position = next((i for i, n in enumerate(stack) if n is scope), None)
        if position is None:
            return False
        return kept_through_names(stack, 2, scope, stack[:position + 1])

    def _evaluation_copy(self) -> bool:
        """Is the current ``.cpu()``/``.tolist()``/``.numpy()`` a copy made in code that trains
        nothing (the lead's reading R8, 2026-11-26)? In an evaluation or inference loop (no
        backward, no optimizer or scaler step in it, in a loop around it, or in a call it makes
        that may train: ``_may_train``), or in a step body that every visible chain runs from such
        a loop or from Lightning's ``validation_step``/``test_step``, a copy to the host is how
        results reach what the host does with them (metrics in numpy or scikit-learn, kept
        predictions, plots, files, decoding), with autograd on or off, whether or not the linter
        can follow the value there; and copying batch by batch is what bounds the device memory
        those results take (keeping every batch's predictions on the device until the end can
        exhaust it), so "keep it on the device" is no safe remedy there. ``.item()``, printing,
        formatting and tests of a tensor stay flagged, and so does a copy made to be printed,
        formatted or read as a number (``loss.cpu().item()``): they read a number the loop could
        keep on the device. A function whose own
        name says it trains (``train_epoch``) is not known to train nothing."""
        ctx = self.ctx
        if shown(ctx.stack) or read_as_number(ctx.stack):
            return False  # ``print(pred.cpu())``, ``loss.cpu().item()``: read as a metric is
        return self._in_code_that_trains_nothing()

    def _in_code_that_trains_nothing(self) -> bool:
        """Is the current node in code that trains nothing (R8's scope, ``_evaluation_copy``)?"""
        ctx = self.ctx
        if in_evaluation_branch(ctx.stack):
            return True  # ``if stage == "val":`` in a step that training shares: never runs in training
        blocks = [block for block in ctx.frame.blocks if block.kind == LOOP] if ctx.frame is not None else []
        # (an epoch-level loop around the evaluation loop trains in its other, sibling loop: the
        # evaluation pass itself trains nothing; recsys's ``for iter_ in test_data:`` under
        # ``torch.no_grad()`` beside the training loop, in the loop over epochs)
        around = [block for index, block in enumerate(blocks)
                  if index == len(blocks) - 1 or not ctx.is_epoch_loop(block)]
        if len(around) > 1:
            # (a training loop whose body reaches this pass only through an interval ``if``,
            # PolarSeg's and Cylinder3D's validation under ``if global_iter % check_iter == 0:``,
            # holdout159: its steps train in the other branch; the pass trains nothing, R139)
            innermost = blocks[-1]
            around = [block for block in around
                      if block is innermost or not ctx.under_interval_check(block, upto=innermost)]
        if any(self._trains(block.node.body) or self._may_train(block.node.body) for block in around):
            return False
        if any(block not in around and self._trains(block.node.body) for block in blocks):
            # the training loop is in sight, beside this one in the epoch loop: whatever the
            # function is called (recsys's ``train_gmf``), this pass is its evaluation
            return True
        if blocks and self._trains_in_another_loop(blocks[0].node):
            # ... or beside it in the function (alignn's ``train_dgl`` tests on ``test_loader``
            # after its epoch loop): the final pass is the run's evaluation (R36)
            return True
        if ctx.step_body() is not None:
            # the callers' loops decide: every chain must train nothing; a name that says it
            # trains counts there (step_bodies._named_for_training), unless autograd is off on
            # the chain (a ``@torch.no_grad()`` evaluation calling a metric's ``step``)
            return ctx.trains_nothing()
        qualname = ctx.function_qualname()
        if qualname and names_training(qualname.rpartition(".")[2]):
            return False
        return bool(blocks)

    def _trains_in_another_loop(self, outermost) -> bool:
        """Does the function around the walk run a training loop that is not ``outermost`` (the
        outermost loop around the current node) nor inside it? Worked out once per loop."""
        known = self._sibling_training.get(id(outermost))
        if known is not None and known[0] is outermost:
            return known[1]
        function = next((n for n in reversed(self.ctx.stack) if isinstance(n, cst.FunctionDef)), None)
        answer = function is not None and any(
            isinstance(node, (cst.For, cst.While)) and self._trains(node.body)
            for node in descendants(function.body, prune=lambda n: n is outermost or isinstance(
                n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))))
        self._sibling_training[id(outermost)] = (outermost, answer)
        return answer

    def _function_runs_grad_off(self) -> bool:
        """Is the current node in a function decorated to run with autograd off (``@torch.no_grad()``,
        ``@torch.inference_mode()``; not a mode a name chooses) that never turns it back on
        (``enable_grad``, ``set_grad_enabled``)? A call whose name says it may train runs no backward
        there (R94): TransTrack's ``evaluate`` steps its tracker (``tracker.step(results[0])``)
        beside DETR's panoptic records (holdout131). R44.2 reads chains so. (A project helper that
        steps an optimizer is still an update: it may turn autograd on inside.)"""
        function = next((n for n in reversed(self.ctx.stack) if isinstance(n, (cst.FunctionDef, cst.Lambda))), None)
        if not isinstance(function, cst.FunctionDef) or not any(
                is_grad_off(d.decorator, self.ctx) and not mode_of_a_name(d.decorator) for d in function.decorators):
            return False
        return not any(isinstance(n, cst.Call) and last_identifier(n.func) in _GRAD_ON_CALLS
                       for n in descendants(function.body))

    def _may_train(self, body) -> bool:
        """Does a loop's body call something whose name says it may run a training step in a
        function the module does not show (``trainer.train_step(batch)``, ``self.optimizer_step()``
        of a base class in another file, ``run_backward(loss)``)? Such a loop is not known to
        train nothing (R8 keeps its copies flagged)."""
        known = self._maybe_training_loops.get(id(body))
        if known is not None and known[0] is body:
            return known[1]
        answer = False
        ctx = self.ctx
        if self._function_runs_grad_off():
            # a name that says it trains, called where the whole function runs with autograd off,
            # runs no backward, as under ``with torch.no_grad():`` below (R94)
            self._maybe_training_loops[id(body)] = (body, False)
            return False

        def grad_off(node) -> bool:
            # a call under ``with torch.no_grad():`` runs no backward, whatever its name
            # (groundingLMM's ``training_model(**data_batch)`` in its validation loop, holdout112)
            return isinstance(node, cst.With) and any(is_grad_off(i.item, ctx) and not mode_of_a_name(i.item)
                                                      for i in node.items)

        # ... nor one in a loop that runs under such a ``with`` as a whole (PolarSeg's validation
        # pass calls ``SemKITTI2train(labels)`` inside ``with torch.no_grad():``, holdout159; R139)
        position = next((i for i, n in enumerate(ctx.stack) if getattr(n, "body", None) is body), None)
        if position is not None and any(grad_off(n) for n in ctx.stack[:position]):
            self._maybe_training_loops[id(body)] = (body, False)
            return False
        for node in descendants(body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
                                or grad_off(n)):
            if isinstance(node, cst.Call):
                name = last_identifier(node.func)
                if name is not None and names_training(name):
                    answer = True
                    break
        self._maybe_training_loops[id(body)] = (body, answer)
        return answer

    def _inference_scope(self):
        """The loop (or, with no loop here, the step body's function) that R7 asks about, when it
        runs with autograd off and trains nothing; None otherwise. Autograd is off here, or on
        every visible chain to this step body; with no loop here the loop is the callers': every
        chain must run inference (walker.runs_inference_only)."""
        ctx = self.ctx
        loop = ctx.innermost_loop()
        if loop is None:
            body = ctx.step_body() if ctx.runs_inference_only() else None
            if body is None:
                return None
            scope = body.node
        elif ctx.under_grad_off() or ctx.runs_inference_only() or self._helpers_run_grad_off(loop.node):
            scope = loop.node
        else:
            return None
        # a loop around this one that trains runs it every training step (a nested loop of a step)
        if any(block.kind == LOOP and self._trains(block.node.body) for block in ctx.frame.blocks):
            return None
        return None if self._trains(scope.body) else scope

    def _helpers_run_grad_off(self, loop: cst.CSTNode) -> bool:
        """Does the loop run its model work with autograd off inside functions of the module
        (parler-tts' ``apply_audio_decoder``: grad_off_helpers)? Worked out once per loop."""
        known = self._grad_off_loops.get(id(loop))
        if known is not None and known[0] is loop:
            return known[1]
        ctx = self.ctx
        answer = runs_model_with_autograd_off(loop.body, ctx.stack, ctx.is_model_call,
                                              lambda expr: is_grad_off(expr, ctx))
        self._grad_off_loops[id(loop)] = (loop, answer)
        return answer

    def _inference_id_key(self) -> bool:
        """``{target["image_id"].item(): output for ...}``: a number taken as the key of a Python
        dict display or comprehension is an id the host files values under (R3: a dict key must be
        a Python number; a tensor key hashes by identity). First read in loops that run inference
        (R7's scope); a dict built so in a training step needs its keys on the host as a store
        ``d[i.item()] = v`` does (R31), which R95 reads for displays too (MeMOTR's criterion,
        ``{gt_id.item(): gt_idx for ...}`` every step, holdout135)."""
        stack = self.ctx.stack
        index = climb(stack, subscripts=False, items=False)
        if index < 1:
            return False
        parent, child = stack[index - 1], stack[index]
        return ((isinstance(parent, cst.DictComp) and parent.key is child)
                or (isinstance(parent, cst.DictElement) and parent.key is child))

    def _kept_prediction_field(self) -> bool:
        """Is the current ``.item()`` one field of a prediction record that code training nothing
        keeps (R44)? The number (also through ``round``/``float``/``int`` of it, or a name bound to
        it as it is) is an element of a tuple, list or dict display of two or more elements, not
        all of them ``.item()`` numbers or written-out names and constants, not under a key or
        name that says it measures, and that record is stored as data (appended, put in a
        container, written; not merely returned): ``preds.append((cls[i].item(), box, prob))``;
        ``{"image_id": i, "bbox": b, "score": round(s.item(), 5)}`` for a COCO file. Like R8's
        copies, it is how predictions reach what the host does with them. A record made only of
        numbers read from tensors (``{"loss": loss.item(), "acc": acc.item()}``) is a metric, and
        stays flagged, as do numbers summed, shown or formatted."""
        ctx = self.ctx
        stack = ctx.stack
        if shown(stack) or not self._in_code_that_trains_nothing():
            return False
        scope = next((n for n in reversed(stack) if isinstance(n, cst.FunctionDef)), None)
        if scope is None:
            return False
        above = stack[:stack.index(scope) + 1]
        index = _through_number_wrappers(stack, len(stack) - 1)
        if _stored_as_id_field(stack, index):
            return True  # ``res["image_id"] = target["image_id"].item()`` (R92)
        record = _record_holding(stack, index)
        if record is not None:
            return not _names_a_metric(stack, index) and _stored_as_data(stack[:record + 1], scope, above)
        # ``ques_id = int(ques_id.item()) if isinstance(ques_id, torch.Tensor) else ques_id``: the
        # number, or the name's value as it was (LAVIS's VQA tasks, holdout123; R80)
        converted = index >= 1 and isinstance(stack[index - 1], cst.IfExp) and stack[index - 1].body is stack[index]
        if converted:
            index -= 1
        statement = stack[index - 1] if index >= 1 else None
        if not (isinstance(statement, cst.Assign) and statement.value is stack[index] and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Name)):
            return False  # bound as it is (``score = s.item()``), not added up (``total += s.item()``)
        name = statement.targets[0].target.value
        if _METRIC_WORD.search(name):
            return False
        if converted and not (isinstance(stack[index].orelse, cst.Name) and stack[index].orelse.value == name):
            return False
        for use in name_uses(scope.body, name, above, statement, [False], reaching=[False]):
            at = _through_number_wrappers(use, len(use) - 1)
            if _stored_as_id_field(use, at):
                return True
            record = _record_holding(use, at)
            if record is not None and not _names_a_metric(use, at) and _stored_as_data(use[:record + 1], scope, above):
                return True
        return False

    def _collected_for_message(self) -> bool:
        """Is the current ``.item()`` the value of a comprehension bound to a name that is only ever
        shown afterwards (DeepForest's non-finite warning: ``non_finite = {k: v.item() for k, v in
        loss_dict.items() if ...}`` then ``warnings.warn(f"... {non_finite}")``, holdout149)? In a
        branch taken only when a value is not finite, that is a read for the message (R10; R131)."""
        stack = self.ctx.stack
        if len(stack) < 3:
            return False
        comprehension = stack[-2]
        if not ((isinstance(comprehension, cst.DictComp) and comprehension.value is stack[-1])
                or (isinstance(comprehension, (cst.ListComp, cst.GeneratorExp, cst.SetComp))
                    and comprehension.elt is stack[-1])):
            return False
        statement = stack[-3]
        if not (isinstance(statement, cst.Assign) and statement.value is comprehension and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Name)):
            return False
        walked = _enclosing_scope(stack)
        if walked is None:
            return False
        uses = list(name_uses(walked[0], statement.targets[0].target.value, walked[1], statement, [False]))
        return bool(uses) and all(shown(use) or _warned(use) for use in uses)

    def _evaluation_id(self) -> bool:
        """In code that trains nothing, is the current ``.item()`` a number the host needs as R38's
        Python ints are (handed to a call, indexing), never shown, logged, kept or added up
        (spert's ``label_idx = types[i].item(); input_reader.get_entity_type(label_idx)``)? In a
        training loop ``.item()`` is read as a metric too often to tell (R38 asks for ``int``)."""
        stack = self.ctx.stack
        # (the function around it, or the module: a script's loop under ``if __name__ ==
        # "__main__":``, BEVContrast's ``visu_downstream.py``, holdout149; R130)
        walked = _enclosing_scope(stack)
        if walked is None or shown(stack) or not self._in_code_that_trains_nothing():
            return False
        found = method_call(stack[-1]) if isinstance(stack[-1], cst.Call) else None
        if found is not None and _METRIC_WORD.search(last_identifier(found[0]) or ""):
            # ``self.iter_callback(loss.item(), acc, ...)``: a loss or an accuracy handed on is a
            # metric, not an id (segcontrast's validation_step, holdout133; R96)
            return False
        uses = statement_uses(walked[0], walked[1], name_uses)
        if len(stack) >= 2 and isinstance(stack[-2], cst.Assign) and stack[-2].value is stack[-1] and all(
                isinstance(t.target, cst.Name) for t in stack[-2].targets):
            # ``label_idx = types[i].item()``: every later use hands the id to a call of the
            # project's (not kept, not shown); an index into a container of unknown kind may be a
            # tensor's (R12), so only calls count here
            names = [t.target.value for t in stack[-2].targets]
            if any(_METRIC_WORD.search(name) for name in names):
                return False  # ``val_loss = loss.item()``: a metric, whatever it is handed to (R96)
            later = [use for name in names for use in uses(name, stack[-2])]
            if not later or not all(_handed_as_id(use, self.ctx.is_builtin) for use in later):
                return False
        elif not _handed_as_id(stack, self.ctx.is_builtin):
            return False
        return use_of_int(stack, self.ctx.is_builtin, uses) == HOST

    def _device_fallback(self) -> bool:
        """Is the current node in the body of an ``if`` that asks whether the value sits on a device
        that lacks the next op (``if "mps" in x.device.type: x = x.cpu()`` before NMS; also through a
        name the function sets to such a test, ``mps = "mps" in device.type``)? Such a copy runs
        only on that device, because the host must do the work there: host-needed. So is a copy
        under a test that the device asked for is the host (``if device == "cpu": return x.cpu()``
        in a helper that moves a batch where its caller says): the caller asked for the host."""
        stack = self.ctx.stack
        for index in range(len(stack) - 2, -1, -1):
            node = stack[index]
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(node, cst.If) and stack[index + 1] is node.body and (
                    self._asks_device_type(node.test) or _asks_for_the_host(node.test)):
                return True
        return False

    def _asks_device_type(self, test: cst.BaseExpression) -> bool:
        if isinstance(test, cst.Name):
            assigned = self.ctx.values.assigned_expr(test.value)
            return assigned is not None and _names_device_type(assigned)
        return _names_device_type(test)

    def _torch_needs_on_host(self) -> bool:
        """Is the current node a value the host must have (``_host_needed_use``), or the value
        (through arithmetic) of ``name = ...``/``a, b = ...``/``name += ...`` whose every later use
        in the function is one (``lengths = lengths.cpu()`` ... ``pack_padded_sequence(x, lengths)``,
        ``start, end = a.item(), b.item()`` ... ``t[start:end]``)? A conversion to numpy or a list
        (``m = t.cpu().numpy()``) is host-needed when any use hands it to numpy, scipy, OpenCV, an
        environment or a decoder: the other uses then read a host array, not the device."""
        stack = self.ctx.stack
        if self._host_needed_use(stack) or self._size_through_arithmetic(stack):
            return True
        if self._appended_for_host_library(stack) or self._int_for_host(stack):
            return True
        found = derived_assignment(stack)
        if found is None:
            return False
        name, statement, value = found
        scope = next((n for n in reversed(stack[:-1]) if isinstance(n, (cst.FunctionDef, cst.Module))), None)
        if scope is None:
            return False
        uses = list(name_uses(scope.body if isinstance(scope, cst.FunctionDef) else scope, name,
                               [scope], statement, [False], target_loads=True))
        carried = self._carried_uses(name, statement)
        if not uses and not carried:
            return False
        if _converts_to_host(value) and self._reaches_host_library(scope, name, statement,
                                                                   _accumulates(statement, name)):
            return True
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        # One host-needed use is enough (R3); not one the value cannot reach (the ``else`` of an
        # ``if`` whose body makes it, or after an unconditional new value)
        around = {id(n) for n in stack}
        later = list(name_uses(body, name, [scope], statement, [False], [False], target_loads=True,
                               rebinding_ends=around))
        loop = self.ctx.innermost_loop()
        if loop is not None and _accumulates(statement, name) and self._nothing_around_runs_every_step(loop):
            # ``xe_loss += loss.item() * len(y)`` ... after the loop ``np.exp(xe_loss / n)``: a sum
            # the host reads once, after the loop, needs one sync there, not one per step (the
            # message's own remedy); only what the loop itself does with it can need it every step
            later = [path for path in later if any(n is loop.node for n in path)]
        if loop is not None and _accumulates(statement, name):
            # ... or inside the loop only under an interval (``if (step + 1) % log_every == 0:
            # np.around(total / count)``): one sync per interval, not per step (R22; tab-ddpm)
            names = self.ctx.interval_names_of(loop)
            later = [path for path in later if not _under_interval_in(path, loop.node, names)]
            carried = [path for path in carried if not _under_interval_in(path, loop.node, names)]
        return self._uses_need_host(scope, name, later + carried, {name})

    def _int_for_host(self, stack) -> bool:
        """Is the value made into a Python int (or a list, ``.tolist()``) that the host needs:
        handed to a call or indexing with it, and never shown, logged, kept or added up (R38:
        ``max_len=int(1.3 * len1.max().item() + 5)``, ``k = int(n.item())`` ... ``torch.topk(x,
        k)``, ``tokenizer.convert_ids_to_tokens(ids.tolist())``)?"""
        scope = next((n for n in reversed(stack[:-1]) if isinstance(n, (cst.FunctionDef, cst.Module))), None)
        if scope is None:
            return False
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        uses = statement_uses(body, [scope], name_uses)
        return (int_for_host(stack, self.ctx.is_builtin, uses) or list_for_host(stack, self.ctx.is_builtin, uses)
                or item_size_for_host(stack, self.ctx.is_builtin, uses))

    def _nothing_around_runs_every_step(self, loop) -> bool:
        """Is ``loop`` outside any loop that runs every step and outside a step body, so that what
        follows it in the function runs once per epoch or per call? (A total read after a loop over
        the heads of one step, ``if tokens != features: break``, is read every step.)"""
        blocks = self.ctx.frame.blocks
        if loop not in blocks:
            return False
        return not any(outer.kind == BODY or (outer.kind == LOOP and not self.ctx.is_epoch_loop(outer)
                                              and not _takes_loaders(outer.node))
                       for outer in blocks[: blocks.index(loop)])

    def _appended_for_host_library(self, stack) -> bool:
        """``loss_hist.append(float(loss))`` where the same pass of the loop hands ``loss_hist`` to
        numpy (``np.mean(loss_hist)`` in the progress print): the running window is read on the host
        every step (R3). A list read by numpy only after the loop is not (one copy there would do)."""
        index = climb(stack, subscripts=False, items=False)
        loop = self.ctx.innermost_loop()
        if loop is None:
            return False
        if (index >= 3 and isinstance(stack[index - 1], cst.ListComp) and stack[index - 1].elt is stack[index]
                and isinstance(stack[index - 2], cst.Assign) and len(stack[index - 2].targets) == 1
                and isinstance(stack[index - 2].targets[0].target, cst.Name)):
            # ``loss_values = [v.item() for v in losses]`` ... ``statistics.append(loss_values)``: the
            # row of numbers appended as the number would be (flownet2's inference, holdout216; R188)
            outer = next((i for i, n in enumerate(stack) if n is loop.node), None)
            if outer is None or outer > index - 2:
                return False
            row = stack[index - 2].targets[0].target.value
            return any(self._appended_for_host_library(path) for path in name_uses(
                loop.node.body, row, stack[:outer + 1], stack[index - 2], [False], reaching=[False]))
        if not (index >= 3 and isinstance(stack[index - 1], cst.Arg) and isinstance(stack[index - 2], cst.Call)):
            return False
        func = stack[index - 2].func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend", "appendleft")
                and isinstance(func.value, cst.Name)):
            return False
        statement = next((n for n in reversed(stack[:index - 2]) if isinstance(n, cst.BaseSmallStatement)), None)
        if statement is None:
            return False
        position = next((i for i, n in enumerate(stack) if n is loop.node), None)
        if position is None:
            return False
        around = stack[:position + 1]
        # (read only under an interval, ``if step % eval_num == 0: np.mean(loss_train)``, the list
        # needs one copy per interval, not one per step: R22, SwinUNETR's pre-training, holdout45)
        names = self.ctx.interval_names_of(loop)
        return any(self._host_library_argument(path) and not _under_interval_in(path, loop.node, names)
                   for path in name_uses(loop.node.body, func.value.value, around, statement, [False],
                                         reaching=[False]))

    def _carried_uses(self, name: str, statement) -> list:
        """The uses the next time round of ``name += ...`` in the innermost loop: every load of
        ``name`` in the loop's body, those before the statement included (StyleTTS2's
        ``x[i, c:c + int(d[i])] = 1``; ``c += int(d[i])``: the running offset is a slice bound)."""
        if not isinstance(statement, cst.AugAssign):
            return []
        loop = self.ctx.innermost_loop()
        stack = self.ctx.stack
        position = next((i for i, n in enumerate(stack) if loop is not None and n is loop.node), None)
        if position is None:
            return []
        return [path for path in name_uses(loop.node.body, name, stack[:position + 1], None, [True],
                                            target_loads=True)
                if not (isinstance(path[-2], cst.AugAssign) and path[-2].target is path[-1])]

    def _reaches_host_library(self, scope, name: str, statement, running_total: bool = False) -> bool:
        """Does the host array or list ``name`` (bound at ``statement``) reach numpy, scipy, OpenCV,
        PIL, an environment or a decoder: directly, or through names made from it in the function
        (an item, a slice, arithmetic or a method of it, a ``for`` target over it or over a
        ``zip``/``enumerate`` of it, a list it is appended to)? axolotl's table callback:
        ``ids = seqs.cpu().tolist()``; ``for p, t in zip(prompts, ids): rest.append(t[len(p):])``;
        ``tokenizer.batch_decode(rest)``. A few names at most. A name made from it counts only where
        the same time round the loop reads it: a list filled every step and handed to numpy after
        the loop (``np.concatenate(all_indices)``) needs one copy at the end, not one per step. A
        running total (``running_total``) read there only under an interval needs one per interval
        (R22: ``if (step + 1) % log_every == 0: np.around(total / n)``, tab-ddpm), and one read
        only after the loop needs one sync there."""
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        loop = self.ctx.innermost_loop()
        loop_node = loop.node if loop is not None else None
        pending, seen = [(name, statement)], {name}
        while pending:
            current, after = pending.pop()
            for path in name_uses(body, current, [scope], after, [False], reaching=[False]):
                # (a running total counts only where the loop reads it: handed to a host library,
                # pickle too, after the loop it needs one sync there, R22; ClipBERT's validation
                # sums gathered with ``all_gather_list`` after the loop, holdout42)
                if self._host_library_argument(path) and (
                        (current == name and not running_total) or loop_node is None
                        or any(n is loop_node for n in path)) and not (
                        running_total and loop_node is not None
                        and _under_interval_in(path, loop_node, self.ctx.interval_names_of(loop))):
                    return True
                for derived, bound_at in derived_names(path):
                    if derived not in seen and len(seen) < 8:
                        seen.add(derived)
                        pending.append((derived, bound_at))
        return False

    def _uses_need_host(self, scope, name: str, uses, seen: set) -> bool:
        """Does a use in ``uses`` (of ``name``) need the value on the host? One is enough (the
        lead's reading R3, 2026-11-26: host-needed wins; the sync cannot go while that use stays,
        whatever the other uses read). A use that only tests it (``if n > 0:``,
        ``0 <= i < t.size(0)``) or takes its length needs nothing by itself; a use may rebind the
        name to an item of it (``ind = ind[0]``), or give, through arithmetic and
        ``min``/``max``/``int``, another name with such a use (``slen = s.item()``;
        ``n = slen - plen``; ``t[start : start + n]``): sizes and slice bounds reached through a
        few names (spec: shapes and sizes are host-needed), also through a clamp of the name into
        itself (``start = max(0, start)``; ``k = max(k, 1)`` before ``torch.topk(x, k)``, whose
        ``k`` torch reads on the host: the development set's labels count that one as a per-step
        sync, rules.md does not, docs/precision.md 2026-11-26 prec3)."""
        for path in uses:
            if self._host_needed_use(path):
                return True
            if tests_size(path):
                continue
            if self._size_through_arithmetic(path):
                return True
            derived = derived_assignment(path)
            if derived is None:
                continue
            derived_name, statement, _ = derived
            if derived_name == name or derived_name in seen or len(seen) > 4:
                # ``ind = ind[0]``, ``k = max(k, 1)``: an item or a clamp of itself, whose later
                # uses are in ``uses`` already
                continue
            body = scope.body if isinstance(scope, cst.FunctionDef) else scope
            later = list(name_uses(body, derived_name, [scope], statement, [False], [False], target_loads=True,
                                    rebinding_ends=ancestors(path)))
            if later and self._uses_need_host(scope, derived_name, later, seen | {derived_name}):
                return True
        return False

    def _size_through_arithmetic(self, path) -> bool:
        """A slice bound or ``F.pad`` width computed from the value (``t[s : s + n]``,
        ``F.pad(x, (0, k - n))``, also through ``int(...)``: ``pad(x, (0, int(w - m.sum().item())))``):
        sizes the host needs, as the value itself would be."""
        index = len(path) - 1
        while index >= 1:
            if isinstance(path[index - 1], (cst.BinaryOperation, cst.UnaryOperation)):
                index -= 1
            elif (index >= 2 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
                  and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in SIZE_BUILTINS
                  and self.ctx.is_builtin(path[index - 2].func.value)):
                index -= 2
            else:
                break
        if index < len(path) - 1 and index >= 1 and isinstance(path[index - 1], cst.Slice):
            return True
        if index < len(path) - 1 and self._host_argument(path[: index + 1]):
            return True  # ``x.narrow(2, n, x.size(2) - n)``: a bound computed from the value
        if index >= 3 and isinstance(path[index - 1], cst.Element) and isinstance(path[index - 2], cst.Tuple):
            arg, call = path[index - 3], path[index - 4] if index >= 4 else None
            if (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and arg.keyword is not None
                    and arg.keyword.value == "size" and (self.ctx.qualname(call.func) or "").startswith("torch.")):
                return True  # ``torch.FloatTensor(size=(max_size - local_size,))``: a size (OpenPCDet)
            if isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and self.ctx.qualname(
                    call.func) == "torch.nn.functional.pad":
                positional = [a for a in call.args if a.keyword is None]
                return (len(positional) > 1 and positional[1] is arg) or (
                    arg.keyword is not None and arg.keyword.value == "pad")
        return False

    def _host_needed_use(self, path) -> bool:
        """``_host_argument``, the key of a lookup in a Python dict or list, or the test of an ``if``
        that leaves a loop that runs no update."""
        return (self._host_argument(path) or self._python_lookup_key(path) or self._decides_loop_stop_at(path)
                or self._iterated_as_lookup_keys(path) or self._numpy_index(path) or self._set_member(path)
                or _in_tuple_tested_for_membership(path))

    def _set_member(self, path) -> bool:
        """Is the last node of ``path`` (through method calls on it and ``tuple``/``list``/``str``
        of it) a member a Python set or dict is asked about or given: ``ids in self.visited_ids``,
        ``self.visited_ids.add(ids)``, ``set(tokens)``? The set hashes it on the host, as a dict key
        (R31; InnerEye's visited-batch ids, medical-ai's token sets)."""
        index = len(path) - 1
        if isinstance(path[index], cst.Call) and isinstance(path[index].func, cst.Attribute) and (
                path[index].func.attr.value == "item"):
            # one number per element (yolov7's ``d.item() not in detected_set``): a dedupe the device can do
            return False
        while index >= 2:
            parent = path[index - 1]
            if (isinstance(parent, cst.Attribute) and parent.value is path[index]
                    and isinstance(path[index - 2], cst.Call)):
                if parent.attr.value == "item":
                    return False
                index -= 2  # ``x.tolist()``, ``x.cpu()``
            elif (isinstance(parent, cst.Arg) and isinstance(path[index - 2], cst.Call)
                  and isinstance(path[index - 2].func, cst.Name)
                  and path[index - 2].func.value in ("tuple", "list", "str")
                  and self.ctx.is_builtin(path[index - 2].func.value)):
                index -= 2
            else:
                break
        if index < 2:
            return False
        parent, node = path[index - 1], path[index]
        if isinstance(parent, cst.Comparison) and parent.left is node and parent.comparisons and isinstance(
                parent.comparisons[0].operator, (cst.In, cst.NotIn)):
            return not self.ctx.is_tensor(parent.comparisons[0].comparator)
        if isinstance(parent, cst.Arg) and isinstance(path[index - 2], cst.Call) and parent.keyword is None:
            func = path[index - 2].func
            if isinstance(func, cst.Name) and func.value in ("set", "frozenset") and self.ctx.is_builtin(func.value):
                return True
            return (isinstance(func, cst.Attribute) and func.attr.value == "add" and len(path[index - 2].args) == 1
                    and _SET_NAME.search(last_identifier(func.value) or "") is not None)
        return False

    def _numpy_index(self, path) -> bool:
        """Is the last node of ``path`` (through method calls on it) an index of a numpy array
        (``pos.cpu().numpy()[mask]``, ``arr[:, keep]``)? numpy indexes on the host: a mask or index
        array handed to it is a numpy consumer (R3), as an argument of an ``np.*`` function is."""
        index = climb(path, subscripts=False, items=False)
        while index >= 2 and (isinstance(path[index - 1], (cst.Comparison, cst.BinaryOperation, cst.UnaryOperation))
                              or (isinstance(path[index - 1], cst.ComparisonTarget)
                                  and isinstance(path[index - 2], cst.Comparison))):
            # ``error[pred != gt] = 1``: a mask made from the value indexes the numpy array (SAM-Med2D)
            index -= 2 if isinstance(path[index - 1], cst.ComparisonTarget) else 1
        if index < 4 or not isinstance(path[index - 1], cst.Index) or not isinstance(
                path[index - 2], cst.SubscriptElement) or not isinstance(path[index - 3], cst.Subscript):
            return False
        container = path[index - 3].value
        if self.ctx.value_kind(container) == value_flow.NUMPY:
            return True
        if (index >= 6 and isinstance(path[index - 4], cst.Attribute) and path[index - 4].value is path[index - 3]
                and isinstance(path[index - 5], cst.Call) and path[index - 5].func is path[index - 4]
                and path[index - 4].attr.value in _HOST_ARRAY_ONLY_METHODS):
            # ``labelMat[batIds.cpu()].toarray()``: what is indexed has a method only numpy or scipy
            # arrays have (SSLRec's scipy sparse label matrix, holdout44)
            return True
        # (an array made after the sync, ``error = np.zeros_like(pred)``: where the walk stands the
        # name is not bound yet, so every binding the function gives it is read instead)
        return isinstance(container, cst.Name) and self._only_bound_to_numpy(path, container.value)

    def _only_bound_to_numpy(self, path, name: str) -> bool:
        """Is ``name`` a numpy array where ``path`` uses it: the last binding the function gives
        it before the use's statement is a numpy array (an ``np.*`` call's result or a
        ``.numpy()`` copy: DRL-Hands-On's ``next_distr = next_distr.data.cpu().numpy()`` indexed by
        the actions, holdout44), or, bound only after it (``error = np.zeros_like(pred)`` after the
        sync), every binding the function gives it is one?"""
        scope = next((n for n in reversed(path) if isinstance(n, cst.FunctionDef)), None)
        if scope is None:
            return False
        statement = next((n for n in reversed(path) if isinstance(n, cst.BaseSmallStatement)), None)
        values, before, reached = [], None, False
        for node in descendants(scope.body):
            if node is statement:
                reached = True
            if isinstance(node, cst.Assign) and any(name in assigned_names(t.target) for t in node.targets):
                if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
                    return False
                values.append(node.value)
                if not reached and statement is not None:
                    before = node.value
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)) and name in assigned_names(node.target):
                return False
        if before is not None:
            return self._makes_numpy_array(before)
        return bool(values) and all(self._makes_numpy_array(v) for v in values)

    def _makes_numpy_array(self, value) -> bool:
        return isinstance(value, cst.Call) and (
            (self.ctx.qualname(value.func) or "").startswith("numpy.")
            or (isinstance(value.func, cst.Attribute) and value.func.attr.value == "numpy"))

    def _iterated_as_lookup_keys(self, path) -> bool:
        """Is the last node of ``path`` (through method calls on it) what a host ``for`` or
        comprehension iterates (``for i in done.tolist(): slot = batch_idx_map[i]``, ``[batch_idx_map[i]
        for i in kept.tolist()]``), whose item is the key of a read from a Python dict or list
        (``_python_lookup_key``)? The host needs each id to look it up, as it would one ``.item()``."""
        index = climb(path, subscripts=False, items=False)
        node = path[index]
        loop = for_over(path, index)
        if loop is not None:
            where = next((i for i, n in enumerate(path) if n is loop), None)
            scopes = [(loop.body, path[:where + 1])] if where is not None else []
            targets = assigned_names(loop.target)
        elif index >= 2 and isinstance(path[index - 1], cst.CompFor) and path[index - 1].iter is node:
            owner = path[index - 2]
            parts = [getattr(owner, field, None) for field in ("elt", "key", "value")]
            scopes = [(part, path[:index - 1]) for part in parts if part is not None]
            scopes += [(test, path[:index]) for test in path[index - 1].ifs]
            targets = assigned_names(path[index - 1].target)
        else:
            return False
        # ... or an argument of a host library (``[tokenizer.get_special_tokens_mask(val, ...) for val
        # in labels.tolist()]``, the masking step of the MLM scripts: R47.6)
        return any(self._python_lookup_key(use) or self._host_library_argument(use)
                   for target in targets for part, above in scopes
                   for use in name_uses(part, target, above, None, [True], target_loads=True))

    def _python_lookup_key(self, path) -> bool:
        """Is the last node of ``path`` (through method calls on it) the whole key of a read from a
        Python dict or list (``self.int_to_char[seq[i].item()]``: deepspeech decoding ids to text;
        ``names[pred.item()]``)? The mapping lives on the host and takes a Python number: the
        host must have the value (rules.md, decoding samples that must reach the host). A
        container of the function (``value_flow``), or a ``self.`` attribute the file only ever
        binds to one (python_containers), or an item of one; a store (``res[image_id.item()] = out``)
        needs the key as a read does. An update (``counts[y.item()] += 1``) is a running count (R22)."""
        index = climb(path, subscripts=False, items=False)
        as_string = False
        while (index >= 3 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
               and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in ("str", "int")
               and len(path[index - 2].args) == 1 and self.ctx.is_builtin(path[index - 2].func.value)):
            # ``ix_to_word[str(ix.item())]``: the key made a string or an int (AoANet's decoder, R192)
            as_string = as_string or path[index - 2].func.value == "str"
            index -= 2
        if _tested_among_keys(path, index):
            return True  # ``if gt_label.item() not in self.panoptic_qualities.keys():`` (R159)
        if index < 4 or not isinstance(path[index - 1], cst.Index):
            return False
        element, subscript = path[index - 2], path[index - 3]
        if not (isinstance(element, cst.SubscriptElement) and isinstance(subscript, cst.Subscript)
                and len(subscript.slice) == 1):
            return False
        holder = path[index - 4]
        if isinstance(holder, (cst.AugAssign, cst.AnnAssign)) and holder.target is subscript:
            return False
        if as_string:
            return True  # no tensor takes a string index: the container is a Python mapping
        container = subscript.value
        while isinstance(container, cst.Subscript):
            # ``self.estimates[name][idx.item()][offset.item()] = est``: a key of a dict kept in a
            # dict (LaSAFT's test_step; a store needs the key on the host as a read does)
            container = container.value
        if _names_a_constant(last_identifier(container)) or _names_a_symbol_table(last_identifier(container)):
            # ``self.IX_TO_NAME[condition.argmax().item()]``: a mapping named as a Python constant
            # (Jointist's, taken from its config, holdout48)
            return True
        if isinstance(container, cst.Name):
            return self.ctx.value_kind(container) in (value_flow.PYTHON, value_flow.CONTAINER)
        if not (isinstance(container, cst.Attribute) and isinstance(container.value, cst.Name)):
            return False
        if container.value.value == "self":
            return container.attr.value in self.ctx.facts.derived("container_attributes", container_attributes)
        return (f"{container.value.value}.{container.attr.value}"
                in self.ctx.facts.derived("settings_container_attributes", settings_container_attributes))

    def _host_library_argument(self, path) -> bool:
        """Is the last node of ``path`` (through subscripts and method calls on it) an argument of
        a numpy, scipy, OpenCV, PIL or scikit-learn function, of an environment's ``env.step(...)``, or of a
        tokenizer's ``decode``/``batch_decode``: values the host must have (spec: a step body)?"""
        index = climb(path, subscripts=True)
        if any(isinstance(node, cst.Attribute) and node.attr.value in _NUMPY_ONLY_METHODS
               and isinstance(path[i - 1], cst.Call) and path[i - 1].func is node
               for i, node in enumerate(path[index:], start=index) if i >= 1):
            # ``mask = mask.cpu().numpy()`` ... ``mask.sum(1)[:, 0].astype(np.int32)``: a method only
            # numpy arrays have: the host computes with the array (glow-tts's monotonic alignment)
            return True
        while index >= 2:
            parent = path[index - 1]
            if isinstance(parent, cst.IfExp):
                # ``linestyle="--" if rest[i] else "-"``: the value picks the argument the call is
                # handed, so the host must have it when the call is made
                index = climb(path[:index], subscripts=True)
            elif (isinstance(parent, cst.Index) and index >= 4 and isinstance(path[index - 2], cst.SubscriptElement)
                  and isinstance(path[index - 3], cst.Subscript)):
                # ``Chem.Atom(decoder[atom.item()])``: the item picks what the call is handed
                index = climb(path[:index - 2], subscripts=True)
            elif (isinstance(parent, cst.Arg) and index >= 3 and isinstance(path[index - 2], cst.Call)
                  and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in _HANDING_ON
                  and self.ctx.is_builtin(path[index - 2].func.value) and len(path[index - 2].args) == 1):
                # ``pickle.loads(bytes(buffer[a:b].tolist()))``: a builtin that only repacks what it is
                # handed hands it on to the call around it (ANCE's all_gather_list, holdout145; R112)
                index = climb(path[:index - 1], subscripts=True)
            elif (isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and parent.elt is path[index]) or isinstance(
                    parent, (cst.Comparison, cst.ComparisonTarget, cst.UnaryOperation)):
                # ``np.asarray([g.pos.cpu().numpy()[keep] for g in graphs])``, ``np.where(labels == r)``:
                # the items of a list the call is handed, or an array compared elementwise, are
                # what it reads
                index = climb(path[:index], subscripts=True)
            else:
                break
        if index < 2 or not isinstance(path[index - 1], cst.Arg) or not isinstance(path[index - 2], cst.Call):
            return False
        call = path[index - 2]
        qual = self.ctx.qualname(call.func) or ""
        if qual.split(".", 1)[0] in _HOST_LIBRARIES or self._project_hands_to_host_library(call, path[index - 1]):
            return True
        if qual == "torch.save" and call.args and call.args[0] is path[index - 1]:
            # ``torch.save(ref.cpu(), path)``: torch pickles what it is handed from the host (a
            # device tensor is copied the same way), so the copy adds no wait (R16; MeMOTR's
            # visualisation dumps, holdout135; R99)
            return True
        found = method_call(call)
        if found is None:
            return False
        receiver, method = found
        if self._made_by_host_library(receiver):
            # ``mol = Chem.RWMol()`` ... ``mol.AddBond(i.item(), j.item())``, ``self.pca =
            # PCA(...)`` ... ``self.pca.transform(h.cpu().numpy())``: a method of an object a host
            # library made (bio-diffusion's molecules, lobster's PCA, holdout45)
            return True
        owner = (last_identifier(receiver) or "").lower()
        if method == "batch_decode" or (method == "decode" and any(
                word in owner for word in ("token", "processor", "processing"))):
            return True  # ids decoded to text (a VAE's or an autoencoder's ``decode`` takes tensors)
        if owner.endswith("tokenizer") and method in _TOKENIZER_METHODS:
            # ``tokenizer.convert_ids_to_tokens(ids)``, ``tokenizer.get_special_tokens_mask(val)``: a
            # Hugging Face tokenizer works on the host, in Python or Rust (R47.6); a project's own
            # tokenizer class is read through its methods (openvla's ``ActionTokenizer``)
            return True
        return method == "step" and (owner.endswith("env") or owner.endswith("envs"))

    def _made_by_host_library(self, receiver) -> bool:
        """Is ``receiver`` a name last bound in the function to what a host library's call made, or
        a ``self.`` attribute every assignment of which in the file is one (or None)?"""
        if isinstance(receiver, cst.Name):
            return self._host_library_made(self.ctx.values.assigned_expr(receiver.value))
        return (isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)
                and receiver.value.value == "self" and receiver.attr.value in self.ctx.facts.derived(
                    "host_library_attributes", host_library_attributes))

    def _host_library_made(self, value) -> bool:
        """``PCA(n)``, ``Chem.RWMol()``, also ``PCA(n) if k else None``: a host library's object."""
        if isinstance(value, cst.IfExp):
            branches = [b for b in (value.body, value.orelse) if not (isinstance(b, cst.Name) and b.value == "None")]
            return bool(branches) and all(self._host_library_made(b) for b in branches)
        return isinstance(value, cst.Call) and (self.ctx.qualname(value.func) or "").split(".", 1)[0] in _HOST_LIBRARIES

    def _size_read_on_host(self) -> bool:
        """``idx = mask.nonzero()`` whose size the host then reads (``if idx.numel() > 0:``,
        ``len(idx)``, ``idx.shape[0]``): the sync of ``nonzero`` is the count of its rows, and that
        count is what the host asks for (R3: a size is host-needed)."""
        stack = self.ctx.stack
        if _reads_size(stack):
            return True  # written in place: ``if (ids == tok).nonzero().shape[0] > 0:``
        scope = next((n for n in reversed(stack[:-1]) if isinstance(n, (cst.FunctionDef, cst.Module))), None)
        if scope is None:
            return False
        found = assigned_name(stack)
        if found is not None:
            bound, statement = [found[0]], found[1]
        else:
            # ``(nonzeros,) = (seq == eos).nonzero(as_tuple=True)`` then ``len(nonzeros)``: the
            # indices unpacked (alpaca_farm's and LLaVA-RLHF's validity masks)
            index = climb(stack, subscripts=False, items=False)
            statement = stack[index - 1] if index >= 1 else None
            if not (isinstance(statement, cst.Assign) and statement.value is stack[index]
                    and all(isinstance(t.target, (cst.Tuple, cst.List)) for t in statement.targets)):
                return False
            bound = [n for t in statement.targets for n in assigned_names(t.target)]
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        for name in bound:
            for path in name_uses(body, name, [scope], statement, [False], reaching=[False]):
                if _reads_size(path) or _iterated(path) or _item_reads_size(path):
                    return True
        return False

    def _evaluation_indices(self) -> bool:
        """``row, col = torch.nonzero(reps, as_tuple=True)`` in code that trains nothing (R8's scope:
        ``_evaluation_copy``), with one of the indices copied to the host afterwards
        (``col.cpu().numpy()`` into a sparse index or a scorer): the indices are the results that
        evaluation brings to the host (R8), and that copy waits for the ``nonzero`` in any case;
        its count is the size of what the copy brings (R3: a size is host-needed)."""
        stack = self.ctx.stack
        index = len(stack) - 1
        while index >= 2 and ((isinstance(stack[index - 1], cst.Attribute) and stack[index - 1].value is stack[index])
                              or (isinstance(stack[index - 1], cst.Call) and stack[index - 1].func is stack[index])):
            index -= 1  # ``types.nonzero().view(-1)``, ``mask.nonzero(as_tuple=False).T``
        if index < 1 or not isinstance(stack[index - 1], cst.Assign) or stack[index - 1].value is not stack[index]:
            return False
        if not self._evaluation_copy():
            return False
        statement = stack[index - 1]
        scope = next((n for n in reversed(stack[:-1]) if isinstance(n, (cst.FunctionDef, cst.Module))), None)
        if scope is None:
            return False
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        names = [n for t in statement.targets for n in assigned_names(t.target)]
        for name in names:
            for path in name_uses(body, name, [scope], statement, [False], reaching=[False]):
                if (len(path) >= 3 and isinstance(path[-2], cst.Attribute) and path[-2].value is path[-1]
                        and path[-2].attr.value in ("cpu", "tolist", "numpy")
                        and isinstance(path[-3], cst.Call) and path[-3].func is path[-2]):
                    return True
                if len(path) >= 2 and isinstance(path[-2], cst.Index) and _picked_for_the_host(body, path, scope):
                    # ``valid = types.nonzero().view(-1); chosen = types[valid]`` ... ``chosen[i].item()``:
                    # the indices pick which predictions evaluation brings to the host (spert), R8
                    return True
        return False

    def _project_class_method(self, call: cst.Call) -> bool:
        """Is ``call`` (``name.item()``) a method that a project class defines, called on an
        instance of it (liif's ``val_res = utils.Averager()`` ... ``val_res.item()``, a running
        mean kept as a Python float, holdout65): no tensor's method, so no sync (R47.4)."""
        bodies = getattr(self.ctx.facts, "step_bodies", None)
        return bodies is not None and self._instance_method_record(bodies, call) is not None

    def _instance_method_record(self, bodies, call: cst.Call) -> Optional[dict]:
        """The index record of the project method ``call`` runs on an instance: of a name bound to
        ``Class(...)``, of a ``self.`` attribute ``__init__`` binds so, or of a parameter annotated
        with a project class; None otherwise."""
        return (instance_method(bodies, call.func, self.ctx.values.assigned_expr)
                or attribute_method(bodies, call.func, self.ctx.function_qualname())
                or annotated_method(bodies, call.func, self._enclosing_function())
                or own_method(bodies, call.func, self.ctx.function_qualname()))

    def _project_hands_to_host_library(self, call: cst.Call, arg: cst.Arg) -> bool:
        """Is ``arg`` handed to a parameter that the called project function (in this file or
        another, by a bare or dotted name) hands to a host library (host_library_parameters:
        DiffSinger's ``dur_to_figure(gt_dur, ...)``, which ``np.cumsum``s and plots it)?"""
        bodies = getattr(self.ctx.facts, "step_bodies", None)
        dotted = dotted_name(call.func)
        if bodies is None or dotted is None or arg.star:
            return False
        found = project_function(bodies, dotted, self.ctx.function_qualname())
        module, record = found if found is not None else (None, None)
        method = None if record is not None else (
            self._instance_method_record(bodies, call)
            or attribute_module_forward(bodies, call.func, self.ctx.function_qualname()))
        if record is None and method is None:
            return False
        keyword = arg.keyword.value if arg.keyword is not None else None
        positional = [a for a in call.args if a.keyword is None and not a.star]
        position = next((i for i, a in enumerate(positional) if a is arg), None) if keyword is None else None
        if keyword is None and any(a.star for a in call.args):
            return False  # a starred argument before it: its place is not known
        if method is not None:
            # ``rb.update_priorities(idx, prios)`` with ``rb = PrioritizedReplayBuffer(...)``
            parameter = method_parameter(method, position, keyword)
            return hands_to_host_library(method, parameter) or host_size_parameter(method, parameter)
        record_parameter = parameter_of_argument(record, position, keyword)
        # (a slice bound there, ``attn.sum(1)[:x_length]``, or lengths it packs, is a size the host
        # needs: R3 across the call)
        return host_size_parameter(record, record_parameter) or reaches_host_library(
            bodies, module, record, record_parameter)

    def _enclosing_function(self) -> Optional[cst.FunctionDef]:
        return next((n for n in reversed(self.ctx.stack) if isinstance(n, cst.FunctionDef)), None)

    def _decides_loop_stop_at(self, path) -> bool:
        """Is the last node of ``path`` in the test of an ``if`` that leaves the innermost loop
        around it, a loop that runs no update (``if tokens != features: break``), or in the test
        of such a ``while`` loop itself (rl4co's rollout: ``while not td["done"].all():``)?"""
        for index in range(len(path) - 2, -1, -1):
            node = path[index]
            if isinstance(node, cst.While) and path[index + 1] is node.test:
                return not self._trains(node.body)
            if isinstance(node, cst.If):
                if path[index + 1] is not node.test or not chain_leaves(node, failures=False):
                    # (``if torch.isnan(loss_value).any(): raise RuntimeError(...)`` in a loop over
                    # a step's losses fails the run, it decides no stop: the test is R10's, reported;
                    # polyffusion, holdout225; R200)
                    return False
                loop = next((n for n in reversed(path[:index]) if isinstance(n, (cst.For, cst.While))), None)
                return loop is not None and not self._trains(loop.body)
            if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.FunctionDef, cst.Lambda)):
                return False
        return False

    def _host_argument(self, path) -> bool:
        """Is the last node of ``path`` (a root-to-node list of libcst nodes), through method calls
        on it (``lengths.cpu().long()``), an argument that torch requires on the host:
        ``pack_padded_sequence`` lengths, ``split``/``tensor_split`` sections, ``narrow`` bounds, a
        shape or size (``x.view(n.item(), -1)``, ``torch.zeros(int(n))``)?"""
        stack = path
        index = climb(stack, subscripts=False)
        bound = index
        while bound >= 1 and isinstance(stack[bound - 1], (cst.BinaryOperation, cst.UnaryOperation)):
            bound -= 1
        if bound >= 1 and isinstance(stack[bound - 1], cst.Slice):
            # a slice bound (``t[start.item():end.item()]``), also computed from the value
            # (``t[i, c:c + int(d[i])]``): a size the host needs
            return True
        if self._host_library_argument(path):
            return True
        if index < 2 or not isinstance(stack[index - 1], cst.Arg) or not isinstance(stack[index - 2], cst.Call):
            return False
        arg, call = stack[index - 1], stack[index - 2]
        ctx = self.ctx
        qual = ctx.qualname(call.func)
        found = method_call(call)
        method = found[1] if found is not None and not (qual and qual.startswith("torch.")) else None
        positional = [a for a in call.args if a.keyword is None]
        position = next((i for i, a in enumerate(positional) if a is arg), None)
        if method in _SHAPE_METHODS or qual in _SHAPE_FACTORIES:
            if method in ("new_full", "unflatten") or qual == "torch.full":
                # ``torch.full(size, fill)``, ``x.new_full(size, fill)``: only the size;
                # ``x.unflatten(dim, sizes)``: only the sizes
                wanted = 1 if method == "unflatten" else 0
                return position == wanted or (arg.keyword is not None and arg.keyword.value in ("size", "sizes"))
            return arg.keyword is None or arg.keyword.value in ("size", "shape", "sizes")
        name = qual if qual in _HOST_ARGUMENTS or qual in _HOST_COPY_ARGUMENTS else (
            "pack_padded_sequence" if last_identifier(call.func) == "pack_padded_sequence" else
            f".{method}" if method is not None else None)
        places = _HOST_ARGUMENTS.get(name)
        if places is None and name in _HOST_COPY_ARGUMENTS:
            sync = method_call(stack[-1]) if isinstance(stack[-1], cst.Call) else None
            places = _HOST_COPY_ARGUMENTS[name] if sync is not None and sync[1] == "cpu" else None
        if places is None:
            return False
        indexes, keywords = places
        return position in indexes or (arg.keyword is not None and arg.keyword.value in keywords)

    def _decides_loop_stop(self) -> bool:
        """Is the current node in the test of an ``if`` whose body leaves the loop, or of a
        ``while`` (greedy decoding's ``if next_id.item() == eos_id: break``)?"""
        stack = self.ctx.stack
        for index in range(len(stack) - 2, -1, -1):
            node = stack[index]
            if isinstance(node, (cst.If, cst.While)):
                return stack[index + 1] is node.test and self._stops_loop(node)
            if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.FunctionDef, cst.Lambda)):
                return False
        return False

    def _read_by_loop_stop(self, receiver: cst.BaseExpression) -> bool:
        """``prev.item()`` where the innermost loop, one that runs no update, also stops on ``prev``
        (``if prev.item() in stop_ids: break`` in its body, or its ``while`` test): the host must
        have that value every time round (rules.md: a value that decides whether a loop stops is
        host-needed; greedy and sampled decoding), so the other reads of it are host-needed too
        (``output.append(prev.item())``, ``if i < min_len and prev.item() in stop_ids:``)."""
        if not isinstance(receiver, cst.Name):
            return False
        loop = self.ctx.innermost_loop()
        if loop is None or self._trains(loop.node.body):
            return False
        name = receiver.value

        def reads(test) -> bool:
            return any(isinstance(n, cst.Name) and n.value == name for n in descendants(test))

        node = loop.node
        if isinstance(node, cst.While) and reads(node.test):
            return True
        nested = (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef)
        return any(isinstance(n, cst.If) and _stops_by_break_or_return(n.body) and reads(n.test)
                   for n in descendants(node.body, prune=lambda n: isinstance(n, nested)))

    def _stops_loop(self, node) -> bool:
        """``node`` (an ``if`` that leaves the loop, or a ``while``) decides whether a loop that runs
        no update stops: the host must know every time round. A training loop that stops on a
        NaN loss (``.backward()``/``optimizer.step()`` in its body) still pays one sync per step
        that checking every N steps would save."""
        ctx = self.ctx
        if isinstance(node, cst.If):
            loop = ctx.innermost_loop()
            loop_node = loop.node if loop is not None else None
            # ``if eos_test: stop = True`` ... ``if stop: break`` stops the loop as surely (stop_flags)
            # (a ``raise`` or an exit call fails the run: that test decides no stop, R200)
            if not chain_leaves(node, failures=False) and not (
                    loop_node is not None and sets_stop_flag(node.body, loop_node)):
                return False
        else:
            loop_node = node
        return loop_node is not None and not self._trains(loop_node.body)

    def _trains(self, body) -> bool:
        """Does a loop's body run the update (``steps.runs_update``), or hand the optimizer to a call
        or call a loss scaler (``loss_scaler(loss, optimizer, parameters=...)``: the DeiT/MAE
        wrapper that runs backward and step in another module)? Then a stop test in it is a
        training loop's NaN check, which checking every N steps would do (rules.md: the loop-stop
        reading is for loops that run no update: decoding). Worked out once per loop."""
        known = self._training_loops.get(id(body))
        if known is not None and known[0] is body:
            return known[1]
        # an argument counts by its own name (``self.optimizer``), not its owner's: ``opt.min_depth``
        # reads an option of an argparse ``opt``, it hands over no optimizer
        # ``optimizer.zero_grad()`` alone updates nothing: alignn's validation loop, copied from
        # its training loop, clears the gradients and runs no backward (holdout45); nor does a call
        # of a scaler object itself (rl4co's reward scaler, ``self.scaler(reward)``): a loss scaler
        # that steps is handed the optimizer (below), a gradient scaler steps by its methods
        trains = self.ctx.steps.runs_update(body) or any(
            isinstance(n, cst.Call) and ((_names_optimizer(n.func) and not _clears_gradients(n.func)
                                          and not _calls_a_scaler(n.func) and not _transforms_data(n.func)) or any(
                _names_optimizer(a.value) for a in n.args
                if not (isinstance(a.value, cst.Attribute) and not _names_optimizer(a.value.attr))))
            and not self._cannot_train(n)
            for n in descendants(body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))))
        self._training_loops[id(body)] = (body, trains)
        return trains

    def _cannot_train(self, call: cst.Call) -> bool:
        """Is ``call`` one of a project function that cannot train with what it is handed (no step
        work, library calls only: trainless_helpers), so that an optimizer-named argument
        (``new_opt_cam``, an optimised camera) does not make its loop train?"""
        if _names_optimizer(call.func):
            return False  # ``optimizer.step()``, ``loss_scaler(...)``: the call itself is the optimizer's
        return trains_nothing(getattr(self.ctx.facts, "step_bodies", None), dotted_name(call.func),
                              self.ctx.function_qualname() or "")

    def _in_memory_measurement(self) -> bool:
        """In a function that resets and reads back the peak memory statistics (R43)?"""
        function = next((n for n in reversed(self.ctx.stack) if isinstance(n, cst.FunctionDef)), None)
        return function is not None and measures_peak_memory(function, self.ctx.qualname)

    def _brackets_timer(self) -> bool:
        """``torch.cuda.synchronize()`` followed, before any other device work, by a timer read
        (``t1 = time.perf_counter()``), also when it is the last statement of an ``if``
        (``if cuda: torch.cuda.synchronize()``) that the timer read follows: the user asked for
        that timing, and the clock means nothing without the wait (the lead's reading R6,
        2026-11-26: host-needed anywhere, not only in a benchmark). Statements that do no device
        work may stand between (``n += 1``, ``print("done")``, ``logging.info(...)``)."""
        stack = self.ctx.stack
        for index in range(len(stack) - 1, 0, -1):
            line = stack[index]
            if isinstance(line, cst.SimpleStatementLine):
                small = list(line.body)
                position = next((i for i, s in enumerate(small) if stack[index + 1] is s), None)
                if position is None:
                    return False
                for statement in small[position + 1:]:
                    if self._reads_timer(statement):
                        return True
                    if not self._host_only_work(statement):
                        return False
                path = list(stack[:index + 1])
                for _ in range(_MAX_STATEMENTS_BEFORE_TIMER):
                    found = next_statement(path, len(path) - 1)
                    if found is None:
                        return False
                    path = found
                    if self._reads_timer(path[-1]):
                        return True
                    if not self._host_only_work(path[-1]):
                        return False
                return False
        return False

    def _host_only_work(self, statement) -> bool:
        """A simple statement whose calls are Python builtins, of the standard library's time,
        logging and math modules, or a tensor's ``size()``/``dim()``/``numel()``: nothing queued on
        the device."""
        if not isinstance(statement, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            return False
        for node in descendants(statement):
            if isinstance(node, cst.Call):
                func = node.func
                if isinstance(func, cst.Name) and self.ctx.is_builtin(func.value):
                    continue
                if (self.ctx.qualname(func) or "").split(".", 1)[0] in _HOST_MODULES:
                    continue
                if isinstance(func, cst.Attribute) and func.attr.value in ("size", "dim", "numel"):
                    continue  # a tensor's metadata, read on the host
                return False
        return True

    def _reads_timer(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.SimpleStatementLine):
            return any(self._reads_timer(s) for s in node.body)
        if isinstance(node, cst.BaseCompoundStatement):
            return False
        # ``starter.elapsed_time(ender)``: CUDA events' timer, which needs the recorded events
        # done (glue-factory's benchmark, holdout60)
        return any(isinstance(n, cst.Call) and (self.ctx.qualname(n.func) in _TIMERS or (
            isinstance(n.func, cst.Attribute) and n.func.attr.value == "elapsed_time") or _reads_timer_object(n))
            for n in descendants(node))

    def _given_a_number(self) -> bool:
        """``return out.item() if isinstance(i, float) else out`` (dllm's noise schedulers, holdout39):
        in the branch where a parameter of the function is a Python number, the function was
        handed a number, not a step's tensor, and gives one back; its per-step callers hand
        tensors and never take that branch (as R40's closed branches)."""
        stack = self.ctx.stack
        function = next((n for n in reversed(stack) if isinstance(n, cst.FunctionDef)), None)
        if function is None:
            return False
        params = {p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                         *function.params.kwonly_params)}
        for index, node in enumerate(stack[:-1]):
            if isinstance(node, (cst.IfExp, cst.If)) and stack[index + 1] is node.body:
                test = node.test
                if (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                        and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)
                        and test.args[0].value.value in params):
                    kinds = test.args[1].value
                    elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
                    if elements and all(last_identifier(e) in _NUMBER_TYPES for e in elements):
                        return True
        return False

    def _narrowed_to_numpy(self, receiver: cst.BaseExpression) -> bool:
        """``x.tolist() if isinstance(x, np.ndarray) else x`` (or the same ``if`` block)."""
        if not isinstance(receiver, cst.Name):
            return False
        stack = self.ctx.stack
        for index, node in enumerate(stack[:-1]):
            if isinstance(node, (cst.IfExp, cst.If)) and stack[index + 1] is node.body:
                checked = _isinstance_types(node.test, receiver.value, self.ctx)
                if any(q.startswith("numpy.") for q in checked):
                    return True
        return False

    def _in_step(self) -> bool:
        """In a step loop (spec: "in a loop", and that loop does device work every time round), and
        not in a branch that leaves it."""
        ctx = self.ctx
        return (ctx.in_step_loop() and not ctx.leaves_loop(ctx.step_loop(), body_returns=False)
                and not _in_failure_handler(ctx.stack) and not _without_cuda(ctx)
                and not ctx.returned_to_framework() and not (ctx.step_body() is not None and _host_only(ctx.facts)))


def _reads_timer_object(call: cst.Call) -> bool:
    """``timer.toc()`` and the like: a method that reads the clock, of an object named a timer (R78)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in _TIMER_READS):
        return False
    receiver = func.value
    while isinstance(receiver, (cst.Call, cst.Subscript)):
        receiver = receiver.func if isinstance(receiver, cst.Call) else receiver.value
    name = last_identifier(receiver)
    return name is not None and _TIMER_NAME.search(name) is not None


def _names_a_constant(name: Optional[str]) -> bool:
    """``IX_TO_NAME``, ``ID2LABEL``, ``CLASSES``: a name written as a Python constant (upper case,
    three characters or more), which a mapping or a list of labels is named, not a tensor."""
    return name is not None and len(name) >= 3 and name.isupper() and any(c.isalpha() for c in name)


# ``id2answer``, ``idx2word``, ``ix_to_label``, ``itos``: a table from indices to symbols (answers,
# words, labels, classes), which is a Python dict or list, never a tensor (METER's and BridgeTower's
# ``[id2answer[pred.item()] for pred in preds]``, holdout75; R47.3). Tables of numbers (``id2emb``)
# are not named by it. A label index names symbols the same way (ban-vqa's ``label2ans[idx.item()]``,
# holdout148; R119).
# A list of names (``class_names``, ``bio_class_names``, ``filenames``) holds strings: GeoLayoutLM's
# ``bio_class_names[bio_labels[i].item()] != "O"`` (holdout122; R71).
_SYMBOL_TABLE = re.compile(
    r"^(?:itos|(?:[a-z]+_)?(?:id|idx|index|ix|i|int|num|label|lbl)(?:2|_to_)(?:answer|ans|label|lbl|word|token|tok|char|"
    r"name|class|cls|tag|text|str|string|entity|ent|relation|rel|category|cat|type|vocab)s?|\w*names)$", re.I)


# The Hugging Face tokenizer methods that take ids or tokens (PreTrainedTokenizerBase).
_TOKENIZER_METHODS = frozenset((
    "convert_ids_to_tokens", "convert_tokens_to_ids", "convert_tokens_to_string", "get_special_tokens_mask",
    "build_inputs_with_special_tokens", "create_token_type_ids_from_sequences", "pad", "prepare_for_model",
    "truncate_sequences",
))


def _names_a_symbol_table(name: Optional[str]) -> bool:
    return name is not None and _SYMBOL_TABLE.match(name) is not None


def _without_cuda(ctx) -> bool:
    """In a branch that runs only when CUDA is not available (the ``else`` of ``if
    torch.cuda.is_available():``, the body of ``if not torch.cuda.is_available():``): no CUDA
    tensor exists there to wait for (LIBERO's ``safe_device`` fallback, holdout44)."""
    stack = ctx.stack
    for index, node in enumerate(stack[:-1]):
        if not isinstance(node, cst.If):
            continue
        branch = stack[index + 1]
        test, negated = node.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        if not (isinstance(test, cst.Call) and ctx.qualname(test.func) == "torch.cuda.is_available"):
            continue
        if (negated and branch is node.body) or (not negated and node.orelse is not None and branch is node.orelse):
            return True
    return False


def _takes_loaders(loop) -> bool:
    """``for name, val_loader in val_loaders.items():`` (ClipBERT's validation, holdout42): each
    time round takes a loader, whose own loop inside takes the batches; it runs once per loader."""
    if not isinstance(loop, cst.For):
        return False
    iterated = loop.iter
    while isinstance(iterated, cst.Call) and iterated.args and isinstance(iterated.func, cst.Name) \
            and iterated.func.value in ("enumerate", "sorted", "list"):
        iterated = iterated.args[0].value
    iterated = _dict_of_items(iterated) or iterated
    name = last_identifier(iterated)
    return name is not None and name.lower().endswith("loaders")


def _in_failure_handler(stack) -> bool:
    """Is the current node in an ``except`` handler of the step (boltz's ``except RuntimeError``
    around a validation step that runs out of memory: the handler logs the batch id and skips it)?
    It runs when the step failed, not every step (rules.md: a step body is code run once per step;
    TPL103 excepts the out-of-memory handler for the same reason), or in the message of an
    ``assert`` (built only when the assertion fails). A loop inside the handler is its own loop."""
    for index in range(len(stack) - 2, -1, -1):
        node = stack[index]
        if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
            return True
        if isinstance(node, cst.Assert) and node.msg is not None and stack[index + 1] is node.msg:
            # ``assert ok, f"numeric: {numeric.item()}"``: the message is built only once the
            # assertion has failed, which then raises (nequip's finite-difference checks)
            return True
        if isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
    return False


_NUMBER_WRAPPERS = frozenset(("round", "float", "int"))
# Calls that turn autograd back on inside a function decorated to turn it off.
_GRAD_ON_CALLS = frozenset(("enable_grad", "set_grad_enabled", "inference_mode"))


def _through_number_wrappers(path, index: int) -> int:
    """The index of ``round(x, 5)``/``float(x)``/``int(x)`` around ``path[index]``, outermost."""
    while (index >= 2 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
           and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in _NUMBER_WRAPPERS
           and path[index - 2].args and path[index - 2].args[0] is path[index - 1]):
        index -= 2
    return index


def _stored_as_data(path, scope, above) -> bool:
    """Is the record at the end of ``path`` stored as data (appended, put into a container:
    value_uses.kept_as_data), directly or through the name it is bound to? Not merely returned: a
    helper's ``return rows, pred.max().item()`` hands a metric back."""
    if kept_as_data(path):
        return True
    found = assigned_name(path)
    if found is None:
        return False
    name, statement, _ = found
    return any(kept_as_data(use) for use in name_uses(scope.body, name, above, statement, [False], reaching=[False]))


def _is_item_number(expr) -> bool:
    found = method_call(expr) if isinstance(expr, cst.Call) else None
    if found is None and isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and (
            expr.func.value in _NUMBER_WRAPPERS and expr.args):
        return _is_item_number(expr.args[0].value)
    return found is not None and found[1] == "item"


# A record's field that names an id (``"image_id"``, ``"id"``, ``"question_ids"``): what it holds
# identifies a prediction, it measures nothing.
_ID_KEY = re.compile(r"(?:^|_)ids?$", re.I)


def _stored_as_id_field(path, index: int) -> bool:
    """Is ``path[index]`` the whole value of an assignment into a record's field whose key, a
    written string, names an id (``res_pano[i]["image_id"] = image_id``)? DETR's panoptic
    evaluation (and the dozen detectors built on it, holdout131/135) keeps the image's id with each
    prediction that way, for the evaluator's JSON: a kept prediction field, as R44.3's displays
    are (R92)."""
    statement = path[index - 1] if index >= 1 else None
    if not (isinstance(statement, cst.Assign) and statement.value is path[index] and len(statement.targets) == 1):
        return False
    target = statement.targets[0].target
    if not (isinstance(target, cst.Subscript) and len(target.slice) == 1
            and isinstance(target.slice[0].slice, cst.Index)):
        return False
    key = target.slice[0].slice.value
    text = key.evaluated_value if isinstance(key, cst.SimpleString) else None
    return isinstance(text, str) and _ID_KEY.search(text) is not None


def _lambda_handed_models(receiver: cst.BaseExpression, stack) -> bool:
    """Is ``receiver`` the parameter of a one-parameter lambda bound to a name (``fn = lambda x:
    x.cpu()``) that every call of that name in the function around it hands a model (``a.model =
    fn(a.model)``, ``fn(self.critic)``)? Then the lambda moves modules: seac's ``prep_rollouts``
    (holdout178; R156)."""
    if not isinstance(receiver, cst.Name):
        return False
    at = next((i for i in range(len(stack) - 1, -1, -1) if isinstance(stack[i], (cst.Lambda, cst.FunctionDef))), None)
    if at is None or at < 1 or not isinstance(stack[at], cst.Lambda):
        return False
    function, binding = stack[at], stack[at - 1]
    params = function.params
    if (len(params.params) != 1 or params.posonly_params or params.kwonly_params or params.star_kwarg
            or not isinstance(params.star_arg, cst.MaybeSentinel) or params.params[0].name.value != receiver.value):
        return False
    if not (isinstance(binding, cst.Assign) and binding.value is function and len(binding.targets) == 1
            and isinstance(binding.targets[0].target, cst.Name)):
        return False
    name = binding.targets[0].target.value
    scope = next((n for n in reversed(stack[:at]) if isinstance(n, cst.FunctionDef)), None)
    if scope is None:
        return False
    calls = [n for n in descendants(scope.body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.ClassDef)))
             if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name]
    return bool(calls) and all(len(c.args) == 1 and not c.args[0].star and not c.args[0].keyword
                               and is_model_name(last_identifier(c.args[0].value)) for c in calls)


_SPLITS = frozenset(("torch.split", "torch.chunk", "torch.unbind", "torch.tensor_split"))


def _numpy_of_item(path, index: int) -> bool:
    """Is ``path[index]`` (through one subscript) the receiver of ``.numpy()``?"""
    if index >= 2 and isinstance(path[index - 1], cst.Subscript) and path[index - 1].value is path[index]:
        index -= 1
    return (index >= 2 and isinstance(path[index - 1], cst.Attribute) and path[index - 1].value is path[index]
            and path[index - 1].attr.value == "numpy" and isinstance(path[index - 2], cst.Call))


def _split_of(path, ctx):
    """(the name, the statement) that ``name = [list|tuple](torch.split(<the last node>, ...))`` binds
    (also ``chunk``, ``unbind``, ``tensor_split``); None otherwise."""
    index = len(path) - 1
    if not (index >= 3 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
            and path[index - 2].args and path[index - 2].args[0] is path[index - 1]
            and ctx.qualname(path[index - 2].func) in _SPLITS):
        return None
    index -= 2
    if (index >= 3 and isinstance(path[index - 1], cst.Arg) and isinstance(path[index - 2], cst.Call)
            and isinstance(path[index - 2].func, cst.Name) and path[index - 2].func.value in ("list", "tuple")):
        index -= 2
    statement = path[index - 1]
    if (isinstance(statement, cst.Assign) and statement.value is path[index] and len(statement.targets) == 1
            and isinstance(statement.targets[0].target, cst.Name)):
        return statement.targets[0].target.value, statement
    return None


def _collects_enumerate_indices(stack, test: cst.CompIf) -> bool:
    """Is ``test`` the filter of a list or set comprehension that collects the indices ``enumerate``
    hands out (``[ind for ind, next_word in enumerate(next_word_inds) if next_word != end]``)? In code
    that trains nothing this is a beam search choosing which beams go on: Python lists of indices
    the host needs to pick beams and to stop (R194; the judges of holdout75 and the labellers of
    holdout220 read it as host-needed decoding)."""
    if len(stack) < 3:
        return False
    comp_for, comprehension = stack[-2], stack[-3]
    if not (isinstance(comp_for, cst.CompFor) and test in comp_for.ifs
            and isinstance(comprehension, (cst.ListComp, cst.SetComp)) and comprehension.for_in is comp_for
            and isinstance(comprehension.elt, cst.Name)):
        return False
    iterated, target = comp_for.iter, comp_for.target
    return (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "enumerate"
            and isinstance(target, cst.Tuple) and len(target.elements) == 2
            and isinstance(target.elements[0].value, cst.Name)
            and target.elements[0].value.value == comprehension.elt.value)


def _in_tuple_tested_for_membership(path) -> bool:
    """Is the last node of ``path`` (also with a number added or taken: ``h + 1``) an element of a
    tuple display tested with ``in``/``not in`` (``if (h + 1, t + 1) in path_t:``)? A tensor does
    not answer ``in`` for a tuple (``Tensor.__contains__`` takes a tensor or a number): what is
    asked is a Python dict or set, which hashes the key on the host (R31; GAIN's entity-pair
    paths, holdout217; R185)."""
    index = len(path) - 1
    while index >= 2 and isinstance(path[index - 1], cst.BinaryOperation) and isinstance(
            path[index - 1].operator, (cst.Add, cst.Subtract)) and isinstance(
            path[index - 1].right if path[index - 1].left is path[index] else path[index - 1].left,
            (cst.Integer, cst.Float)):
        index -= 1
    if index < 3 or not (isinstance(path[index - 1], cst.Element) and isinstance(path[index - 2], cst.Tuple)):
        return False
    comparison = path[index - 3]
    return (isinstance(comparison, cst.Comparison) and comparison.left is path[index - 2]
            and any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in comparison.comparisons))


def _tested_among_keys(path, index: int) -> bool:
    """Is ``path[index]`` the left operand of ``in``/``not in`` whose right side is a mapping's keys
    (``x.item() not in self.trackers.keys()``)? A tensor has no ``keys()``: the mapping is Python's,
    and hashing the key needs it on the host, as a lookup does (R31; HAPT's and Mask4D's
    per-instance tables, holdout179; R159)."""
    if index < 2 or not isinstance(path[index - 1], cst.Comparison):
        return False
    comparison = path[index - 1]
    if comparison.left is not path[index] or len(comparison.comparisons) != 1:
        return False
    target = comparison.comparisons[0]
    keys = target.comparator
    return (isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(keys, cst.Call) and not keys.args
            and isinstance(keys.func, cst.Attribute) and keys.func.attr.value == "keys")


def _record_holding(path, index: int) -> Optional[int]:
    """The index of the tuple, list or dict display of two or more elements, not all of them
    ``.item()`` numbers or written-out names and constants, that holds ``path[index]`` as one
    element's value; None otherwise."""
    if index < 2:
        return None
    parent, holder = path[index - 1], path[index - 2]
    if isinstance(parent, cst.Element) and isinstance(holder, (cst.Tuple, cst.List)):
        values = [e.value for e in holder.elements]
    elif isinstance(parent, cst.DictElement) and parent.value is path[index] and isinstance(holder, cst.Dict):
        values = [e.value for e in holder.elements if isinstance(e, cst.DictElement)]
    elif (isinstance(parent, cst.Arg) and parent.keyword is not None and isinstance(holder, cst.Call)
          and isinstance(holder.func, cst.Name) and holder.func.value == "dict"
          and all(a.keyword is not None for a in holder.args)):
        values = [a.value for a in holder.args]  # ``dict(image_id=image_id, pred_boxes=b)`` (R156)
    else:
        return None
    if len(values) < 2 or all(_is_item_number(v) or _is_label_or_literal(v) for v in values):
        return None  # numbers read from tensors, with names (``("loss", l.item())``): a metric
    return index - 2


# Names of what a pass measures rather than predicts: a record's field under such a key is a
# metric (SALMONN's ``{"id": ..., "loss": loss.item(), "acc": ...}`` summed after the loop, R22).
_METRIC_WORD = re.compile(r"loss|acc|correct|err|ppl|perplex|(?:^|_)(?:f1|mse|mae|psnr|ssim|bleu|rouge|auc|"
                          r"precision|recall|metric|total|sum|count|num|n)(?:_|$)", re.I)


# Methods and attributes that hand back the same values (``loss.detach().clone().data``).
_SAME_VALUES = frozenset(("detach", "clone", "data", "float", "double", "contiguous", "squeeze", "cpu"))


def _under_copy_methods(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``loss_c.clone().detach()`` -> ``loss_c``: what a chain of value-keeping methods reads."""
    while True:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _SAME_VALUES:
            expr = expr.func.value
        elif isinstance(expr, cst.Attribute) and expr.attr.value in _SAME_VALUES:
            expr = expr.value
        else:
            return expr


def _value_name(expr: cst.BaseExpression) -> Optional[str]:
    """The name a value goes by: ``self.loss`` -> ``loss``; an item of a record by its string key
    (``batch["errs"][mask]`` -> ``errs``), else by the container's name (``preds[i]`` -> ``preds``)."""
    while isinstance(expr, cst.Subscript):
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        key = index.value if isinstance(index, cst.Index) else None
        if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
            return key.evaluated_value
        expr = expr.value
    return last_identifier(expr)


def _tested(path) -> bool:
    """Is the value of the last node of ``path``, through methods, attributes, items of it and
    arithmetic with it, compared or tested (``t.cpu().numpy()[0] < bound``, ``if flag.cpu().numpy():``)?"""
    index = climb(path, subscripts=True, items=False)
    if index < 1:
        return False
    parent = path[index - 1]
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
        return True
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return True
    return isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is path[index]


def _methods_applied(path) -> list:
    """The attributes read from the last node of ``path`` and from what they give back, in order
    (``t.cpu().data.numpy().tolist()`` at ``t.cpu()`` -> ``["data", "numpy", "tolist"]``)."""
    names = []
    index = len(path) - 1
    while index >= 1:
        parent = path[index - 1]
        if isinstance(parent, cst.Attribute) and parent.value is path[index]:
            names.append(parent.attr.value)
        elif not (isinstance(parent, cst.Call) and parent.func is path[index]):
            break
        index -= 1
    return names


def _names_a_metric(path, index: int) -> bool:
    """Is ``path[index]`` a dict record's value under a key named as a metric (``"loss"``)?"""
    parent = path[index - 1] if index >= 1 else None
    if isinstance(parent, cst.DictElement) and parent.value is path[index]:
        key = parent.key
        text = key.evaluated_value if isinstance(key, cst.SimpleString) else None
        return isinstance(text, str) and _METRIC_WORD.search(text) is not None
    return False


_HOST_READS = frozenset(("cpu", "numpy", "tolist", "item"))


def _copies_a_metric(copy) -> bool:
    """Is ``copy`` (``X.cpu()``) a copy of a value named as a metric (``psnr_val.cpu()``)?"""
    found = method_call(copy) if isinstance(copy, cst.Call) else None
    if found is None or not isinstance(found[0], (cst.Name, cst.Attribute, cst.Subscript)):
        return False
    named = _value_name(found[0])
    return named is not None and _METRIC_WORD.search(named) is not None


def _item_of_a_metric_dict(path, name: str) -> bool:
    """Is ``name`` bound by a ``for`` around the end of ``path`` over the items or values of a dict
    named as a metric's (``for key, values in losses.items():``, guided-diffusion's ``log_loss_dict``
    and its copies in five held-out sets, holdout208; R181)? Its values are the metric's."""
    for node in reversed(path):
        if not isinstance(node, cst.For) or name not in assigned_names(node.target):
            continue
        owner = _dict_of_items(node.iter)
        named = _value_name(owner) if owner is not None else None
        return named is not None and _METRIC_WORD.search(named) is not None  # (the nearest such loop decides)
    return False


def _dict_of_items(iterable) -> Optional[cst.BaseExpression]:
    """``d`` of ``d.items()`` or ``d.values()``, else None."""
    if (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value in ("items", "values") and not iterable.args):
        return iterable.func.value
    return None


def _copies_a_reduction(copy) -> bool:
    """Is ``copy`` (``X.cpu()``) a copy of a whole reduction (``hits.mean().cpu()``)?"""
    found = method_call(copy) if isinstance(copy, cst.Call) else None
    if found is None:
        return False
    receiver = found[0]
    return (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute)
            and receiver.func.attr.value in _WHOLE_REDUCTIONS and not receiver.args)


def _picked_for_the_host(body, path, scope) -> bool:
    """Is the subscript that the index at the end of ``path`` sits in bound to names (``chosen =
    types[valid]``, ``x = torch.cat((box[i], ...))``) of which a later use is read on the host
    (``chosen[i].item()``, ``x.cpu()``)?"""
    statement = next((n for n in reversed(path) if isinstance(n, cst.Assign)), None)
    if statement is None:
        return False
    names = [n for t in statement.targets for n in assigned_names(t.target)]
    for name in names:
        for use in name_uses(body, name, [scope], statement, [False], reaching=[False]):
            index = len(use) - 1
            while index >= 2 and ((isinstance(use[index - 1], cst.Subscript) and use[index - 1].value is use[index])
                                  or (isinstance(use[index - 1], cst.Attribute) and use[index - 1].value is use[index]
                                      and use[index - 1].attr.value not in _HOST_READS)
                                  or (isinstance(use[index - 1], cst.Call) and use[index - 1].func is use[index])):
                index -= 1
            parent = use[index - 1] if index >= 1 else None
            if isinstance(parent, cst.Attribute) and parent.value is use[index] and parent.attr.value in _HOST_READS:
                return True
    return False


# Methods that show or log what they are handed: ``logger.info``, ``writer.add_scalar``, ``self.log``.
_LOGGING_CALL = re.compile(r"^(?:log|info|debug|warning|print|add_|update|set_postfix|write)", re.I)


def _enclosing_scope(stack):
    """(what to walk, the nodes above it) for the uses of a name bound at the end of ``stack``: the
    body of the function around it, or the module itself (a module's ``body`` is a tuple of
    statements); None without either."""
    scope = next((n for n in reversed(stack[:-1]) if isinstance(n, cst.FunctionDef)),
                 stack[0] if stack and isinstance(stack[0], cst.Module) else None)
    if scope is None:
        return None
    return (scope.body, [scope]) if isinstance(scope, cst.FunctionDef) else (scope, [])


def _warned(path) -> bool:
    """Is the last node of ``path`` formatted into the message of a warning or a log call
    (``warnings.warn(f"... {x}")``, ``logger.warning("%s", x)``)?"""
    for node in reversed(path[:-1]):
        if isinstance(node, cst.Call):
            func = node.func
            name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            return name in ("warn", "warning", "error", "info", "debug", "critical", "print")
    return False


def _handed_as_id(path, is_builtin) -> bool:
    """Is the last node of ``path`` an argument of a method or function call that neither keeps
    nor shows it (``reader.get_entity_type(idx)``; not ``out.append(idx)``, ``print(idx)``)?"""
    if len(path) < 3 or not (isinstance(path[-2], cst.Arg) and isinstance(path[-3], cst.Call)):
        return False
    func = path[-3].func
    if isinstance(func, cst.Name) and func.value == "str":
        return names_a_file(path[:-2])  # ``torch.load(str(image_id) + '.pt')`` (R156)
    if isinstance(func, cst.Name):
        return not is_builtin(func.value)
    return isinstance(func, cst.Attribute) and func.attr.value not in KEEPING_METHODS and not (
        _LOGGING_CALL.search(func.attr.value))




def _is_label_or_literal(expr) -> bool:
    """A string or number written out (``"psnr"``, ``f"{name}_loss"``, ``0``): the name or a constant of
    a logged pair, not a field a prediction carries."""
    return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float))


def _forces_copy(call: cst.Call) -> bool:
    """``t.numpy(force=True)`` (torch 1.13+) copies a device tensor to the host first: a sync. A
    bare ``t.numpy()`` raises on a device tensor ("can't convert cuda:0 device type tensor to
    numpy"), so the tensor it reads is on the host and nothing waits: the copy, if any, is the
    ``.cpu()`` before it, reported by itself (rules.md "Where a value lives": the receiver of a
    bare ``.numpy()`` is known to live on the host, unless value flow shows the code moved it to
    the device). ``force=flag`` with a value the linter cannot see is no copy it can show."""
    return any(a.keyword is not None and a.keyword.value == "force"
               and isinstance(a.value, cst.Name) and a.value.value == "True" for a in call.args)


def _calls_a_scaler(func) -> bool:
    """``self.scaler(reward)``, ``scaler(x)``: the scaler object called, not a method of it."""
    name = last_identifier(func)
    return (name is not None and "scaler" in name.lower() and OPTIMIZER_WORD.search(name.lower().replace("scaler", "")) is None
            and not (isinstance(func, cst.Attribute) and _names_optimizer(func.value)))


# scikit-learn's scaler methods: a data scaler (``SCALER.inverse_transform(out_batch)``: STAEformer's
# prediction loop, holdout228; R201), not a gradient scaler, whose methods are scale/step/update
_DATA_SCALER_METHODS = frozenset(("transform", "inverse_transform", "fit", "fit_transform", "partial_fit"))


def _transforms_data(func) -> bool:
    """``scaler.inverse_transform(x)``: a method only a data scaler has."""
    return isinstance(func, cst.Attribute) and func.attr.value in _DATA_SCALER_METHODS


def _clears_gradients(func) -> bool:
    """``optimizer.zero_grad`` (``set_to_none`` or not): the gradients cleared, no update run."""
    return isinstance(func, cst.Attribute) and func.attr.value == "zero_grad"


def _names_optimizer(expr) -> bool:
    """``optimizer``, ``self.opt``, ``loss_scaler``, the receiver of ``optimizer.zero_grad``: an
    optimizer or a gradient scaler (a scheduler is neither)."""
    name = last_identifier(expr.value) if isinstance(expr, cst.Attribute) and isinstance(
        expr.value, (cst.Name, cst.Attribute)) else last_identifier(expr)
    names = [name, last_identifier(expr)] if isinstance(expr, cst.Attribute) else [name]
    return any(n is not None and OPTIMIZER_WORD.search(n) is not None and "sched" not in n.lower() for n in names)


def _host_only(facts) -> bool:
    """A script that names no device and shares no values with the rest of its project: every
    tensor it makes is on the CPU (host_only.host_only_script). Asked only in step bodies, which
    used to be silent in such scripts (the step loops' own findings there keep their verdicts).
    Worked out once per file."""
    known = getattr(facts, "tpl102_host_only", None)
    if known is None:
        lines = getattr(facts, "source_lines", None)
        known = facts.tpl102_host_only = lines is not None and host_only_script(
            lines, getattr(facts, "step_bodies", None))
    return known


# Devices whose missing kernels send work back to the host (torchvision's NMS on MPS, XLA).
_FALLBACK_DEVICES = frozenset(("mps", "xla"))


def _names_device_type(test: cst.BaseExpression) -> bool:
    """``"mps" in x.device.type``, ``device.type == "mps"``, ``x.is_mps``: a test that a value is on
    a device other than CUDA (``!= "cpu"`` holds on CUDA too: no fallback)."""
    for node in descendants(test):
        if isinstance(node, cst.Attribute) and node.attr.value in ("is_mps", "is_xla"):
            return True
        if isinstance(node, cst.Comparison) and all(isinstance(c.operator, (cst.Equal, cst.In))
                                                   for c in node.comparisons):
            parts = [node.left, *(c.comparator for c in node.comparisons)]
            names_type = any(isinstance(p, cst.Attribute) and p.attr.value == "type" for p in parts)
            names_device = any(isinstance(p, cst.SimpleString) and p.evaluated_value in _FALLBACK_DEVICES
                               for p in parts)
            if names_type and names_device:
                return True
    return False


def _asks_for_the_host(test: cst.BaseExpression) -> bool:
    """``device == "cpu"``, ``str(args.device) == 'cpu'``, ``x.device.type == "cpu"``: a test that
    the device the code was asked for (a name or attribute that says ``device``) is the host."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 or \
            not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    left, right = test.left, test.comparisons[0].comparator
    if isinstance(left, cst.SimpleString):
        left, right = right, left
    if not (isinstance(right, cst.SimpleString) and right.evaluated_value == "cpu"):
        return False
    if isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "str" \
            and len(left.args) == 1:
        left = left.args[0].value
    if isinstance(left, cst.Attribute) and left.attr.value == "type":
        left = left.value
    name = left.attr.value if isinstance(left, cst.Attribute) else left.value if isinstance(left, cst.Name) else ""
    return "device" in name.lower()


def _stops_by_break_or_return(body) -> bool:
    """Does the branch end the loop by ``break`` or ``return`` (a stop decision; ``raise`` is an
    error check: ``if out.dim() != 4: raise ValueError(...)`` does not make ``out`` a stop value)?"""
    statements = getattr(body, "body", ())
    last = statements[-1] if isinstance(statements, (list, tuple)) and statements else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Break, cst.Return))


def _converts_to_host(value: cst.BaseExpression) -> bool:
    """``t.cpu().numpy()``, ``x.tolist()``: the assigned value is a numpy array or a list."""
    found = method_call(value)
    return found is not None and found[1] in ("numpy", "tolist")


def _copied(expr: cst.BaseExpression, ctx) -> cst.BaseExpression:
    """``copy.deepcopy(model)`` -> ``model``: a copy is the same kind of object."""
    while isinstance(expr, cst.Call) and expr.args and ctx.qualname(expr.func) in ("copy.deepcopy", "copy.copy"):
        expr = expr.args[0].value
    return expr


_NUMBER_TYPES = frozenset(("float", "int", "Number", "Real", "Integral"))


def _isinstance_types(test: cst.BaseExpression, name: str, ctx) -> list:
    """The qualified names ``test`` checks ``name`` against with ``isinstance(name, ...)``."""
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"):
        return []
    args = test.args
    if len(args) != 2 or not isinstance(args[0].value, cst.Name) or args[0].value.value != name:
        return []
    kinds = args[1].value
    elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    return [q for q in (ctx.qualname(e) for e in elements) if q]


def _shows_tensor(value: cst.BaseExpression, ctx) -> bool:
    """``print(t)``, ``print(f"{t:.3f}")`` or ``print("%d %.8f" % (step, t))``: formatting a tensor
    reads its values."""
    return bool(_shown_tensors(value, ctx))


def _shown_tensors(value: cst.BaseExpression, ctx) -> list:
    """The device tensors ``print(value)``, the f-string ``value`` or the %-formatting ``value``
    reads (UGATIT's ``print("[%5d/%5d] ... d_loss: %.8f" % (step, ..., Discriminator_loss))``,
    holdout114: the items of the tuple are formatted, each tensor read)."""
    if isinstance(value, cst.FormattedString):
        return [part.expression for part in value.parts
                if isinstance(part, cst.FormattedStringExpression) and _formats_device_tensor(part.expression, ctx)]
    if (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo)
            and is_string_literal(value.left) and isinstance(value.right, (cst.Tuple, cst.List))):
        return [e.value for e in value.right.elements if _formats_device_tensor(e.value, ctx)]
    return [value] if _formats_device_tensor(value, ctx) else []


def _formats_device_tensor(expr: cst.BaseExpression, ctx) -> bool:
    """A device tensor whose text is its values; not a model moved to the device
    (``downstream_model = make_model(...).to(device)``: an ``nn.Module``'s repr lists its layers and
    reads no tensor), named as models are or bound to one built in the module."""
    if isinstance(expr, cst.Name) and (is_model_name(expr.value) or expr.value in ctx.steps.objects):
        return False
    return ctx.is_device_tensor(expr)


def _holds_device_tensor(expr: cst.BaseExpression, ctx) -> bool:
    """A device tensor, or a tuple or list written with one (``max(a, b)``, ``"%g %g" % (a, b)``),
    also unpacked into it (``"%g %g %g" % (*mloss,)``: each item is a tensor of the device)."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        return any(ctx.is_device_tensor(e.value) for e in expr.elements)
    return ctx.is_device_tensor(expr)


def _printed_at(call: cst.Call, args, ctx) -> cst.CSTNode:
    """Where ``print(...)`` of a tensor is reported: the call, or the first argument that shows a
    tensor when that argument starts on a line of its own (``print(\n    f"... loss = {loss}"\n)``,
    as black writes a long one: the line that formats the tensor, where a reader and a ``# noqa``
    look)."""
    before = call.whitespace_before_args
    for arg in args:
        if _shows_tensor(arg.value, ctx):
            return arg.value if isinstance(before, cst.ParenthesizedWhitespace) else call
        comma = arg.comma
        before = comma.whitespace_after if isinstance(comma, cst.Comma) else None
    return call


# Names of Python sets a value is added to (``self.visited_ids.add(ids)``, ``seen.add(key)``).
_SET_NAME = re.compile(r"(?:^|_)(?:ids|seen|visited|keys|set|names|done)$|_set$|^seen_|^visited_", re.I)


def _is_print_argument(ctx) -> bool:
    """Is the current node an argument of a call of the builtin ``print`` (reported as printing)?"""
    arg, call = ctx.parent(1), ctx.parent(2)
    return (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
            and call.func.value == "print" and ctx.is_builtin("print"))


def _accumulates(statement, name: str) -> bool:
    """Is ``statement`` a running total of ``name``: ``name += ...`` or ``name = name + ...``?"""
    if isinstance(statement, cst.AugAssign):
        return True
    if isinstance(statement, cst.Assign):
        return any(isinstance(n, cst.Name) and n.value == name for n in descendants(statement.value))
    return False


# Methods only a numpy array has (a tensor has none of them).
_NUMPY_ONLY_METHODS = frozenset(("astype", "tofile", "tobytes", "ptp"))
# ... and those of scipy's sparse matrices too: the result of an index read with one is a host array.
_HOST_ARRAY_ONLY_METHODS = _NUMPY_ONLY_METHODS | frozenset(("toarray", "todense", "tocsr", "tocoo", "tolil"))


def _under_interval_in(path, loop: cst.CSTNode, names: FrozenSet[str] = frozenset()) -> bool:
    """Does ``path`` (root to a use) run through the body of an ``if`` on an interval
    (``step % n == 0``, or a name of ``names`` holding one: ``if val_cond:``) inside ``loop``?"""
    inside = False
    for index, node in enumerate(path[:-1]):
        if node is loop:
            inside = True
        elif (inside and isinstance(node, cst.If) and path[index + 1] is node.body
              and tests_interval(node.test, frozenset(), names)):
            return True
    return False


def _tested_name(test: cst.BaseExpression):
    """The one name a test reads, alone or compared with numbers (``n``, ``not n``, ``n > 0``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if isinstance(test, cst.Comparison) and all(
            isinstance(c.comparator, (cst.Integer, cst.Float, cst.Name, cst.Attribute)) for c in test.comparisons):
        test = test.left  # (``local_size != max_size``: compared with another name, OpenPCDet)
    return test.value if isinstance(test, cst.Name) else None


def _iterated(path) -> bool:
    """Is the last node of ``path`` what a Python ``for`` loop iterates (``for j in finished_hyp:``,
    beam search's finished candidates)? The loop runs once per row: the host needs the count."""
    parent = path[-2] if len(path) >= 2 else None
    return isinstance(parent, cst.For) and parent.iter is path[-1]


def _reads_size(path) -> bool:
    """Is the last node of ``path`` read only for its size: ``x.shape``, ``x.numel()``, ``len(x)``?"""
    parent = path[-2] if len(path) >= 2 else None
    if isinstance(parent, cst.Attribute) and parent.value is path[-1] and parent.attr.value in _SIZE_READS:
        return True
    return (len(path) >= 3 and isinstance(parent, cst.Arg) and isinstance(path[-3], cst.Call)
            and isinstance(path[-3].func, cst.Name) and path[-3].func.value == "len")


def _item_reads_size(path) -> bool:
    """``stmps = (seq == tok).nonzero(as_tuple=True)`` then ``len(stmps[0])``: one tensor of the
    tuple, taken by a literal index, read for its size (rlhf-length-biases' ``get_starts``)."""
    return (len(path) >= 3 and isinstance(path[-2], cst.Subscript) and path[-2].value is path[-1]
            and len(path[-2].slice) == 1 and isinstance(path[-2].slice[0].slice, cst.Index)
            and isinstance(path[-2].slice[0].slice.value, cst.Integer) and _reads_size(path[:-1]))


def _reported_test(statement) -> cst.CSTNode:
    """Where an ``if``/``while`` statement's truth test is reported: the test, or the statement
    when the test is a parenthesised block that opens on the statement's line (``if (`` then one
    operand per line, as black writes a long test): the line a reader and a ``# noqa`` look at."""
    test = statement.test
    if test.lpar and isinstance(test.lpar[0].whitespace_after, cst.ParenthesizedWhitespace):
        return statement
    return test


def _truth_tests_tensor(test: cst.BaseExpression, ctx) -> bool:
    """``if t:``, ``if not t:``, ``if a and t:`` all call ``bool()`` on the tensor."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _truth_tests_tensor(test.expression, ctx)
    if isinstance(test, cst.BooleanOperation):
        return _truth_tests_tensor(test.left, ctx) or _truth_tests_tensor(test.right, ctx)
    if isinstance(test, cst.Attribute) and _FLAG_ATTRIBUTE.match(test.attr.value):
        # ``if batch.has_atoms:``, ``if output.has_target:``, ``if x.is_cuda:``: a property named as
        # a yes/no answer is a Python bool (a tensor's own ``is_*`` properties are), not a tensor
        return False
    if isinstance(test, cst.Name) and test.value in _names_bound_to_containers(
            ctx.frame.node, ctx.facts.derived("tpl102_container_names", lambda tree, table: {})):
        return False  # ``if output_dict:`` of a dict (or None) a model hands back with its loss
    if (isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value in ("any", "all")
            and not any(a.keyword is None and not isinstance(a.value, cst.Integer) for a in test.args)):
        # ``if (x["lengths"] < x["lengths"].max()).any():``: only a tensor or an array has ``.any()``;
        # one not known to be on the host counts as possibly on the device (rules.md "Where a value
        # lives"), as for ``.item()`` (pytorch-forecasting's ``BaseModel.step``)
        return ctx.is_device_tensor(test) or not ctx.is_host_value(test.func.value)
    if (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and not isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn))
            and (_reduction_of_unknown(test.left, ctx) or _reduction_of_unknown(test.comparisons[0].comparator, ctx))):
        # ``if mask.sum() == 0:``, ``if x.min() < 0``: a reduction of the whole value, which only a
        # tensor or an array has; one not known to be on the host counts as possibly on the device
        # (rules.md "Where a value lives"), as for ``.any()`` above (mile's ``SpatialRegressionLoss``)
        return True
    return ctx.is_device_tensor(test)


# Attributes named as a yes/no answer (``has_target``, ``is_sparse``): Python bools.
_FLAG_ATTRIBUTE = re.compile(r"(?:has|is)_[a-z]")

# Reductions of a whole tensor to one element: Python lists, dicts and strings have none of them.
_WHOLE_REDUCTIONS = frozenset(("sum", "max", "min", "mean", "prod", "amax", "amin", "count_nonzero"))


def _reduction_of_unknown(expr: cst.BaseExpression, ctx) -> bool:
    """``x.sum()`` (no dimension named) of an ``x`` not known to be on the host."""
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in _WHOLE_REDUCTIONS and not expr.args
            and not ctx.is_host_value(expr.func.value) and not ctx.is_host_value(expr))


def _names_bound_to_containers(function: cst.CSTNode, memo: dict) -> frozenset:
    """The names a function binds to a Python dict or list display somewhere (``output_dict = {}``),
    or stores under a string key (``output_dict[f"weight_{k}"] = v``): such a name holds a
    container whose truth is its length, whatever else value flow guesses for it."""
    known = memo.get(id(function))  # id of a function -> (the function, its names), per file
    if known is not None and known[0] is function:
        return known[1]
    names = set()
    body = getattr(function, "body", None)
    for node in (descendants(body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)))
                 if isinstance(function, cst.FunctionDef) else ()):
        if not isinstance(node, cst.Assign):
            continue
        for target in node.targets:
            if isinstance(target.target, cst.Name) and isinstance(node.value, (cst.Dict, cst.List)):
                names.add(target.target.value)
            elif (isinstance(target.target, cst.Subscript) and isinstance(target.target.value, cst.Name)
                  and len(target.target.slice) == 1 and isinstance(target.target.slice[0].slice, cst.Index)
                  and isinstance(target.target.slice[0].slice.value,
                                 (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))):
                names.add(target.target.value.value)
    found = frozenset(names)
    memo[id(function)] = (function, found)
    return found


RULE = HostSyncInLoop
RULE.VALID = (
    """
import torch
def train(model, optimizer, loader, logger, epochs):
    for epoch in range(epochs):
        weights = model.class_weights.cpu().numpy()     # once per epoch
        for x, y in loader:
            model(x.cuda()).sum().backward()
            optimizer.step()
        logger.log_model(epoch)                         # a logger's method, not a model call
""",
    """
import torch
def evaluate(model, data_loader, metric_logger, device):
    for image, question_id in metric_logger.log_every(data_loader, 50, "eval"):   # loader batches
        answers = model(image.to(device, non_blocking=True))
        for answer, qid in zip(answers, question_id):
            results.append((int(qid.item()), answer))  # question_id was never moved
""",
    """
import torch
class Engine:
    def parse_data(self, data):
        return data["img"], data["pid"]
    def extract(self, model, data_loader):
        pids_all = []
        for data in data_loader:
            imgs, pids = self.parse_data(data)          # parts of a host batch
            model(imgs.cuda()).sum().backward()
            pids_all.extend(pids.tolist())
""",
    """
import copy
from copy import deepcopy
import torch
def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
        snapshot = copy.deepcopy(model).cpu()           # a copy of the model, moved: no value read
        frozen = deepcopy(model.module).cpu()
""",
    """
import torch
def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        running = torch.zeros((), device="cuda")
        for step, (x, y) in enumerate(loader):
            loss = model(x, y)
            loss.backward()
            optimizer.step()
            running += loss.detach()
            if step % 100 == 0:
                print(f"step {step}: {loss.item():.4f}")   # every N steps: the remedy
        print("epoch", epoch, running.item())             # once per epoch
    return running.cpu()                                  # after the loop
""",
    """
import numpy as np
import torch
for name, value in config.items():                # dict.items(), not Tensor.item()
    print(name, value)
for row in np.arange(10):
    values = np.ones(3)
    print(values.tolist())                        # numpy, not a tensor
    print(torch.cuda.memory_reserved())           # allocator query, no sync
for layer in layers:
    drop = torch.rand([])                         # a CPU tensor: no device to wait for
    if drop < layerdrop:
        continue
    if torch.equal(a, b):                         # returns a Python bool
        pass
    idx = torch.arange(4).tolist()
    guide = guide.tolist() if isinstance(guide, np.ndarray) else guide   # narrowed to numpy
""",
    """
import sys
import torch
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    if step >= max_steps:                          # leaves the loop: runs once
        print(f"stopping at {loss.item()}")
        break
    if step > limit:
        print("diverged", loss.item())             # ends the run: once
        sys.exit(1)
    loss.backward()
""",
    """
import torch
def inspect(model, loader, optimizer):
    for x, y in loader:                       # a batch is on the host until it is moved
        print(x.numpy().shape, y.tolist())
        x = x.cuda()
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
""",
    """
import torch
def rollout(agent, env, steps, obs):
    for _ in range(steps):                    # not a step loop: no loader, no model, no backward
        action = agent.get_greedy_action(obs)
        obs, reward, done, trunc, _ = env.step(action.cpu().numpy())
def sample(diffusion, model, n, shape):
    images = []
    while len(images) < n:                    # the samples must reach the host
        out = diffusion.p_sample_loop(model, shape)
        images.extend([s.cpu().numpy() for s in out])
def to_cpu(model):
    cpu_state = {}
    for name, p in model.state_dict().items():   # converting a state_dict
        cpu_state[name] = p.cpu()
    return cpu_state
""",
    """
import torch
class MetricLogger:
    def update(self, **kwargs):               # no step loop of this module calls update()
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):   # the guard does not say where v lives
                v = v.item()
            self.meters[k] = v
""",
    """
import torch
def train(model, loader, opt, fixed_noise, epochs):
    it = 0
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            model(x).sum().backward()
            opt.step()
            if (it % 500 == 0) or (epoch == epochs - 1 and i == len(loader) - 1):
                fake = model(fixed_noise).detach().cpu()      # an interval, written as a compound test
            if i == 0:
                print(model(fixed_noise).mean().item())       # the first batch only
            it += 1
""",
    """
import torch
from torch.nn.parallel import DistributedDataParallel
from rl.agent import PPOAgent
agent = DistributedDataParallel(PPOAgent(envs).to(device))   # wraps a model made elsewhere
for update in range(num_updates):
    for step in range(num_steps):             # a rollout: the environment needs the action
        action = agent(next_obs)
        next_obs, reward, done, info = envs.step(action.cpu().numpy())
    train(agent, optimizer, data)
""",
    """
import torch
from somewhere import evaluate
def evaluate_model(*, classifier):            # a function of the module, not a model
    return evaluate(classifier)
def sweep(classifiers, c_range):
    for i in range(len(c_range)):             # calls only a function that runs no step loop
        c = c_range[i].item()
        evaluate_model(classifier=classifiers[c])
class Sweep:
    def run_model(self, c):
        return evaluate(c)
    def sweep(self, c_range):
        for c in c_range:
            print(c.item())
            self.run_model(c)                 # a method of the class, not a model
""",
    """
import torch
from accelerate import Accelerator
def train(model, optimizer, loader):
    accelerator = Accelerator()
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        accelerator.backward(loss)            # the engine takes the loss: it is no tensor itself
        optimizer.step()
        if accelerator.check_trigger():       # a Python bool from a method of the engine
            break
        if accelerator.sync_gradients:
            optimizer.zero_grad()
""",
    """
import torch
def log_losses(losses):
    for loss in losses:
        print(loss.item())             # called once per epoch: at its first step
def train(model, loader, opt, epochs):
    for epoch in range(epochs):
        for step, x in enumerate(loader):
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            if step == 0:
                log_losses([loss])
""",
    """
import torch
def train(model, loader, optimizer, log_every):
    meters = {}
    for i, (x, y) in enumerate(loader):
        losses = {"ce": model(x).sum(), "reg": model(y).sum()}
        sum(losses.values()).backward()
        optimizer.step()
        if i % log_every == 0:
            for key, value in losses.items():  # a loop inside the interval if: every log_every steps
                meters[key] = value.item()
""",
    """
import torch
def train(model, loader, optimizer, log_every, accum):
    for i, x in enumerate(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
        is_console_step = i % log_every == 0
        is_metric_step = (i % accum == 0) or is_console_step   # interval tests held in names
        if is_metric_step:
            print(loss.item())
""",
    """
import torch
def validate(generator, loader, writer):
    for j, (x, y) in enumerate(loader):
        y_hat = generator(x.cuda())
        if j <= 4:                              # the first five batches only
            writer.add_audio(f"gen/{j}", y_hat[0].cpu(), 0)
""",
    """
import torch
def train(model, trainloader, opt):
    for i, (x, y) in enumerate(trainloader):
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        if i == len(trainloader) - 1:           # the last batch: once per epoch
            print(loss.item())
""",
    """
import torch
def non_max_suppression(prediction):
    device = prediction.device
    mps = "mps" in device.type                    # MPS lacks the NMS kernel: the host does the work
    if mps:
        prediction = prediction.cpu()
    return prediction
def train(model, loader, opt):
    for x, y in loader:
        model(x.cuda()).sum().backward()
        opt.step()
        non_max_suppression(model(x.cuda()))
""",
    """
import torch
def eval_split(model, loader, is_wrong):
    mistakes_printed = 0
    for x, y in loader:
        pred = model(x.cuda()).argmax(-1)
        for i in range(x.size(0)):
            if is_wrong(i) and mistakes_printed < 5:    # a budget: five prints in all
                mistakes_printed += 1
                print("predicted %d, not %d" % (pred[i], y[i]))
""",
    """
import torch
def log_losses(losses):
    for loss in losses:
        print(loss.item())                      # called every 100 steps (the call graph sees it too)
def train(model, loader, opt):
    for step, x in enumerate(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        is_log_step = step % 100 == 0
        if is_log_step:
            log_losses([loss])
""",
    """
import torch
from models import Tacotron
class Trainer:
    def fit(self, loader, optimizer, device):
        model = Tacotron().to(device)            # a module moved, not a tensor
        for x, y in loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            optimizer.step()
            step = model.get_step()               # a counter: a Python int
            k = int(step)
            print(f"step {step}", self.trainer.global_step, self.current_epoch)
            if model.get_step() > 100:
                break
""",
    """
import torch
import torch.nn as nn
import torch.nn.functional as F
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(30, 200), nn.Tanh(), nn.Linear(200, 27))
    def forward(self, x):
        return self.layers(x)
def train(xs, ys):                        # a CPU-only script: nothing ever leaves the host
    X, Y = torch.tensor(xs), torch.tensor(ys)
    C = torch.randn((27, 10))
    W1 = torch.randn((30, 200)) * 0.1
    b1 = torch.randn(200) * 0.01
    model = MLP()                         # built here and never moved
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(1000):
        ix = torch.randint(0, X.shape[0], (32,))
        emb = C[X[ix]]
        h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
        manual = F.cross_entropy(h @ W1.T[:, :27], Y[ix])
        loss = F.cross_entropy(model(emb.view(32, -1)), Y[ix])
        loss.backward()
        optimizer.step()
        print(f"{i}: {loss.item():.4f} {manual:.4f}")
""",
    """
import time
import torch
from torch.nn.utils.rnn import pack_padded_sequence
def train(model, loader, optimizer, timings):
    for tokens, lengths in loader:
        tokens, lengths = tokens.cuda(), lengths.cuda()
        packed = pack_padded_sequence(tokens, lengths.cpu(), batch_first=True)   # torch needs them on the host
        chunks = torch.split(tokens, lengths.tolist())
        flat = tokens.view(int(lengths.sum()), -1)
        _, best = torch.topk(flat, k=lengths.max().item(), dim=0)   # k is a size
        loss = model(packed, chunks, flat, best).sum()
        torch.cuda.synchronize()                    # brackets a timer read: the benchmark needs it
        start = time.perf_counter()
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
        timings.append(time.perf_counter() - start)
        print("%d tokens" % len(chunks))            # formatting a Python number
""",
    """
import torch
@torch.no_grad()
def sample(model, x, steps, mask_id):
    for step in range(steps):
        logits = model(x)
        if (x == mask_id).sum().item() == 0:      # a sampler fed what it made, autograd off: no step loop
            print("all tokens chosen")
        x = torch.where(x == mask_id, logits.argmax(-1), x)
    return x
""",
    """
import torch
def greedy_decode(model, loader, eos_id, max_len):
    for src in loader:
        ys = src.cuda()
        for _ in range(max_len):
            next_id = model(ys)[:, -1].argmax(-1)
            ys = torch.cat([ys, next_id[:, None]], dim=1)
            if next_id.item() == eos_id:           # decides whether the loop stops: host-needed
                break
            if (next_id == eos_id).all():
                break
""",
    """
import matplotlib.pyplot as plt
import numpy as np
import torch
def dur_to_figure(dur):
    dur = np.cumsum(dur.astype(np.int64))
    plt.vlines(dur, 0, 10)                         # drawn by the host
    return plt.gcf()
@torch.no_grad()
def decode(model, y, eos, max_len):
    stop = False
    for _ in range(max_len):
        logits = model(y)
        if logits.argmax(-1)[0] == eos:            # sets the flag the loop stops on: host-needed
            stop = True
        if stop:
            break
        y = torch.cat([y, logits.argmax(-1)[:, None]], dim=1)
    return y
def validate(model, loader, writer, log):
    for step, batch in enumerate(loader):
        try:
            dur = model(batch.cuda())
        except RuntimeError:
            log.warning(f"out of memory at batch {batch[0, 0].cuda().item()}")   # only when a step failed
            continue
        writer.add_figure("dur", dur_to_figure(dur[0].cpu().numpy()), step)    # handed to numpy/matplotlib
""",
    """
import torch
def sample(model, ids, special_ids, max_len):
    out = []
    for i in range(max_len):
        prev = torch.multinomial(model(torch.tensor([ids + out], device="cuda"))[0, -1].softmax(-1), 1)
        if prev.item() in special_ids:             # the loop stops on prev: host-needed
            break
        out.append(prev.item())                    # so every read of prev is
    return out
def train(model, loader, optimizer, bank, lens, out):
    for x, idx in loader:
        feats = model(x.cuda())
        feats.sum().backward()
        optimizer.step()
        bank.index_copy_(0, idx.cuda().cpu(), feats.detach().cpu())   # the bank is on the host
        start = lens.cuda()[0].item() - 1
        start = max(0, start)                      # a clamp keeps it a size
        out[:start] = 0
""",
    """
import cv2
import numpy as np
import torch
from PIL import Image
def train(model, loader, optimizer, env, tokenizer, metrics, plots):
    for batch_i, (x, y) in enumerate(loader):
        out = model(x.cuda())
        out.sum().backward()
        optimizer.step()
        matches = torch.cat((out, out), 1).cpu().numpy()       # handed to numpy below
        matches = matches[np.unique(matches[:, 1], return_index=True)[1]]
        edges = cv2.Canny(out[0].cpu().numpy(), 10, 20)         # handed to OpenCV
        image = Image.fromarray((out[0].cpu().numpy() * 255).astype("uint8"))   # and to PIL
        env.step(out.argmax(-1).cpu().numpy())                   # an environment takes host actions
        text = tokenizer.batch_decode(out.argmax(-1).tolist())   # ids decoded to text
        start, end = out[0].long().item(), out[1].long().item()
        window = x[start:end]                                    # slice bounds: sizes the host needs
        rows = y[out[2].long().item():]
        if plots and batch_i < 3:                                # the first three batches only
            metrics.plot(out.cpu())
        ni = batch_i + len(loader) * 2                           # YOLO's integrated-batch counter
        if ni < 3:
            metrics.plot(out.cpu())
        _, chosen = out.topk(out[3].long().item(), largest=False)  # topk's k: a size torch reads on the host
""",
    """
import torch
def count_tokens(model, loader, optimizer, images, grid, merge):
    for x, y in loader:
        ids = model(x.cuda())
        ids.sum().backward()
        optimizer.step()
        mismatch = False
        for b in range(ids.shape[0]):                            # runs no update
            tokens = (ids[b] == 1).sum().item()
            features = 0
            for i in range(images[b]):
                features += grid[i].prod().item() // merge
            if tokens != features:                               # decides whether the loop stops
                mismatch = True
                break
""",
    """
import numpy as np
import torch
class Decoder:
    def __init__(self, labels):
        self.int_to_char = dict(enumerate(labels))
    def process_string(self, sequence, size):
        return "".join(self.int_to_char[sequence[i].item()] for i in range(size))  # a dict's key
def train(model, loader, optimizer, labels, max_len):
    decoder = Decoder(labels)
    for x, lengths in loader:
        out = model(x.cuda())
        out.sum().backward()
        optimizer.step()
        text = decoder.process_string(out.argmax(-1)[0], 8)
        crop = min([int(lengths.cuda().min().item() / 2 - 1), max_len])   # a slice bound
        start = np.random.randint(0, 10)
        piece = out[:, start:start + crop]
        offset = 0
        align = torch.zeros(4, 4)
        for i in range(4):
            align[i, offset:offset + int(out[i].sum())] = 1                 # slice bounds, also
            offset += int(out[i].sum())                                     # the next round's
""",
    """
import torch
def evaluate(model, loader, to_xywh, results):
    for imgs, _ in loader:
        out = model(imgs.cuda())
        boxes = to_xywh(out[:, :4])
        results.append(boxes.numpy().tolist())   # a bare .numpy() raises on a device tensor: host
        start, end = out[0].long().item(), out[1].long().item()
        window = imgs[start:end]                 # a slice bound: host-needed (R3) ...
        results.append(end)                      # ... whatever else reads the value
""",
    """
import torch
def encode(model, loader, encoded, fout):
    with torch.no_grad():                        # inference: nothing trains in this loop
        for ids, batch in loader:
            reps = model(batch.cuda())
            encoded.append(reps.cpu().numpy())   # the results the run is for (R7)
            scores = reps.sum(-1).cpu().tolist()
            for i, s in zip(ids, scores):        # read by host code
                fout.write(f"{i} {s}\\n")
""",
    """
import torch
from sklearn.metrics import f1_score
def validate(model, loader, criterion):
    preds, labels, total = [], [], 0.0
    for x, y in loader:                          # evaluation: no backward, no optimizer step
        out = model(x.cuda())
        preds.append(out.argmax(1).cpu())        # results on their way to the host (R8): per batch,
        labels.append(y.cpu())                   # which bounds the device memory they take
        total += criterion(out, y.cuda())        # the metric stays on the device
    return f1_score(torch.cat(labels), torch.cat(preds)), total.item()
""",
    """
import torch
class IDLoss(torch.nn.Module):
    def forward(self, feats, target):
        pairs = feats.shape[0]
        return (feats - target).abs().mean(), pairs / 2
def train(model, loader, optimizer):
    id_loss = IDLoss()
    for x, y in loader:
        loss, pairs = id_loss(model(x.cuda()), y.cuda())
        print(f"pairs {pairs:.1f}", float(pairs))      # a Python number the project callee returns
        loss.backward()
        optimizer.step()
""",
    """
import torch
def train(model, loader, optimizer, results):
    for x, ids in loader:
        loss = model(x.cuda()).mean()
        assert torch.isfinite(loss), f"loss {loss.item()}"   # the message is built only on failure
        results[ids[0].item()] = loss.detach()             # a Python dict's key: needed on the host
        loss.backward()
        optimizer.step()
""",

)
RULE.INVALID = (
    """
import torch
def sample(model, x, steps, mask_id):
    for step in range(steps):
        logits = model(x)
        if (x == mask_id).sum().item() == 0:      # TPL102 (autograd on: the same loop is a step loop)
            print("all tokens chosen")
        x = torch.where(x == mask_id, logits.argmax(-1), x)
    return x
""",
    """
import torch
def non_max_suppression(prediction):
    if prediction.device.type != "cpu":           # on CUDA too
        prediction = prediction.cpu()  # TPL102
    return prediction
def train(model, loader, opt):
    for x, y in loader:
        model(x.cuda()).sum().backward()
        opt.step()
        non_max_suppression(model(x.cuda()))
""",
    """
import torch
def eval_split(model, loader, is_wrong):
    for x, y in loader:
        pred = model(x.cuda()).argmax(-1)
        mistakes_printed = 0                      # refilled every batch: five prints per step
        for i in range(x.size(0)):
            if is_wrong(i) and mistakes_printed < 5:
                mistakes_printed += 1
                print("predicted %d" % pred[i])  # TPL102
""",
    """
import numpy as np
import torch
def train(model, loader, optimizer, logger, scheduler, plots, vae):
    for batch_i, (x, y) in enumerate(loader):
        out = model(x.cuda())
        out.sum().backward()
        optimizer.step()
        preds = out.argmax(-1).cpu().numpy()  # TPL102
        logger.log(preds)                                # no numpy call needs it
        preds = np.zeros(3)                              # a new value: np.save does not read the old one
        np.save("preds.npy", preds)
        if plots:
            image = out.cpu().numpy()  # TPL102
            logger.log(image)
        else:
            image = out.detach().cpu().numpy()           # another path, handed to numpy: host-needed
            np.save("x.npy", image)
        mean = np.float32(0.5) + out.mean().item()  # TPL102
        images = vae.decode(out.cpu())  # TPL102
        scheduler.step(out.mean().item())  # TPL102
        start, end = out[0].long().item(), out[1].long().item()  # TPL102
        logger.log(end - start)                          # only logged: no use needs the host
        if plots:
            logger.plot(out.cpu())  # TPL102
        if plots and batch_i > 3:
            logger.plot(out.cpu())  # TPL102
        _, chosen = torch.topk(out, k=3)
        logger.log(chosen.cpu())  # TPL102
        for b in range(out.shape[0]):
            score = out[b].sum().item()  # TPL102
            if score > 0:
                logger.log(b)                            # no loop stop: the value is only logged
""",
    """
import torch
def train(model, loader, optimizer, limit):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        value = loss.item()  # TPL102
        if value > limit:                                # a loop that runs the update: check every N steps
            break
        loss.backward()
        optimizer.step()
""",
    """
import torch
class Engine:
    def parse_data(self, data):
        return data["img"].cuda(), data["pid"].cuda()
    def extract(self, model, data_loader):
        pids_all = []
        for data in data_loader:
            imgs, pids = self.parse_data(data)          # moved by the helper
            model(imgs).sum().backward()
            pids_all.extend(pids.tolist())  # TPL102
""",
    """
import torch
def train(model, loader, optimizer, criterion):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        total += loss.item()  # TPL102
        preds = model(x).argmax(1).cpu().numpy()  # TPL102
        torch.cuda.synchronize()  # TPL102
        print(loss)  # TPL102
        print(f"loss={loss:.4f}")  # TPL102
        print(f"step done, lr={lr}")
        if not torch.isfinite(loss):  # TPL102
            break
        if float(criterion(model(x), y)) > 1e3:  # TPL102
            continue
    return total
""",
    """
import torch
criterion = torch.nn.MSELoss()
for step, batch in enumerate(loader):
    loss = criterion(net(batch), batch)
    loss.backward()
    if (step + 1) % accum == 0:
        opt.step()
        print(float(loss))  # TPL102
""",
    """
import torch
def log_loss_dict(losses):
    for key, value in losses.items():          # runs every step: train() calls it in its step loop
        print(key, value.item())  # TPL102
def train(model, loader, opt):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        log_loss_dict({"loss": loss})
        for name, p in model.named_parameters():   # nested in a step loop: runs every step
            print(name, p.grad.norm().item())  # TPL102
        norms = [p.grad.norm().item() for p in model.parameters()]  # TPL102
""",
    """
import torch
for x, y in loader:
    x, y = x.cuda(), y.cuda()                 # moved: no longer known to be on the host
    out = model(x)
    correct, total = (out.argmax(1) == y).sum(), y.numel()
    print(correct.item(), total)  # TPL102
    acc = float(correct) / total  # TPL102
    x.numpy(force=True)  # TPL102
    criterion(out, y).backward()              # the loop trains: its copies are no evaluation results (R8)
    optimizer.step()
""",
    """
import torch
for i, (x, y) in enumerate(train_loader):
    loss = model(x.cuda(non_blocking=True)).sum()
    if rank == 0:                             # rank 0 still syncs every step: not an interval
        writer.add_scalar("loss", loss.item(), i)  # TPL102
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
    """
import torch
def cross_validate(model, folds, test_loader):
    kept = []
    for i, split in enumerate(folds):
        for batch in test_loader:
            with torch.no_grad():
                logits = model(batch.cuda(non_blocking=True))
            if i == 0:                        # the fold's counter: true for every batch of fold 0
                kept.append(logits.sum().item())  # TPL102
""",
    """
import torch
def train(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            if epoch == 0:                    # every step of the first epoch
                print(loss.item())  # TPL102
""",
    """
import torch
def evaluate(model, loader, accelerator):
    for batch in loader:
        with torch.no_grad():
            outputs = model(**batch)
        preds, refs = accelerator.gather_for_metrics((outputs.logits.argmax(-1), batch["labels"]))
        print(f"{preds}")  # TPL102
""",
    """
import torch
def log_losses(losses):
    for loss in losses:
        print(loss.item())  # TPL102: called at every step of the first epoch
def train(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            opt.step()
            if epoch == 0:
                log_losses([loss])
""",
    """
import torch
def train(model, loader, opt):
    for i, x in enumerate(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
        if i > 4:                               # every step after the fifth
            print(loss.item())  # TPL102
        for name, value in {"loss": loss}.items():  # a small loop run at every step
            print(name, value.item())  # TPL102
""",
    """
import torch
def optimizer_update(optimizer, scaler):
    scaler.step(optimizer)
    scaler.update()
class Trainer:
    def step_optimizer(self):
        self.optimizer.step()
    def fit(self, loader, accum):
        for i, x in enumerate(loader):
            loss = self.model(x.cuda()).sum()
            loss.backward()
            if (i + 1) % accum == 0:             # gradient accumulation: runs every update
                self.history.append(loss.item())  # TPL102
                self.step_optimizer()            # the update, one call deeper
def train(model, loader, optimizer, scaler, accum):
    for i, x in enumerate(loader):
        loss = model(x.cuda()).sum()
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:
            print(float(loss))  # TPL102
            optimizer_update(optimizer, scaler)
""",
    """
import torch
import torch.nn.functional as F
def train(model, loader, optimizer, pbar, logger, reference):
    best = 0.0
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        pbar.set_description(f"loss {loss:.3f}")  # TPL102
        logger.info("loss %g" % loss)  # TPL102
        logger.info("loss {:.4f}".format(loss))  # TPL102
        best = max(best, loss)  # TPL102
        if torch.allclose(logits, reference):  # TPL102
            print("converged")
        if torch.equal(y, logits.argmax(1)):  # TPL102
            print("perfect batch")
""",
    """
import time
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence
class MLP(nn.Module):
    def forward(self, x):
        return x
def train(xs, loader, timings):
    model = MLP().cuda()                        # moved: its outputs may be on the device
    for i in range(100):
        loss = model(torch.tensor(xs)).sum()
        loss.backward()
        print(loss.item())  # TPL102
    for tokens, lengths in loader:
        tokens, lengths = tokens.cuda(), lengths.cuda()
        packed = pack_padded_sequence(tokens, lengths.cpu(), batch_first=True)
        total = lengths.cpu()  # TPL102
        loss = model(packed).sum()
        loss.backward()
        torch.cuda.synchronize()  # TPL102
        if not torch.isfinite(loss):  # TPL102
            break                                # a training loop: a NaN check every N steps would do
""",
    """
import torch
def validate(model, loader):
    correct = 0
    for x, y in loader:                          # evaluation: its copies are results (R8), but ...
        out = model(x.cuda())
        correct += (out.argmax(1) == y.cuda()).sum().item()  # TPL102
        print(out.softmax(-1).cpu())  # TPL102
    return correct
""",
    """
import torch
def embed_batch(encoder, x):
    return torch.nn.functional.normalize(encoder(x), dim=1)
def train(model, loader, optimizer, encoder):
    for x, y in loader:
        feats = embed_batch(encoder, x.cuda())       # a helper returns a model's output: a device tensor
        loss = model(feats).mean()
        loss.backward()
        optimizer.step()
        print(float(feats[0].dot(feats[1])))  # TPL102
""",
    """
import numpy as np
import torch
def perplexity(model, loader):
    total, count = 0.0, 0
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        total += loss.item() * len(y)  # TPL102
        count += len(y)
    return np.exp(total / count)                         # numpy reads the sum once, after the loop
""",
    """
import torch
def train(model, loader, optimizer):
    for x, y in loader:
        out = model(x.cuda())
        mask = y.cuda() != 255
        if mask.sum() == 0:  # TPL102
            continue
        out.mean().backward()
        optimizer.step()
""",

)
RULE.WHY = """\
CUDA kernels run asynchronously: the Python loop only queues work, and stays ahead of the GPU.
`.item()`, `.cpu()`, `.numpy(force=True)`, `.tolist()`, `float(t)`, `if t:`, `print(t)`, formatting a
tensor (`f"{t:.3f}"`, `"%g" % t`, `"%d %g" % (step, t)`, `"{}".format(t)`), builtin `max`/`min` of tensors, builtin
`any`/`all` of a tensor (one `bool()` per element), `a or b`/`a and b` of tensors outside a test,
`torch.equal`/`torch.allclose`/`torch.is_nonzero` and `.nonzero()` need the value on the host, so the
CPU waits until every queued kernel has finished and the copy is done. Once per step, the GPU idles
while Python prepares the next step, and the pipeline never fills.

Values the host must have are not reported (one such use is enough, whatever else reads the value:
the sync cannot go while that use stays): an argument torch itself requires on the host
(`pack_padded_sequence` lengths, also those a project module's `forward` packs:
`self.encoder(x, lengths.cpu())`; the floats of `torch.nn.init.normal_`/`uniform_`;
`split`/`tensor_split` sections, shapes and sizes such as
`x.view(int(n), -1)`, slice bounds `t[a.item():b.item()]`; also through a name the function uses
only there: `sizes = lengths.tolist()` then `x.split(sizes)`, `start, end = a.item(), b.item()` then
`t[start:end]`), a value handed to numpy, scipy, OpenCV, PIL or scikit-learn (`np.unique(m.cpu().numpy())`, also
`m = t.cpu().numpy()` then `np.unique(m[:, 1])`; also speech metrics such as `pesq` and a joblib pool,
`Parallel(...)(delayed(f)(x) ...)`, faiss, and pickle through `bytes`/`list`/`tuple` of the one value:
`pickle.loads(bytes(buf.tolist()))`, reading R112), to `torch.save` (`torch.save(x.cpu(), path)`), to an environment's `env.step(...)`, to a
tokenizer's `decode`/`batch_decode` or another of its id methods (`get_special_tokens_mask(val)` for
`val in labels.tolist()`), the key of a lookup in a Python dict or list (`id2answer[pred.item()]`, `label2ans[...]`,
`self.IX_TO_NAME[...]`, `class_names[label.item()]`: a list of names, reading R71), the key a dict
is stored or built under (`res[i.item()] = out`, `{gt_id.item(): k for ...}`) or tested among
(`if i.item() not in table.keys():`, reading R159), a copy handed to a method of the class itself
that hands it to a host library (`pas = self._pa(ps)`, which `np.clip`s it: reading R160), a copy turned into a numpy array in a helper that a step body calls
(`points.detach().cpu().numpy()` in a metric, a KD-tree or a target assigner one call away; a copy
of a loss or metric, one read as a number or shown, one made into Python numbers at once
(`rewards.cpu().numpy().tolist()` kept in a metrics dict, reading R151), and copies in the step body
itself are still reported), a Python container the step returns to its framework, also through helpers
that return it up to the step (`stats = self._get_stats(...)`; `return stats`), the test that decides whether a loop that runs no update stops
(greedy decoding's `if next_id.item() == eos_id: break`, also through a name: `n = t.item()` then
`if n != expected: break`; a training loop that stops on a NaN loss is still reported: checking
every N steps would do), and a `torch.cuda.synchronize()` followed, before any other device work, by
a timer read (`time.perf_counter()`, `time.time()`, a CUDA event's `start.elapsed_time(end)`: the
user asked for that timing), a copy to the host under a test that
the value is on MPS or XLA (`if "mps" in x.device.type: x = x.cpu()`: that device lacks the next op),
and the results of inference the host keeps: in a loop that trains nothing, with autograd off, a
copy to the host (`.cpu()`, `.tolist()`, `.numpy(force=True)`) that is stored (appended, written,
put into a container) or iterated by host code
(`encoded.append(reps.cpu().numpy())`), like `predict_step`'s outputs; a metric's `.item()` there
is still reported, while an id made into a file's name (`torch.load(str(image_id) + ".pt")`) or kept
in a record written out (`torch.save(dict(image_id=image_id, boxes=b), path)`) is not (reading R156). More widely, a copy to the host (`.cpu()`, `.tolist()`, `.numpy(force=True)`) in
code that trains nothing is not reported, autograd on or off, wherever its value goes: an evaluation
or inference loop (no backward and no optimizer or scaler step in it, around it, or in a call it
makes whose name says it may train: `train_step`, `take_step`, unless it makes it under
`torch.no_grad()`: `training_model(**batch)` there trains nothing), a branch that runs only in
evaluation (`if stage == "val":`, the `else` of `if self.training:`, of `if is_training:` or of
`if phase in (Phase.TRAIN, Phase.VALIDATE):`, what follows `if self.training [or ...]: return`:
reading R168), or a function that every visible
call chain runs from such a loop or from Lightning's `validation_step`/`test_step`. Evaluation has
to bring its results to the host (metrics in numpy or scikit-learn, kept predictions, plots,
decoding, files), and copying them batch by batch is what bounds the device memory they take:
keeping every batch's predictions on the device until the end can exhaust it. A copy printed,
formatted or read as a number where it is made (`print(out.cpu())`, `loss.cpu().item()`), a
metric's `.item()`, `float(t)`, printing and
tests of a tensor are still reported there, and so is everything in a function whose own name says
it trains.
Values known to live on the host never sync: besides numpy arrays, Python numbers and CPU tensors (and
whatever a bare `.numpy()` reads, unless the code itself put it on the device: torch raises on a
device tensor's), the results of torch ops on host tensors
(a CPU-only script), the output of a model the file builds and never moves given host inputs, and
counters read from objects (`model.get_step()`, `trainer.global_step`; a module moved with `.to()`
is not a tensor, nor with `.cpu()` by a lambda every call hands a model, `fn = lambda x: x.cpu()`
then `a.model = fn(a.model)`: reading R156), what a tokenizer or processor makes with `return_tensors="pt"` until it is
moved, `.item()` of an instance of a project class that defines `item` (`val_res = Averager()`), a
helper's parameter that every per-step call hands a Python value
(`metric_logger.update(loss=loss.item())`: its `if isinstance(v, torch.Tensor): v = v.item()`
reads no tensor), and everything in the step bodies of a script that names no device at all and
shares no values with the rest of its project. What a framework hands its steps moved is on the
device: a Lightning step's `batch` and the `inputs` the Hugging Face Trainer hands `compute_loss`,
their attributes and string keys (`inputs["sft_mask"]`) alike, except keys and fields that name
counts, lengths or what the samples are (`num_items`, `platform`, `file_name`; reading R152). A
project base's step loop that calls `self.<m>(...)` runs a subclass's override only on instances the
base set up: a subclass whose `__init__` calls none of its bases' runs its own loops alone (reading
R153).

Code that never runs (the body of `if False:`, `if 0:`, `while False:`, the `else` of `if True:`, what
follows `exit()`/`sys.exit()` in its block (reading R146), and
in a step body a branch that every per-step call closes through a parameter, `and`/`or` read as
Python reads them: `if debug and ...:` with `debug` left false) is not checked, nor is a message in a branch taken only when a value is not finite, loops in it
included. Only step loops are checked: loops over a data loader (also an item of a dict of loaders,
`self.loader_dict["train"]`), loops that call `.backward()`, an optimizer's
step or a model, loops nested in them, and loops in functions of the module that they call every
step. An epoch loop whose own body only evaluates (model calls under `torch.no_grad()` or on a
model it put in eval mode, loss modules) runs its body once per epoch, and a loop beside its step
loop that generates samples under `no_grad` (no loader, no backward, no optimizer step) is no step
loop. Nor is a sampling or decoding loop run with autograd off that goes over steps (a `while`, a
`range`, a scheduler's timesteps) and feeds the model what the previous round made (`ids =
torch.cat([ids, next_id], 1)`, `x[:, a:b] = tokens`, `x_t = step(x_t, model(x_t))`): its syncs
decide what the next round reads; called every step by a training loop, it still runs every step.
A recurrent state coming back alone (`output, hidden = model(data, hidden)`) does not make an
evaluation over data such a loop. A function with its own `.backward()` that every visible caller runs once (module level
outside loops, `__init__`/`setup`/`configure_*` hooks) is no step body. A function that hands an
optimizer, outside its loops, to a project helper whose own body runs the backward
(`update_params(self.optim, loss, ...)`, in whatever module) performs a step each time it runs, as
one with its own backward does (readings R18, R64). Values known to live on the host (numpy arrays, Python numbers, CPU tensors, a batch taken from
a loader before `.to(device)`) are read without a sync and never flagged (a name that branches bind
differently is known to be on the host only when every branch leaves it there: `loss_mi =
helper(...)` in one and `loss_mi = torch.tensor(0.)` in the other may be on the device; reading R67); neither is a sync under an
`if step % N == 0:` (or the `else` of `if step % N != 0:`, reading R140; or `if i == 0:` / `if i < 5:` /
`if i == len(loader) - 1:` / `if step == args.warmup_steps:` (a setting, reading R142) / `if j <
args.num_plots:` (reading R166; not what follows an early `continue` under such a first-steps test,
which runs every later step: reading R171) / `if self.control.should_log:` (the Trainer's flags,
reading R174) on the counter of that
loop, not of an outer one, nor of a loop inside a step body that takes no batches and runs no update in
each pass, which runs whole every step even when it calls a model: reading R69;
or a name the loop sets to such a test, `is_log_step = step % N == 0`) that does not itself run the
optimizer step (at any depth, or through a function or method of the module that runs it: gradient
accumulation), nor one in a small loop nested under such an `if`. An `if`/`else` whose every path
passes an interval (`if i % 8 == 0: ... else: continue`) makes what follows run at the interval,
unless the `if` itself runs the backward or the update, or in a loop what follows does (reading
R150). A name that starts as a number, is bound to a device tensor in one branch of the `if` that
tests it (`if not total:`, `if moving_loss == 0:`) and carried on in the other holds that tensor from
the second step: the test waits every step (reading R154). A few more tests pick a few steps
or one per period: a budget (`if shown < 5: shown += 1`, `if len(pool) < size: pool.append(...)`,
never refilled inside a loop), a branch that moves its own mark (`if now - last_log > every: ...;
last_log = now`), and what follows an early `continue`/`return` until a counter passes a mark the
loop moves up to it (`if cur_nimg < tick_start + k: continue` ... `tick_start = cur_nimg`). A `%`
compared with a rank (`if idx % world_size != rank: continue`) gives each process its share of the
items, every item of the share: no interval (reading R70); nor is a rank's own `%` (`if args.rank %
ngpus_per_node == 0:`, the first process of each node, every step; reading R115)."""
RULE.EXAMPLE = """\
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward(); optimizer.step()
    total += loss.item()"""
RULE.USE_INSTEAD = """\
total = torch.zeros((), device=device)
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward(); optimizer.step()
    total += loss.detach()
    if step % log_every == 0:
        print(loss.item())
print(total.item())"""
RULE.FIX_NOTE = "No autofix: where to accumulate and how often to log is the author's choice."
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#avoid-unnecessary-cpu-gpu-synchronization",
    "https://pytorch.org/docs/stable/generated/torch.cuda.set_sync_debug_mode.html",
)

