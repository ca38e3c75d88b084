"""One libcst walk per unit that keeps the context rules ask about, and dispatches to the rules.

Context kept during the walk:
- frames (module, function, lambda, class body), each with its local bindings (function-local
  imports, parameters and assignments shadow module-level names), tensor- and numpy-valued names;
- per frame, a stack of blocks between the frame and the current node: loops, ``if`` branches,
  ``except`` handlers and ``with`` statements. "In a loop" follows the spec: the iterable of a
  ``for`` belongs to the enclosing loop, a ``for``/``while`` ``else`` runs once, and a ``def`` inside a
  loop starts afresh.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from ..catalog import torch_has
from .names import INTROSPECTION_BUILTINS, VALUE_KEEPING_CONVERSIONS, ImportTable, canonical, is_torch_name
from . import syntax
from .tree import child_nodes, descendants
from . import value_flow
from .step_loops import interval_properties, is_counter_name, is_loader_name, is_model_name
from .run_once import is_per_epoch_hook
from .budgets import spends_budget
from .throttles import cst_throttled_branch, cst_throttles
from .interval_gates import cst_gates_what_follows
from .value_flow import ValueFlow
from .python_containers import container_attributes

if TYPE_CHECKING:
    from .ast_scan import UnitAst

LOOP, IF, EXCEPT, WITH = "loop", "if", "except", "with"
# A step body without a loop around the node (rules.md "A step body"): the whole function body of a
# framework step method or a per-step helper, read by the rules as a step loop's body.
BODY = "body"


def _turns_grad_off(expr: cst.BaseExpression, ctx) -> bool:
    """``no_grad``/``inference_mode`` (a decorator or a ``with`` item); ``set_grad_enabled`` only
    with a literal ``False`` (the twin of step_loops.ModuleSteps._ast_turns_grad_off)."""
    if not syntax.is_grad_off(expr, ctx):
        return False
    if isinstance(expr, cst.Call) and (syntax.dotted_name(expr.func) or "").endswith("set_grad_enabled"):
        mode = syntax.keyword(expr, "mode")
        first = expr.args[0].value if expr.args and expr.args[0].keyword is None else mode.value if mode else None
        return isinstance(first, cst.Name) and first.value == "False"
    return True


class Block:
    __slots__ = ("kind", "node", "body")

    def __init__(self, kind: str, node: cst.CSTNode, body: Optional[cst.CSTNode] = None):
        self.kind = kind
        self.node = node  # the For/While/If/ExceptHandler/With statement
        self.body = body  # for IF: the branch taken (If.body or the Else/elif node)


class Frame:
    def __init__(self, node: cst.CSTNode, parent: Optional["Frame"]):
        self.node = node
        self.parent = parent
        self.bindings: Dict[str, Optional[str]] = {}  # local name -> qualified name (None: not torch)
        self.blocks: List[Block] = []
        # name -> its latest value_flow.Binding; None -> the newest binding of any name (chain head)
        self.values: dict = {}
        self.torch_instances: Dict[str, str] = {}  # name -> class qualname, e.g. criterion -> nn.MSELoss
        # (name, literal key) -> (the name's binding then, what the item is) for ``name[key].backward()``
        # (R184) and ``name[key] = value`` (R191); None: none yet
        self.known_items: Optional[dict] = None


class Context:
    """What a rule may ask while the walk is at a node."""

    def __init__(self, table: ImportTable, facts):
        self.table = table
        self.facts = facts  # lazily computed module facts (see facts.py)
        self.stack: List[cst.CSTNode] = []
        self.frame = Frame(None, None)
        self._epoch_loops: Dict[int, bool] = {}
        self._step_loops: Dict[int, bool] = {}
        self._interval_names_of: Dict[int, FrozenSet[str]] = {}  # loop -> names holding interval tests
        self._body_blocks: Dict[int, Optional[Block]] = {}  # function -> its BODY block (None: no step body)
        self.scope_prefix = ""  # the qualified name of what holds the unit (its class, for a method)
        self.values = ValueFlow(self)

    # ---- names -------------------------------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        """The canonical torch (or other imported) name an expression stands for, or None."""
        dotted = syntax.dotted_name(expr)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        frame = self.frame
        while frame is not None:
            if head in frame.bindings:
                base = frame.bindings[head]
                break
            frame = frame.parent
        else:
            base = self.table.bindings.get(head)
        if base is None:
            return None
        return canonical(f"{base}.{rest}" if rest else base)

    def is_torch(self, expr: cst.BaseExpression) -> bool:
        return is_torch_name(self.qualname(expr))

    def bind(self, name: str, qualname: Optional[str] = None) -> None:
        self.frame.bindings[name] = qualname
        self.values.bind_unknown(name)

    def is_builtin(self, name: str) -> bool:
        """``print``/``float`` as Python's, not rebound by the module or a function."""
        frame = self.frame
        while frame is not None:
            if name in frame.bindings:
                return False
            frame = frame.parent
        return name not in self.table.bindings

    def parent(self, depth: int = 1) -> Optional[cst.CSTNode]:
        """The ancestor ``depth`` levels above the current node (1: its parent)."""
        index = len(self.stack) - 1 - depth
        return self.stack[index] if index >= 0 else None

    # ---- value kinds ---------------------------------------------------------------------------
    def torch_instance(self, expr: cst.BaseExpression) -> Optional[str]:
        """The torch class of an object held in a name (``criterion = nn.MSELoss()``)."""
        if isinstance(expr, cst.Name):
            frame = self.frame
            while frame is not None:
                if expr.value in frame.torch_instances:
                    return frame.torch_instances[expr.value]
                if expr.value in frame.bindings:
                    return None
                frame = frame.parent
            return self.table.instances.get(expr.value)
        return None

    def value_kind(self, expr: cst.BaseExpression) -> str:
        """Where the value of ``expr`` lives, as value_flow says: NUMPY, PYTHON, CONTAINER,
        CPU_TENSOR, a loader batch (BATCH/PINNED_BATCH/UNPINNED_BATCH), DEVICE or UNKNOWN."""
        return self.values.kind(expr)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.values.kind(expr) in value_flow.TENSORS

    def is_device_tensor(self, expr: cst.BaseExpression) -> bool:
        """A tensor that may live on an accelerator (not one known to be on the host)."""
        return self.values.kind(expr) == value_flow.DEVICE

    def is_cpu_tensor(self, expr: cst.BaseExpression) -> bool:
        """A tensor known to live in host memory (a CPU tensor, or a batch not moved yet)."""
        return self.values.kind(expr) in value_flow.HOST_TENSORS

    def is_numpy(self, expr: cst.BaseExpression) -> bool:
        """A numpy value or a plain Python value: something whose ``.item()`` waits for no device."""
        return self.values.kind(expr) in (value_flow.NUMPY, value_flow.PYTHON, value_flow.CONTAINER)

    def is_host_value(self, expr: cst.BaseExpression) -> bool:
        """Known to live on the host: reading it back synchronises nothing."""
        return self.values.kind(expr) in value_flow.HOST

    def is_model_call(self, call: cst.Call) -> bool:
        """A call of a model: a model-ish name, or an object built from ``nn.Module`` in the module."""
        func = call.func
        name = syntax.last_identifier(func)
        if name is None:
            return False
        if isinstance(func, cst.Attribute) and name == "forward":
            name = syntax.last_identifier(func.value)  # ``model.forward(x)``
        steps = self.steps
        if name in steps.objects:
            return True
        if steps.is_module_function(func):
            return False  # ``evaluate_model(...)`` defined in the module is a function, not a model
        return is_model_name(name) or self._calls_module_attribute(func)

    def _calls_module_attribute(self, func: cst.BaseExpression) -> bool:
        """``self.assigner(...)`` where ``__init__`` binds ``self.assigner`` to an instance of a
        project ``nn.Module`` class, in this file or another (R90)."""
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return False
        bodies = getattr(self.facts, "step_bodies", None)
        qualname = self.function_qualname()
        return bodies is not None and bool(qualname) and bodies.attribute_is_module(qualname, func.attr.value)

    # ---- loops and blocks ----------------------------------------------------------------------
    def innermost_loop(self) -> Optional[Block]:
        for block in reversed(self.frame.blocks):
            if block.kind == LOOP:
                return block
        return None

    def under_grad_off(self, mode_given: bool = True) -> bool:
        """Is the current node run with autograd off: inside ``with torch.no_grad():`` (or
        inference_mode, set_grad_enabled) or in a function decorated with one, at any depth?
        Without ``mode_given``, a ``with torch.set_grad_enabled(<a name>):`` does not count: a rule
        that asks so has seen a backward pass run there, which only a mode left on allows
        (Transformers4Rec's ``with torch.set_grad_enabled(mode=train):`` around its training loop)."""
        frame = self.frame
        while frame is not None:
            for block in frame.blocks:
                if block.kind == WITH and any(syntax.is_grad_off(i.item, self) and (mode_given or not mode_of_a_name(i.item))
                                              for i in block.node.items):
                    return True
            if isinstance(frame.node, cst.FunctionDef) and any(
                syntax.is_grad_off(d.decorator, self) for d in frame.node.decorators
            ):
                return True
            frame = frame.parent
        return False

    def blocks_inside(self, loop: Block) -> List[Block]:
        """The blocks between ``loop`` and the current node, outermost first."""
        blocks = self.frame.blocks
        if loop.kind == BODY:  # the function's blocks, and those of lambdas inside it down to here
            found: List[Block] = []
            frame = self.frame
            while frame is not None:
                found[0:0] = frame.blocks
                if frame.node is loop.node:
                    break
                frame = frame.parent
            return found
        return blocks[blocks.index(loop) + 1 :]

    @property
    def steps(self):
        """The file's step-loop facts (models, loaders, functions run every step), built on first use."""
        return self.facts.steps

    def is_epoch_loop(self, loop: Block) -> bool:
        """An outer loop whose steps run in a nested loop: what its own body does runs once per epoch."""
        key = id(loop.node)
        if key not in self._epoch_loops:
            self._epoch_loops[key] = self.steps.is_epoch_loop(loop.node)
        return self._epoch_loops[key]

    def step_loop(self) -> Optional[Block]:
        """The loop the current node is "in" (spec): the innermost loop around it, unless that is an
        epoch-level loop; with no loop around it in a step body, that body (a BODY block). It need
        not be a step loop: see ``in_step_loop``."""
        loop = self.innermost_loop()
        if loop is None:
            return self.step_body()
        if self.is_epoch_loop(loop) and not self._runs_every_step_of_a_body(loop):
            return None
        return loop

    def _runs_every_step_of_a_body(self, loop: Block) -> bool:
        """A loop of a step body (not under an interval ``if``) runs every step however its body is
        split: it cannot be an epoch-level loop (SwAV's loss: a loop over crops whose nested loop
        calls a softmax module)."""
        body = self.step_body()
        return body is not None and loop in self.frame.blocks and not self.under_interval_check(body, upto=loop)

    # ---- step bodies (analysis/step_bodies.py) --------------------------------------------------
    def step_body(self) -> Optional[Block]:
        """The BODY block of the function the current node runs in, when that function is a step
        body of the file (a framework step method, a function that calls ``.backward()``, or one
        called every step, in this file or from another); None otherwise."""
        frame = self.frame
        while frame is not None and isinstance(frame.node, cst.Lambda):
            frame = frame.parent  # a lambda runs where its function runs (``apply(t, lambda x: x.item())``)
        node = frame.node if frame is not None else None
        if not isinstance(node, cst.FunctionDef):
            return None
        key = id(node)
        if key not in self._body_blocks:
            bodies = getattr(self.facts, "step_bodies", None)
            chain = bodies.chain(self.function_qualname()) if bodies is not None else None
            self._body_blocks[key] = Block(BODY, node) if chain is not None else None
        return self._body_blocks[key]

    def runs_inference_only(self) -> bool:
        """Is the current function a step body that every visible chain runs with autograd off, in
        a loop that trains nothing (a Lightning ``validation_step``, a helper of a ``@torch.no_grad()``
        evaluation loop in another file: step_bodies.runs_inference_only)?"""
        if self.step_body() is None:
            return False
        return self.facts.step_bodies.runs_inference_only(self.function_qualname())

    def trains_nothing(self) -> bool:
        """Is the current function a step body that every visible chain runs in a loop that trains
        nothing, autograd on or off (an evaluation loop's helper, a Lightning ``test_step``:
        step_bodies.trains_nothing; the lead's reading R8)?"""
        if self.step_body() is None:
            return False
        return self.facts.step_bodies.trains_nothing(self.function_qualname())

    def step_chain(self):
        """The call chain that makes the current function a step body (step_bodies.Chain), or None."""
        if self.step_body() is None:
            return None
        return self.facts.step_bodies.chain(self.function_qualname())

    def returned_to_framework(self) -> bool:
        """Is the value of the current node (a sync) handed back to whoever needs it on the host:
        returned by a framework step method (``return {"loss": loss, "acc": acc.item()}``, ``return
        loss.item()`` from an Ignite step: the framework hands it to its loggers), or returned to a
        caller that steps an environment with it (``action = q.argmax().item(); return action``),
        also through the caller's own ``return`` of the call (``return self.get_action(s)``)?
        Directly, through methods of it, inside a returned container, or through a name the function returns so
        (rules.md "A step body": a value the host must have every step)."""
        chain = self.step_chain()
        if chain is None or not ((chain.framework and not chain.hops) or chain.caller_steps_env
                                 or chain.returns_to_framework):
            return False
        stack = self.stack
        for index in range(len(stack) - 2, -1, -1):
            node = stack[index]
            if isinstance(node, cst.Return):
                return not any(isinstance(n, cst.If) and stack[i + 1] is n.body and _closed_by_default(n, self.frame.node)
                               for i, n in enumerate(stack[:index]))
            if isinstance(node, cst.Attribute) and index >= 1 and isinstance(stack[index - 1], cst.Call) and (
                    stack[index - 1].func is node):
                continue  # a method of the value (``return actions.cpu().numpy()``)
            # An Ignite step's return is its engine's output, which handlers log; what a Lightning
            # or HF step returns beside its loss goes elsewhere (HF's ``(loss, outputs)``): only the
            # former counts when filled item by item (HA-DPO's ``metrics[k] = x.cpu()``, a label)
            ignite = not chain.framework_trains and not chain.caller_steps_env
            if isinstance(node, cst.Assign):
                # ``x = t.item()``, or in an Ignite step ``res["loss"] = t.item()``, with ``x``/``res`` returned
                names = [t.target.value if isinstance(t.target, cst.Name) else
                         _stored_name(t.target) if ignite else None for t in node.targets]
                return None not in names and bool(names) and bool(set(names) & _returned_names(self.frame.node))
            if (ignite and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in _CONTAINER_ADDS and isinstance(node.func.value, cst.Name)):
                # ``res.update({"loss": loss.item(), ...})`` with ``res`` returned (an Ignite step)
                return node.func.value.value in _returned_names(self.frame.node)
            if isinstance(node, cst.BinaryOperation):
                continue  # ``"loss": value_loss.item() + policy_loss.item()``: a number the host adds
            if isinstance(node, (cst.DictComp, cst.ListComp)):
                # an item of a returned comprehension (``output = {k: v.item() for k, v in
                # loss_dict.items()}`` returned from an Ignite step), not what it iterates
                if stack[index + 1] not in ((node.key, node.value) if isinstance(node, cst.DictComp) else (node.elt,)):
                    return False
                continue
            if not isinstance(node, (cst.Dict, cst.DictElement, cst.List, cst.Tuple, cst.Element, cst.Call,
                                     cst.Arg)):
                return False
        return False

    def function_qualname(self) -> str:
        names: List[str] = []
        frame = self.frame
        while frame is not None:
            if isinstance(frame.node, (cst.FunctionDef, cst.ClassDef)):
                names.append(frame.node.name.value)
            frame = frame.parent
        if self.scope_prefix:
            names.append(self.scope_prefix)
        return ".".join(reversed(names))

    def _after_interval_exit(self, function: cst.CSTNode, updates_after: bool = True) -> bool:
        """Does an ``if <interval>: return`` (or ``continue``) come before the current node in the
        statement lists between ``function`` and it? What follows it runs only at the interval.
        In a loop (``updates_after`` False) not where what follows runs the update: ``if (i + 1) %
        accum: continue`` then ``optimizer.step()`` is gradient accumulation, no interval, as an
        ``if`` that runs the update is none (seamless's ``if not step or step % n: continue``
        before an evaluation is one)."""
        stack = self.stack
        try:
            start = stack.index(function)
        except ValueError:
            return False
        for index in range(start + 1, len(stack) - 1):
            block, child = stack[index], stack[index + 1]
            statements = getattr(block, "body", None)
            if not isinstance(statements, (list, tuple)):
                continue
            for statement in statements:
                if statement is child:
                    break
                if (isinstance(statement, cst.If) and statement.orelse is None
                        and ((self._tests_step_interval(statement.test, frozenset())
                              and not syntax.exits_only_early(statement.test))
                             or cst_throttles(statement.test, statements))
                        and (syntax.branch_leaves(statement.body)
                             or (not updates_after and syntax.branch_skips_rest(statement.body)))):
                    if updates_after:
                        return True
                    after = statements[statements.index(statement) + 1:]
                    if not any(self.steps.runs_update(later) for later in after):
                        return True
                if (isinstance(statement, cst.If) and statement.orelse is not None and cst_gates_what_follows(
                        statement, lambda test: self._tests_step_interval(test, frozenset()))
                        and not self.steps.runs_update(statement)):
                    # early exits under intervals in every branch of an if/else; not when the if
                    # runs the update itself (``if i % 8 == 0: loss.backward() else: continue``:
                    # what follows runs after every backward; transformerCPI, holdout167, R150)
                    if updates_after:
                        return True
                    after = statements[statements.index(statement) + 1:]
                    if not any(self.steps.runs_update(later) for later in after):
                        return True
        return False

    @staticmethod
    def _tests_step_interval(test: cst.BaseExpression, names: FrozenSet[str]) -> bool:
        """An interval test (syntax.tests_interval), or a call handed the step counter
        (``if self.check_frequency(batch_idx):``)."""
        if syntax.tests_interval(test, frozenset(), names):
            return True
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return Context._tests_step_interval(test.left, names) or Context._tests_step_interval(test.right, names)
        return Context._hands_counter(test)

    @staticmethod
    def _hands_counter(test: cst.BaseExpression, outer_counters: Optional[FrozenSet[str]] = None) -> bool:
        """A call handed the step counter (``divisible_by(step, self.val_every)``), alone or as an
        operand of ``and`` (rules.md "An interval"). In a loop (``outer_counters`` given) only a
        step or batch counter by name (``step``, ``global_step``, ``batch_idx``: not ``j``, which
        ``is_wrong(j)`` hands a per-sample index), and not an outer loop's counter (``epoch``: the
        test holds for every step of that epoch)."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return (Context._hands_counter(test.left, outer_counters)
                    or Context._hands_counter(test.right, outer_counters))
        if not isinstance(test, cst.Call):
            return False
        if isinstance(test.func, cst.Name) and test.func.value in INTROSPECTION_BUILTINS:
            # ``if hasattr(t_iter, "set_postfix"):`` asks what the value is (dyMEAN's progress bar
            # or plain loader, holdout150; R129), not which step this is
            return False
        for a in test.args:
            if a.keyword is not None or not isinstance(a.value, (cst.Name, cst.Attribute)):
                continue
            name = syntax.last_identifier(a.value)
            if outer_counters is None:
                if is_counter_name(name):
                    return True
            elif (name and _STEP_COUNTER.match(name) and is_counter_name(name)
                  and not (isinstance(a.value, cst.Name) and a.value.value in outer_counters)):
                return True
        return False

    def is_step_loop(self, loop: Block) -> bool:
        """Does ``loop`` (a LOOP block of the current frame) do device work each time round? See
        step_loops.py: it iterates a loader or runs a step, is nested in a step loop, or sits in a
        function that step loops call."""
        if loop.kind == BODY:
            return True
        key = id(loop.node)
        known = self._step_loops.get(key)
        if known is None:
            known = self._step_loops[key] = self._classify_loop(loop)
        return known

    def _classify_loop(self, loop: Block) -> bool:
        steps = self.steps
        blocks = self.frame.blocks
        if self._makes_samples(loop):
            return False
        if self._in_per_epoch_hook() and steps.aggregates_in_hook(loop.node):
            return False  # over what the epoch's steps collected (step_loops.epoch_hook_loops)
        if steps.is_intrinsic(loop.node) and not self._generates(loop):
            return True
        if loop in blocks:
            for outer in blocks[: blocks.index(loop)]:
                if (outer.kind == LOOP and not self.is_epoch_loop(outer) and self.is_step_loop(outer)
                        and not self.under_interval_check(outer, upto=loop)):
                    return True  # nested in a loop that runs every step, and run at every step
        body = self.step_body()
        if body is not None and loop in blocks and not self.under_interval_check(body, upto=loop):
            return True  # a loop of a step body runs every step (unless an interval ``if`` holds it)
        frame = self.frame
        while frame is not None and not isinstance(frame.node, cst.FunctionDef):
            if isinstance(frame.node, cst.ClassDef):
                return False
            frame = frame.parent  # a lambda or comprehension scope runs where its function runs
        if frame is None or frame.node.name.value not in steps.step_called:
            return False
        # the class the function is a method of (R176): its frame's parent in the unit, or the
        # unit's own scope (a method is linted as a unit of its own, under its class's name)
        names: List[str] = []
        outer = frame
        while outer is not None:
            if isinstance(outer.node, (cst.FunctionDef, cst.ClassDef)):
                names.append(outer.node.name.value)
            outer = outer.parent
        if self.scope_prefix:
            names.extend(reversed(self.scope_prefix.split(".")))
        owner_name = names[1] if len(names) > 1 and names[1] in steps.class_names else None
        return (owner_name, frame.node.name.value) in steps.step_called_methods

    def _generates(self, loop: Block) -> bool:
        """A generation loop (analysis/generation_loops, R41): autograd off around it, by a
        decorator of its function (or of one around it) or a ``with`` outside it; then the
        loop's own facts (step_loops.ModuleSteps.generates)."""
        blocks = self.frame.blocks
        if loop not in blocks:
            return False
        around = [blocks[: blocks.index(loop)]]  # this frame's blocks outside the loop, then all of each outer frame's
        frame = self.frame
        quiet = False
        while not quiet and frame is not None:
            quiet = any(block.kind == WITH and any(_turns_grad_off(i.item, self) for i in block.node.items)
                        for block in (around.pop() if around else frame.blocks)) or (
                isinstance(frame.node, cst.FunctionDef)
                and any(_turns_grad_off(d.decorator, self) for d in frame.node.decorators))
            frame = frame.parent
        return quiet and self.steps.generates(loop.node)

    def _in_per_epoch_hook(self) -> bool:
        """Is the current frame (a lambda or comprehension: the function around it) a per-epoch
        hook (``validation_epoch_end``, ``on_train_epoch_end``)?"""
        frame = self.frame
        while frame is not None and not isinstance(frame.node, cst.FunctionDef):
            if isinstance(frame.node, cst.ClassDef):
                return False
            frame = frame.parent
        return frame is not None and is_per_epoch_hook(frame.node.name.value)

    def _makes_samples(self, loop: Block) -> bool:
        """R1: a loop of an epoch-level loop's own body (beside its step loop) that generates
        samples under no_grad runs once per epoch: not a step loop (step_loops.is_sample_loop)."""
        blocks = self.frame.blocks
        if loop not in blocks:
            return False
        loops = [b for b in blocks[: blocks.index(loop) + 1] if b.kind == LOOP]
        # the loop itself, or a loop around it (a decoding loop inside the sample loop)
        return any(self.steps.is_sample_loop(inner.node, outer.node) and not self._runs_every_step_of_a_body(outer)
                   for outer, inner in zip(loops, loops[1:]))

    def in_step_loop(self) -> bool:
        """Is the current node "in a loop" (spec: the innermost loop, not an epoch-level one, and not
        under an interval ``if`` that runs no step) that is a step loop?"""
        loop = self.step_loop()
        return (loop is not None and not self.under_interval_check(loop) and self.is_step_loop(loop)
                and not self._held_by_an_interval(loop))

    def _held_by_an_interval(self, loop: Block) -> bool:
        """Is ``loop`` inside an interval ``if`` of its function (a test on the step counter, a call
        handed it, a branch that moves its own mark) that runs no update, with a loop over a few
        things written out (a tuple or list display, or a name the function binds to one: the
        models to sample) between that ``if`` and the current node? It runs a few times at each
        interval, not every step (rules.md "An interval": the remedy; DALLE2's VQGAN trainer saves
        the reconstructions of its two models under ``if not (steps % self.save_results_every):``).
        A loop there that iterates a loader, an iterator of unknown length or a range, or takes
        batches (a validation pass) runs its own steps: not held."""
        blocks = self.frame.blocks
        if loop.kind != LOOP or loop not in blocks:
            return False
        index = blocks.index(loop)
        gate = None
        for position in range(index - 1, -1, -1):
            block = blocks[position]
            if block.kind != IF or block.body is not block.node.body:
                continue
            if ((self._tests_step_interval(block.node.test, frozenset()) or cst_throttled_branch(block.node))
                    and not self.steps.runs_update(block.body)):
                gate = position
                break
        if gate is None:
            return False
        loops = [b for b in blocks[gate + 1: index + 1] if b.kind == LOOP]
        if any(not isinstance(b.node, cst.For) or self.steps.iterates_loader(b.node.iter)
               or (self._fetches_batches(b.node.body) and not self._over_a_few(b.node.iter)) for b in loops):
            return False  # (a batch fetched for each of a few models written out: still a few times)
        return any(self._over_a_few(b.node.iter) for b in loops)

    def _over_a_few(self, iterable: cst.BaseExpression) -> bool:
        """A tuple or list display, or a name the function binds to one, also inside
        ``enumerate``/``zip``: a few things written out (models, not batches)."""
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value in (
                "enumerate", "zip"):
            return any(a.keyword is None and self._over_a_few(a.value) for a in iterable.args)
        if isinstance(iterable, cst.Name):
            bound = self.values.assigned_expr(iterable.value)
            return isinstance(bound, (cst.Tuple, cst.List)) or _binds_only_displays(self.frame.node, iterable.value)
        if (isinstance(iterable, cst.Attribute) and isinstance(iterable.value, cst.Name)
                and iterable.value.value == "self"):
            # ``for si, (bg, ed) in enumerate(self.begin_ends):``: a list the file only ever binds
            # to a Python list (VAR's scales), not batches
            return iterable.attr.value in self.facts.derived("container_attributes", container_attributes)
        return isinstance(iterable, (cst.Tuple, cst.List))

    def _fetches_batches(self, body: cst.CSTNode) -> bool:
        """Does ``body`` take batches from a loader (``next(val_iter)`` of a loader, or a method of
        one: llm.c's ``val_loader.next_batch()``)? Then its loop is a validation pass."""
        steps = self.steps
        for node in descendants(body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda))):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            if isinstance(func, cst.Name) and func.value in ("next", "iter") and node.args and (
                    steps.iterates_loader(node.args[0].value)):
                return True
            if isinstance(func, cst.Attribute) and is_loader_name(syntax.last_identifier(func.value)):
                return True
        return False

    def current_step_loop(self) -> Optional[Block]:
        """The step loop the current node is in (the innermost, non-epoch loop if it is a step
        loop), without the interval-``if`` remedy; None otherwise."""
        loop = self.step_loop()
        return loop if loop is not None and self.is_step_loop(loop) else None

    def leaves_loop(self, loop: Block, body_returns: bool = True) -> bool:
        """Is the current node in a branch that ends by leaving ``loop`` (break/return/raise)?
        ``body_returns`` False: in a step body (a BODY block), a branch that ends in ``return``
        still runs every step it is taken (``if world_size > 1: ...; return x.item()``); only one
        that raises or exits leaves for good."""
        if loop.kind == BODY and not body_returns:
            return any(block.kind == IF and syntax.branch_leaves(block.body) and not syntax.branch_returns(block.body)
                       for block in self.blocks_inside(loop))
        return any(
            block.kind == IF and syntax.branch_leaves(block.body) for block in self.blocks_inside(loop)
        )

    def outer_loop_targets(self, loop: Block) -> FrozenSet[str]:
        """Names bound by the targets of the ``for`` loops around ``loop`` in the current frame, less
        those that ``loop`` or a loop inside it binds again."""
        if loop.kind == BODY:
            return frozenset()
        blocks = self.frame.blocks
        index = blocks.index(loop)

        def targets(chosen) -> set:
            return {name for b in chosen if b.kind == LOOP and isinstance(b.node, cst.For)
                    for name in syntax.assigned_names(b.node.target)}

        return frozenset(targets(blocks[:index]) - targets(blocks[index:]))

    def in_except_handler(self, loop: Block) -> bool:
        return any(block.kind == EXCEPT for block in self.blocks_inside(loop))

    def under_interval_check(self, loop: Block, upto: Optional[Block] = None) -> bool:
        """In the body of an ``if step % N == 0:`` (or ``if i == 0:``, ``if i < 5:``) that does not
        itself run the update (``.backward()``, an optimizer's step: gradient accumulation). Its
        ``else`` runs on the other steps, so it is no remedy. A once-only test must compare a
        counter of ``loop`` or of a loop inside it: ``if fold == 0:`` on an outer loop's counter
        holds for every step of the first fold. The test may be a name the loop's body assigns
        such a test (``is_log_step = step % N == 0``). ``upto``: only the ``if`` blocks between
        ``loop`` and that block, a loop nested in ``loop``."""
        blocks = self.blocks_inside(loop)
        if upto is not None:
            blocks = blocks[: blocks.index(upto)]
        if loop.kind == BODY:
            return self._body_under_interval(loop, blocks)
        outer_counters = names = None
        for block in blocks:
            if block.kind != IF:
                continue
            if block.body is not block.node.body:
                # the ``else`` of ``if batch_count % n != 0:``: taken once every n (R140)
                if (block.body is block.node.orelse and syntax.else_runs_every_n(block.node.test)
                        and not self.steps.runs_update(block.body)):
                    return True
                continue
            if outer_counters is None:
                outer_counters = self.outer_loop_targets(loop) | self._per_call_counters(loop)
                names = self._interval_names(loop, outer_counters)
            if (
                (syntax.tests_interval(block.node.test, outer_counters, names)
                 or syntax.tests_first_steps_by_setting(block.node.test, outer_counters)
                 or self._hands_counter(block.node.test, outer_counters)
                 or self._tests_interval_property(block.node.test)
                 or spends_budget(block.node, self.frame.node or (self.stack[0] if self.stack else None))
                 or cst_throttled_branch(block.node))
                and not self.steps.runs_update(block.body)
            ):
                return True
        return self._after_interval_exit(loop.node, updates_after=False)

    def _per_call_counters(self, loop: Block) -> FrozenSet[str]:
        """The counter of ``loop`` (``range``'s, or ``enumerate``'s first target) when it is a loop
        over items inside a step body, one that is no step loop of its own (no loader, no update;
        model calls alone do not make one there, R69): the whole loop runs in every call, so its ``if i == 0:`` holds every step
        (occupancy networks' DMC loss, ``for i in range(batchsize): if i == 0:
        stages.append(loss.item())``, holdout64). Empty otherwise."""
        node = loop.node
        if not isinstance(node, cst.For) or self.step_body() is None or not isinstance(node.iter, cst.Call):
            return frozenset()
        # (rl4co's search iterations call the policy and update: their ``i == 0`` is once; LaSAFT's
        # ``for x, idx, ... in zip(...)`` hands out batch items, no counter)
        maker = syntax.last_identifier(node.iter.func)
        if maker == "range" and isinstance(node.target, cst.Name):
            counter = node.target.value
        elif maker == "enumerate" and isinstance(node.target, cst.Tuple) and node.target.elements and isinstance(
                node.target.elements[0].value, cst.Name):
            counter = node.target.elements[0].value.value
        else:
            return frozenset()
        # A loop that runs an update (each pass a step of its own) or takes batches from a loader;
        # not one that only calls a model: inside a step body it runs whole in every step (CLIP4STR's
        # ``training_step`` decodes each permutation of the targets with ``self.head`` and recounts
        # the targets' tokens with ``.item()`` under ``if i == 1:``, holdout122; R69).
        if ((isinstance(node, cst.For) and self.steps.iterates_loader(node.iter))
                or self.steps.runs_update(node.body)
                or (_calls_manual_backward(node.body) and not self._steps_optimizer_outside(node))):
            return frozenset()
        return frozenset((counter,))

    def _steps_optimizer_outside(self, loop: cst.For) -> bool:
        """Does the function around ``loop`` step an optimizer outside it (``opt.step()`` after the
        loop)? Then the loop's ``manual_backward`` passes accumulate the gradients of one step, no
        step each (FeatUp's ``training_step`` over its jitters, holdout194; R169)."""
        function = self.frame.node
        if not isinstance(function, cst.FunctionDef):
            return False
        return any(isinstance(node, cst.Call) and syntax.is_optimizer_step(node, self) is not None
                   for node in descendants(function.body, prune=lambda n: n is loop or isinstance(
                       n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))))

    def _body_under_interval(self, body: Block, blocks: List[Block]) -> bool:
        """A step body's interval (rules.md "An interval"): an ``if`` on the step counter that runs
        no update, a call handed the counter, or what follows an early ``return`` under one. A
        test of a flag (``if self.hparams.verbose:``) is none: when on, its body runs every step."""
        names = None
        calls = None
        for block in blocks:
            if block.kind != IF:
                continue
            if calls is None:
                calls = self._per_step_values()
            if calls and _not_taken(block, calls):
                return True  # a branch no per-step call takes (``compute_top_k(..., reduction="none")``)
            if block.body is not block.node.body:
                continue
            if calls and _taken_every_call(block.node.test, calls):
                continue  # ``if step % N == 0 or not is_train:`` handed ``is_train=False`` (R97)
            if names is None:
                names = self._interval_names(body, frozenset())
            if ((self._tests_step_interval(block.node.test, names) or self._tests_interval_property(block.node.test)
                 or syntax.tests_first_steps_by_setting(block.node.test)
                 or spends_budget(block.node, body.node)
                 or cst_throttled_branch(block.node))
                    and not self.steps.runs_update(block.body)):
                return True
        return self._after_interval_exit(body.node)

    def _per_step_values(self) -> list:
        """The literal arguments of each per-step call of the current step body, by parameter
        (step_bodies.per_step_arguments), less the parameters the function binds again: their value
        at a test is no longer the argument (R103). Empty when some call is not seen."""
        calls = self.facts.step_bodies.per_step_arguments(self.function_qualname()) or ()
        if not calls:
            return []
        function = self.frame.node if self.frame is not None else None
        if not isinstance(function, cst.FunctionDef):
            return list(calls)
        memo = self.__dict__.setdefault("_rebound_memo", {})
        known = memo.get(id(function))
        if known is None or known[0] is not function:
            known = memo[id(function)] = (function, _rebound_parameters(function))
        rebound = known[1]
        if not rebound:
            return list(calls)
        return [{name: value for name, value in values.items() if name not in rebound} for values in calls]

    def first_operand_interval(self, test: cst.BaseExpression) -> bool:
        """``if completed_steps % checkpointing_steps == 0 and avg_loss < 4.0:``: ``and`` evaluates
        what follows its first operand only when that holds, so an interval test there (rules.md
        "An interval") makes the rest run every N steps, not every step (iVideoGPT's checkpointing
        test, holdout138; R106)."""
        if not (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And)):
            return False
        first = test
        while isinstance(first, cst.BooleanOperation) and isinstance(first.operator, cst.And):
            first = first.left
        return self._tests_step_interval(first, frozenset())

    def first_operand_closed(self, test: cst.BaseExpression) -> bool:
        """``if error_if_nonfinite and torch.logical_or(norm.isnan(), norm.isinf()):`` in a step body
        whose every per-step call leaves the parameter false (handed a literal, or left at its
        literal default): ``and`` stops at its first operand, and nothing after it is evaluated in a
        step (R40 for the operands of an ``and``, R56)."""
        if not (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And)):
            return False
        bodies = getattr(self.facts, "step_bodies", None)
        if bodies is None or self.step_body() is None:
            return False
        calls = self._per_step_values()
        if not calls:
            return False
        first = test
        while isinstance(first, cst.BooleanOperation) and isinstance(first.operator, cst.And):
            first = first.left
        return all(_evaluate(first, values) is False for values in calls)

    def _tests_interval_property(self, test: cst.BaseExpression) -> bool:
        """``if self.is_active:`` where ``is_active`` is a property of the class around whose every
        ``return`` is an interval test (matsciml's callbacks: ``return (self.batch_idx %
        self.update_freq) == 0``, holdout66): the test is that interval, written once."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._tests_interval_property(test.left) or self._tests_interval_property(test.right)
        if not (isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) and test.value.value == "self"):
            return False
        qualname = self.function_qualname()
        if not qualname or "." not in qualname:
            return False
        # (the file's ast: a unit the walk parses may be one method, without its class)
        properties = self.facts.derived("interval_properties", lambda tree, table: interval_properties(tree))
        return (qualname.rpartition(".")[0], test.attr.value) in properties

    def interval_names_of(self, loop: Block) -> FrozenSet[str]:
        """The names holding interval tests that a test inside ``loop`` may read (_interval_names)."""
        return self._interval_names(loop, frozenset())

    def _interval_names(self, loop: Block, outer_counters: FrozenSet[str]) -> FrozenSet[str]:
        """Names holding interval tests: assigned in the loop's body, or in the function around it
        (lightweight-gan's ``apply_gradient_penalty = self.steps % 4 == 0`` before its
        accumulation loop; every assignment of the name in the function must be such a test)."""
        known = self._interval_names_of.get(id(loop.node))
        if known is None:
            known = syntax.interval_names(loop.node.body, outer_counters)
            function = self.frame.node
            if isinstance(function, cst.FunctionDef) and loop.kind != BODY:
                # one walk of the function per set of outer counters, not one per loop of it
                key = (id(function), outer_counters)
                around = self._interval_names_of.get(key)
                if around is None:
                    around = self._interval_names_of[key] = syntax.interval_names(function.body, outer_counters)
                known = known | around
            self._interval_names_of[id(loop.node)] = known
        return known


def _calls_manual_backward(body) -> bool:
    """``self.manual_backward(loss)`` in ``body`` (Lightning's manual optimisation: each pass that
    runs it is a step of its own, rl4co's active search)."""
    return any(isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
               and node.func.attr.value == "manual_backward"
               for node in descendants(body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))))


# A step or batch counter by name, for a call handed it in a loop (Context._hands_counter).
_STEP_COUNTER = re.compile(
    r"^(?:\w*steps?|idx|\w*_idx|\w*batch_i|iters?|iteration|\w*_iters?|\w*_iteration|num_updates|\w*_updates?)$",
    re.I)


def _binds_only_displays(function: cst.CSTNode, name: str) -> bool:
    """Does ``function`` bind ``name`` only with plain assignments of tuple or list displays, or of
    such displays added to the name itself (muse-maskgit's ``vaes = ((self.vae, ...),)`` then, under
    ``if self.use_ema:``, ``vaes = ((ema_model, ...),) + vaes``): a few things written out?"""
    if not isinstance(function, cst.FunctionDef):
        return False

    def display(value) -> bool:
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
            return display(value.left) and display(value.right)
        return isinstance(value, (cst.Tuple, cst.List)) or (isinstance(value, cst.Name) and value.value == name)

    values = []
    for node in descendants(function.body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))):
        if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                for t in node.targets):
            if len(node.targets) != 1:
                return False
            values.append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.With, cst.NamedExpr)):
            target = node.target if not isinstance(node, cst.With) else None
            names = [n.value for n in descendants(target) if isinstance(n, cst.Name)] if target is not None else []
            if name in names or (isinstance(node, cst.With) and any(
                    item.asname is not None and any(isinstance(n, cst.Name) and n.value == name
                                                    for n in descendants(item.asname.name)) for item in node.items)):
                return False
    return bool(values) and all(display(value) for value in values)


def _not_taken(block: Block, calls) -> bool:
    """Does no per-step call take this branch of an ``if`` on a parameter (``if reduction ==
    "mean":``), by the literal arguments of each call (step_bodies.per_step_arguments)?"""
    for values in calls:
        result = _evaluate(block.node.test, values)
        if result is None:
            return False
        if result == (block.body is block.node.body):
            return False  # this call takes the branch
    return True


def _rebound_parameters(function: cst.FunctionDef) -> FrozenSet[str]:
    """The parameters ``function`` binds again in its own body (the twin of
    project_index._rebound_parameters: a conversion of the parameter to a number keeps its value)."""
    params = set(syntax.parameter_names(function.params))
    found = set()
    for node in descendants(function.body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda))):
        targets = ()
        if isinstance(node, cst.Assign):
            value = node.value
            keeps = (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                     and value.func.value in VALUE_KEEPING_CONVERSIONS and len(value.args) == 1
                     and isinstance(value.args[0].value, cst.Name) and len(node.targets) == 1
                     and isinstance(node.targets[0].target, cst.Name)
                     and value.args[0].value.value == node.targets[0].target.value)
            targets = () if keeps else tuple(t.target for t in node.targets)
        elif isinstance(node, cst.AugAssign):
            targets = (node.target,)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            targets = (node.target,)
        elif isinstance(node, cst.For):
            targets = (node.target,)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets = (node.asname.name,)
        elif isinstance(node, cst.NamedExpr):
            targets = (node.target,)
        elif isinstance(node, cst.Del):
            targets = (node.target,)
        for target in targets:
            found.update(name for name in syntax.assigned_names(target) if name in params)
    return frozenset(found)


def _taken_every_call(test: cst.BaseExpression, calls) -> bool:
    """Is ``test`` an ``or`` one of whose operands holds, by its literal arguments, for some per-step
    call (``if self.train_step % self.iter_log == 0 or not is_train:`` in a callback that
    segcontrast's ``validation_step`` hands ``is_train=False``, holdout133)? For that call the branch
    runs every time, whatever the interval operand says: no interval (R97)."""
    # (_evaluate reads ``a or b`` as Python does: true when either operand is, whatever the other)
    return (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or)
            and any(_evaluate(test, values) is True for values in calls))


_UNKNOWN = object()


def _literal_of(expr: cst.BaseExpression):
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    if _names_infinity(expr):
        return float("inf")  # ``if norm_type == inf:`` (Megatron's ``clip_grad_norm`` copies; R89)
    if isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)):
        try:
            return ast.literal_eval(expr.value)
        except (ValueError, SyntaxError):
            return _UNKNOWN
    return _UNKNOWN


def _names_infinity(expr: cst.BaseExpression) -> bool:
    """``inf``, ``math.inf``/``torch.inf``/``np.inf``, ``float("inf")``: the twin of
    project_index._names_infinity."""
    if isinstance(expr, cst.Name):
        return expr.value == "inf"
    if isinstance(expr, cst.Attribute):
        return (expr.attr.value == "inf" and isinstance(expr.value, cst.Name)
                and expr.value.value in ("math", "torch", "np", "numpy"))
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "float"
            and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star
            and isinstance(expr.args[0].value, cst.SimpleString)
            and expr.args[0].value.evaluated_value in ("inf", "Infinity"))


def _evaluate(test: cst.BaseExpression, values) -> Optional[bool]:
    """The truth of a test on parameters with known literal values; None when it cannot be told."""
    if isinstance(test, cst.Name):
        return bool(values[test.value]) if test.value in values else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _evaluate(test.expression, values)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        # As Python reads them: ``a and b`` is false when either side is (R57: the body of ``if
        # debug and loss.isnan():`` runs in no step whose call leaves ``debug`` false), true when
        # both are; ``a or b`` is true when either side is, false when both are.
        left, right = _evaluate(test.left, values), _evaluate(test.right, values)
        if isinstance(test.operator, cst.And):
            return False if False in (left, right) else True if left is right is True else None
        return True if True in (left, right) else False if left is right is False else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name):
        if test.left.value not in values:
            return None
        left, target = values[test.left.value], test.comparisons[0]
        right = _literal_of(target.comparator)
        if right is _UNKNOWN:
            return None
        if isinstance(target.operator, cst.Equal):
            return left == right
        if isinstance(target.operator, cst.NotEqual):
            return left != right
        if isinstance(target.operator, cst.Is) and right is None:
            return left is None
        if isinstance(target.operator, cst.IsNot) and right is None:
            return left is not None
    return None


_CONTAINER_ADDS = frozenset({"update", "append", "extend", "insert", "setdefault"})


def _stored_name(target: cst.BaseExpression) -> Optional[str]:
    """The name an assignment stores into: ``x`` of ``x = ...`` and of ``x[key] = ...``."""
    if isinstance(target, cst.Subscript):
        target = target.value
    return target.value if isinstance(target, cst.Name) else None


def _returned_names(function: cst.CSTNode) -> FrozenSet[str]:
    """Names a function returns, alone or as items of a returned dict, list or tuple, also of one
    built under a name that is returned (``d_x = out.mean().item()``; ``metrics = {"D_x": d_x}``;
    ``return metrics``: the Ignite dcgan template), through a few such names."""
    names = set()
    built = []  # (name, items of the dict, list or tuple literal it is bound to)
    made = []  # (name, containers it is made from), resolved against ``built`` below
    # bodies of ``if flag:`` on a flag the framework never hands (R49): walked only where one exists
    closed = {id(n.body) for n in descendants(function.body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))
              if isinstance(n, cst.If) and _closed_by_default(n, function)} if _default_off_flags(function) else set()
    for node in descendants(function.body, prune=lambda n: isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
                            or id(n) in closed):
        if isinstance(node, cst.Return) and node.value is not None:
            names.update(_item_names(node.value))
        elif isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            target, value = node.targets[0].target.value, node.value
            if isinstance(value, (cst.Dict, cst.List, cst.Tuple)):
                built.append((target, _item_names(value)))
            elif isinstance(value, (cst.DictComp, cst.ListComp)):
                # ``metrics_return = {k: torch.tensor(v) for k, v in metrics_log.items()}``
                made.append((target, {_iterated_name(f.iter) for f in _for_clauses(value.for_in)} - {None}))
            elif isinstance(value, cst.Call):
                # ``tf_log = tf_log_convert(metrics_log)``: a container handed to a converter
                made.append((target, {a.value.value for a in value.args if isinstance(a.value, cst.Name)}))
        elif (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "update"
              and isinstance(node.func.value, cst.Name) and len(node.args) == 1):
            # ``metrics_return.update({"log": tf_log, ...})``: more items of a container
            built.append((node.func.value.value, _item_names(node.args[0].value)))
    containers = {name for name, _ in built}
    built += [(name, sources & containers) for name, sources in made]
    for _ in range(3):
        grown = {item for name, items in built if name in names for item in items} - names
        if not grown:
            break
        names |= grown
    return frozenset(names)


# Parameters a framework hands its step methods itself (the HF Trainer's ``compute_loss(model,
# inputs, num_items_in_batch=...)``, Lightning's ``dataloader_idx``): a branch on one of them may run
# on the framework's path. Not ``return_outputs``: the Trainer's ``training_step`` leaves it False, and
# only its evaluation (``prediction_step``) asks for the outputs, so a return under ``if
# return_outputs:`` hands nothing back in the training steps that build it (LLaVA-MoD's DPO metrics,
# holdout143; R113 revises R49 there).
_FRAMEWORK_PASSED = frozenset(("num_items_in_batch", "prediction_loss_only", "ignore_keys",
                               "dataloader_idx", "optimizer_idx"))


def _closed_by_default(branch: cst.If, function: cst.CSTNode) -> bool:
    """Is ``branch`` an ``if flag:`` on a parameter of ``function`` that defaults to ``False`` or
    ``None`` and that no framework hands (``if return_metrics: return loss_metrics`` in an HF
    ``compute_loss``)? When the framework calls the step, its body does not run (R49; R40 reads the
    same of a branch a call's literal arguments close)."""
    test = branch.test
    return isinstance(test, cst.Name) and test.value in _default_off_flags(function)


def _default_off_flags(function: cst.CSTNode) -> FrozenSet[str]:
    """Parameters of ``function`` that default to ``False`` or ``None`` and that no framework hands."""
    if not isinstance(function, cst.FunctionDef):
        return frozenset()
    params = function.params
    return frozenset(p.name.value for p in list(params.params) + list(params.kwonly_params)
                     if isinstance(p.default, cst.Name) and p.default.value in ("False", "None")
                     and p.name.value not in _FRAMEWORK_PASSED)


def _for_clauses(clause):
    while clause is not None:
        yield clause
        clause = clause.inner_for_in


def _iterated_name(iterable: cst.BaseExpression) -> Optional[str]:
    """``d`` of ``for ... in d``, ``d.items()``, ``d.values()``."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args and \
            iterable.func.attr.value in ("items", "values"):
        iterable = iterable.func.value
    return iterable.value if isinstance(iterable, cst.Name) else None


def _item_names(value: cst.BaseExpression) -> Set[str]:
    """The value itself when it is a name, or the names that are items of a dict, list or tuple."""
    items = [value]
    if isinstance(value, cst.Dict):
        items = [e.value for e in value.elements if isinstance(e, cst.DictElement)]
    elif isinstance(value, (cst.List, cst.Tuple)):
        items = [e.value for e in value.elements]
    return {item.value for item in items if isinstance(item, cst.Name)}


def compile_text_tests(tests: Sequence[Union[str, Tuple[str, ...]]]) -> Callable[[str], bool]:
    """One function that is True when every test passes on a text: a tuple of strings passes when
    one of them occurs in it (an ``in`` test), a string is a regex that must match somewhere."""
    namespace: Dict[str, object] = {}
    clauses = []
    for index, test in enumerate(tests):
        if isinstance(test, tuple):
            clauses.append("(" + " or ".join(f"{literal!r} in text" for literal in test) + ")")
        else:
            namespace[f"search{index}"] = re.compile(test).search
            clauses.append(f"search{index}(text) is not None")
    code = f"def text_tests(text):\n    return {' and '.join(clauses) or 'True'}\n"
    exec(compile(code, f"<prefilter {tests!r:.60}>", "exec"), namespace)
    function = namespace["text_tests"]
    function.compiled_prefilter = True
    return function


class Rule:
    """Base of every rule: catalog data, message, prefilter and node handlers.

    A rule handles nodes with ``visit_<NodeType>(self, node)`` / ``leave_<NodeType>(self, node)``
    and reports with ``self.report(node, ...)``. One instance per analysed file.
    """

    code: str = ""
    message: str = ""
    # Tests that must all pass on a unit's text for the unit to be worth parsing for this rule, and
    # on the file's text (for module-level conditions, such as TPL104's pinned loader, which
    # usually sits outside the unit holding the loop). A test is a regex, or a tuple of strings
    # one of which must occur: ``in`` runs at memory speed where a regex that starts with an
    # alternation or ``\b`` tries every position, so a tuple of what the regex cannot match
    # without goes before it.
    prefilter: Tuple[Union[str, Tuple[str, ...]], ...] = ()
    file_prefilter: Tuple[Union[str, Tuple[str, ...]], ...] = ()
    # True for a rule that reports only inside a ``for``/``while`` of the unit (its checks start
    # from ctx.innermost_loop / step_loop): the engine parses no unit without one for it.
    needs_loop: bool = False
    # True for a rule that reports only inside a step loop (ctx.in_step_loop / current_step_loop):
    # the engine parses no unit whose ast holds no loop that can be one
    # (step_loops.ModuleSteps.may_hold_step_loop). Implies needs_loop.
    needs_step_loop: bool = False
    # The canonical names of the only callees the rule reports at (TPL501: ``DataLoader(...)``):
    # the default ``ast_may_match`` leaves out units whose ast holds no call that may be one.
    reports_at_calls_to: FrozenSet[str] = frozenset()
    # Fixit-style examples: flagged lines carry a trailing ``# TPLxxx`` comment.
    VALID: Tuple[str, ...] = ()
    INVALID: Tuple[str, ...] = ()
    # (source, source after the safe and unsafe fixes) pairs, run as tests.
    FIXES: Tuple[Tuple[str, str], ...] = ()
    # Docs, in ruff's order (rendered by docs.py).
    WHY = ""
    EXAMPLE = ""
    USE_INSTEAD = ""
    FIX_NOTE = ""
    REFERENCES: Tuple[str, ...] = ()

    def __init__(self, ctx: Context, sink: list):
        self.ctx = ctx
        self._sink = sink

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # The text prefilters run for every unit of every torch file against every rule: one
        # generated function per rule (its tests inlined) instead of a generator over closures.
        if "may_match" not in cls.__dict__ and getattr(cls.may_match, "compiled_prefilter", False):
            cls.may_match = staticmethod(compile_text_tests(cls.prefilter))
        if "file_may_match" not in cls.__dict__:
            cls.file_may_match = staticmethod(compile_text_tests(cls.file_prefilter))

    # ``may_match(text)``: do the ``prefilter`` tests all pass on a unit's text? A rule may define
    # its own (TPL102); ``file_may_match(source)``: the same for ``file_prefilter``.
    may_match = staticmethod(compile_text_tests(()))
    file_may_match = staticmethod(compile_text_tests(()))

    @classmethod
    def may_match_in_step_body(cls, text: str) -> bool:
        """``may_match`` for a unit read as holding a step body (the engine adds the loop words): a
        rule whose prefilter also guesses where tensors are may relax that guess there, since a
        step body is known to run every step (TPL102)."""
        return cls.may_match(text)

    @classmethod
    def ast_may_match(cls, unit: "UnitAst") -> bool:
        """A second prefilter, on the unit's ast (ast_scan.UnitAst), for units whose text passed
        ``may_match``: False only where the rule can find nothing in the unit, which libcst then
        never parses."""
        if cls.reports_at_calls_to:
            return bool(unit.calls_to(cls.reports_at_calls_to))
        return True

    def report(self, node: cst.CSTNode, message: Optional[str] = None, fix=None) -> None:
        message = message or self.message
        related = ()
        if self.needs_step_loop:
            # A finding in a function that runs every step because others call it says who does.
            ctx = self.ctx
            loop = ctx.current_step_loop()
            chain = ctx.step_chain() if loop is not None else None
            if chain is not None and (chain.hops or chain.performs) and (loop.kind == BODY or not ctx.steps.is_intrinsic(loop.node)):
                project = ctx.facts.step_bodies.project
                message = f"{message} ({chain.describe(project)})"
                related = chain.related(project)
        self._sink.append((self.code, node, message, fix, related))

    def torch_has(self, api: str) -> bool:
        """Whether the project's target torch (shared/rules.md "Target torch") has ``api``, which
        this finding's remedy or fix writes (catalog.API_FLOORS): when not, it is not reported."""
        return torch_has(self.ctx.facts.target_torch, api)


_HANDLER_NAMES: Dict[Tuple[type, str], List[Tuple[type, str]]] = {}


def _handlers(rule: Rule, prefix: str) -> Dict[type, Callable]:
    names = _HANDLER_NAMES.get((type(rule), prefix))
    if names is None:  # dir() of a rule class costs more than a small unit's walk: once per class
        names = []
        for attr in dir(type(rule)):
            if attr.startswith(prefix):
                node_type = getattr(cst, attr[len(prefix) :], None)
                if isinstance(node_type, type):
                    names.append((node_type, attr))
        _HANDLER_NAMES[(type(rule), prefix)] = names
    return {node_type: getattr(rule, attr) for node_type, attr in names}


_TRACKED = frozenset(
    (cst.Import, cst.ImportFrom, cst.FunctionDef, cst.ClassDef, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Call)
)
# Parents whose children _enter may put in a block or frame (or bind, for a ``for`` target).
_STRUCTURAL = frozenset(
    (cst.For, cst.While, cst.If, cst.ExceptHandler, cst.ExceptStarHandler, cst.With, cst.FunctionDef,
     cst.Lambda, cst.ClassDef)
)
# Nodes that never hold code-bearing children (their fields are strings and punctuation). Below a
# non-structural parent, with no rule handling the type, walking one changes nothing: skipped.
_CHILDLESS = frozenset(
    (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis, cst.Pass,
     cst.Break, cst.Continue)
)


class Walker:
    """Keeps the Context up to date and calls the rules' handlers, in one pass over the tree."""

    def __init__(self, ctx: Context, rules: List[Rule]):
        self.ctx = ctx
        self.visit_handlers: Dict[type, List[Callable]] = {}
        self.leave_handlers: Dict[type, List[Callable]] = {}
        for rule in rules:
            for node_type, handler in _handlers(rule, "visit_").items():
                self.visit_handlers.setdefault(node_type, []).append(handler)
            for node_type, handler in _handlers(rule, "leave_").items():
                self.leave_handlers.setdefault(node_type, []).append(handler)
        self._skipped = _CHILDLESS - set(self.visit_handlers) - set(self.leave_handlers)

    def walk(self, node: cst.CSTNode, parent: Optional[cst.CSTNode] = None, field: str = "") -> None:
        ctx = self.ctx
        undo = self._enter(node, parent, field) if type(parent) in _STRUCTURAL else None
        ctx.stack.append(node)
        node_type = type(node)
        handlers = self.visit_handlers.get(node_type)
        if handlers is not None:
            for handler in handlers:
                handler(node)
        children = child_nodes(node)
        if children:
            skipped = self._skipped if node_type not in _STRUCTURAL else ()
            for child_field, child in children:
                if type(child) not in skipped:
                    self.walk(child, node, child_field)
        handlers = self.leave_handlers.get(node_type)
        if handlers is not None:
            for handler in handlers:
                handler(node)
        if node_type in _TRACKED:
            self._track_values(node)
        ctx.stack.pop()
        if undo is not None:
            undo()

    # ---- structure -----------------------------------------------------------------------------
    def _push_block(self, block: Block) -> Callable:
        blocks = self.ctx.frame.blocks
        blocks.append(block)
        return blocks.pop

    def _push_frame(self, node: cst.CSTNode) -> Callable:
        ctx = self.ctx
        outer = ctx.frame
        ctx.frame = Frame(node, outer)

        def pop() -> None:
            ctx.frame = outer

        return pop

    def _enter(self, node: cst.CSTNode, parent: cst.CSTNode, field: str) -> Optional[Callable]:
        parent_type = type(parent)
        if parent_type is cst.For:
            if field == "body":
                return self._push_block(Block(LOOP, parent))
            if field == "target":
                for name in syntax.assigned_names(node):
                    self.ctx.frame.bindings[name] = None
                self.ctx.values.bind_loop_target(parent)
        elif parent_type is cst.While:
            if field == "test" or field == "body":
                return self._push_block(Block(LOOP, parent))
        elif parent_type is cst.If:
            if field == "body" or field == "orelse":
                return self._push_block(Block(IF, parent, node))
        elif parent_type is cst.ExceptHandler or parent_type is cst.ExceptStarHandler:
            if field == "body":
                return self._push_block(Block(EXCEPT, parent))
        elif parent_type is cst.With:
            if field == "body":
                return self._push_block(Block(WITH, parent))
        elif parent_type is cst.FunctionDef or parent_type is cst.Lambda:
            if field == "body":
                undo = self._push_frame(parent)
                for name in syntax.parameter_names(parent.params):
                    self.ctx.bind(name)
                if parent_type is cst.FunctionDef:
                    self._bind_host_parameters(parent)
                return undo
        elif parent_type is cst.ClassDef and field == "body":
            return self._push_frame(parent)
        return None

    def _bind_host_parameters(self, function: cst.FunctionDef) -> None:
        """A step body's parameters that every per-step call hands a host value (a Python number:
        ``metric_logger.update(loss=loss.item())``) are host values in its body (rules.md "Where a
        value lives": the value's place comes from the caller's argument)."""
        bodies = getattr(self.ctx.facts, "step_bodies", None)
        if bodies is None:
            return
        qualname = self.ctx.function_qualname()
        moved = bodies.moved_batch_parameter(bodies.module.path, qualname)
        if moved is not None:
            self.ctx.values.bind_moved_batch(moved)
        host = bodies.host_parameters(qualname)
        # a batch or tensor on the host (R14): what is read from it stays there
        values = bodies.host_value_parameters(qualname) - host
        # ... of which a loader that pins memory hands out (R155): its copies are TPL104's
        pinned = bodies.pinned_parameters(qualname) - host
        # ... and, asked of return_kinds only when a rule reads it, what the callers' arguments are
        # by what project callees return (``arr = to_numpy(pred)`` then ``vis(arr)``)
        passed = bool(bodies.per_step_call_sites(qualname))
        if not host and not values and not passed and not pinned:
            return
        params = function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.name.value in host:
                self.ctx.values.bind_host(param.name.value)
            elif param.name.value in pinned:
                self.ctx.values.bind_pinned_batch(param.name.value)
            elif param.name.value in values:
                self.ctx.values.bind_host_batch(param.name.value)
            elif passed:
                self.ctx.values.bind_passed(param.name.value, qualname)
        for star, key in ((params.star_arg, "*"), (params.star_kwarg, "**")):
            if isinstance(star, cst.Param) and key in host:
                self.ctx.values.bind_host(star.name.value)

    # ---- bindings and value kinds ----------------------------------------------------------------
    def _track_values(self, node: cst.CSTNode) -> None:
        node_type = type(node)
        if node_type not in _TRACKED:
            return
        ctx = self.ctx
        if node_type is cst.Call:
            # ``loss.backward()`` tells us ``loss`` is a tensor, wherever it came from. Not
            # ``accelerator.backward(loss)``: an engine (accelerate, Fabric, DeepSpeed) takes the
            # loss as an argument, so a positional argument says nothing about the receiver.
            func = node.func
            if (type(func) is cst.Attribute and func.attr.value == "backward"
                    and not any(a.keyword is None for a in node.args)):
                receiver = func.value
                if (type(receiver) is cst.Call and type(receiver.func) is cst.Attribute
                        and receiver.func.attr.value == "scale" and len(receiver.args) == 1
                        and receiver.args[0].keyword is None and not receiver.args[0].star):
                    receiver = receiver.args[0].value  # ``scaler.scale(loss_bp).backward()``: the loss (R197)
                if type(receiver) is cst.Name:
                    ctx.values.hint_tensor(receiver.value)
                elif type(receiver) is cst.Subscript:
                    ctx.values.hint_tensor_item(receiver)
        elif node_type is cst.Import or node_type is cst.ImportFrom:
            for name, qualname in syntax.import_bindings(node):
                ctx.bind(name, qualname)
        elif node_type is cst.FunctionDef or node_type is cst.ClassDef:
            ctx.bind(node.name.value)
        elif node_type is cst.AugAssign:
            for name in syntax.assigned_names(node.target):
                ctx.frame.bindings[name] = None
            ctx.values.bind_augmented(node)
        else:
            value = node.value
            if value is None:
                return
            targets = [t.target for t in node.targets] if node_type is cst.Assign else [node.target]
            frame = ctx.frame
            instance = None
            if isinstance(value, cst.Call):
                qual = ctx.qualname(value.func)
                if is_torch_name(qual) and qual.rsplit(".", 1)[-1][:1].isupper():
                    instance = qual
            alias = ctx.qualname(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
            for target in targets:
                for name in syntax.assigned_names(target):
                    frame.bindings[name] = alias if is_torch_name(alias) else None
                    if instance:
                        frame.torch_instances[name] = instance
                    else:
                        frame.torch_instances.pop(name, None)
                if node_type is cst.AnnAssign and type(target) is cst.Name and _names_no_tensor(
                        node.annotation.annotation):
                    # ``aggregator: MetricAggregator = hydra.utils.instantiate(...).to(device)``: the
                    # annotation says what the value is, whatever ``.to(device)`` suggests (sheeprl)
                    ctx.values.bind_host(target.value)
                else:
                    ctx.values.bind_target(target, value)


# The words of an annotation that may name a tensor, a container of tensors, a model or a batch
# object (``Tensor``, ``Optional[torch.Tensor]``, ``Dict[str, Tensor]``, ``nn.Module``, ``Data``):
# an annotation with one says nothing of where the value lives.
_MAY_HOLD_TENSORS = re.compile(r"Tensor|Module|Model|Net|Parameter|Any|Dict|List|Tuple|Sequence|Mapping|Iter|"
                               r"Union|Callable|Batch|Output|Data|Array|Type|Var|Sample|State|Buffer|Storage")
_HOST_BUILTINS = frozenset(("int", "float", "bool", "str", "complex", "bytes"))


def _names_no_tensor(annotation: cst.BaseExpression) -> bool:
    """Does ``annotation`` name a Python number or string, or a class whose name cannot be a
    tensor's, a container's or a model's (``MetricAggregator``, ``X | None``, ``Optional[X]``)?"""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        parts = [annotation.left, annotation.right]
    elif (isinstance(annotation, cst.Subscript) and syntax.last_identifier(annotation.value) == "Optional"
          and len(annotation.slice) == 1 and isinstance(annotation.slice[0].slice, cst.Index)):
        parts = [annotation.slice[0].slice.value]
    else:
        parts = [annotation]
    named = False
    for part in parts:
        if isinstance(part, cst.Name) and part.value == "None":
            continue
        if not isinstance(part, (cst.Name, cst.Attribute)):
            return False
        name = syntax.last_identifier(part) or ""
        dotted = syntax.dotted_name(part) or ""
        if name in _HOST_BUILTINS and isinstance(part, cst.Name):
            named = True
            continue
        if not name[:1].isupper() or _MAY_HOLD_TENSORS.search(name) or dotted.split(".", 1)[0] in ("torch", "nn"):
            return False
        named = True
    return named


def walk(module: cst.Module, ctx: Context, rules: List[Rule]) -> None:
    Walker(ctx, rules).walk(module)


def mode_of_a_name(item: cst.BaseExpression) -> bool:
    """``set_grad_enabled(train)`` / ``set_grad_enabled(mode=self.training)``: a mode the code decides."""
    if not (isinstance(item, cst.Call) and syntax.last_identifier(item.func) == "set_grad_enabled" and item.args):
        return False
    value = item.args[0].value
    return isinstance(value, cst.Attribute) or (isinstance(value, cst.Name) and value.value not in ("True", "False", "None"))
