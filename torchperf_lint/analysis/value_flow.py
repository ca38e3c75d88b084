"""Where a value lives (the spec's "Where a value lives"): numpy, a Python value, a CPU tensor, a
batch from a data loader not yet moved, or possibly on the device.

The walk records each binding of a name (assignment, tuple unpacking, ``for`` target, augmented
assignment, parameter) as it passes, in a chain per frame, and nothing more. What a binding holds
is worked out only when a rule asks about a value, from the expression and the bindings that were in
effect when it was made, and then remembered. A value of unknown origin counts as possibly on the
device; an ``isinstance(x, torch.Tensor)`` guard says nothing about where ``x`` lives.
"""

from __future__ import annotations

import re
import weakref
from typing import FrozenSet, Optional, Tuple

import libcst as cst

from .host_distributions import TENSOR_METHODS as DISTRIBUTION_METHODS
from .host_distributions import is_distribution_class
from .host_distributions import parameter_values as distribution_parameters
from .names import is_torch_name
from .step_loops import is_iterating_wrapper, is_model_name
from .tensor_uses import names_called, names_used_as_tensors
from .tree import descendants, reads_name
from .cpu_attributes import cpu_tensor_attributes, numpy_attributes
from .metric_states import tensor_states
from .return_kinds import ReturnKinds, at_call
from .syntax import (device_kind, dotted_name, has_double_splat, is_loss_collection_name, is_loss_function_name,
                     keyword, last_identifier, positional,
                     string_value)
# The kinds (value_kinds.py), named here too: the rules read them as ``value_flow.DEVICE``.
from .value_kinds import (BATCH, BATCHES, CONTAINER, CPU_TENSOR, DEVICE, HOST, HOST_TENSORS,  # noqa: F401
                          LEGACY_CONSTRUCTORS, MOVED_BATCH, NUMPY, PINNED_BATCH, PYTHON, TENSORS, UNKNOWN,
                          UNPINNED_BATCH, Shape, collapse, combine, either, is_output_field, item_shape)

# torch.X functions that do not return a tensor.
_NON_TENSOR_TORCH = frozenset(
    "device dtype no_grad enable_grad inference_mode set_grad_enabled manual_seed seed initial_seed "
    "compile save load numel typename get_default_dtype autocast Generator Size equal allclose "
    "is_nonzero is_same_size result_type can_cast promote_types".split()
)
_PYTHON_TORCH = frozenset("numel typename equal allclose is_nonzero is_same_size can_cast".split())
# Factories that build a tensor on the CPU unless given ``device=``.
CPU_FACTORIES = frozenset(
    "tensor as_tensor from_numpy zeros ones empty full arange linspace logspace eye rand randn "
    "randint randperm normal zeros_like ones_like empty_like full_like rand_like randn_like "
    "randint_like bernoulli multinomial".split()
)
_TENSOR_NAMESPACES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
# torch functions whose one tensor parameter is the first (``input``): the rest are sizes, dims,
# modes and Python numbers (``F.pad(preds, (0, n), "constant", self.pad_token_id)``: the fill value
# is a float whatever name holds it). Their result lives where the first argument does, so an
# argument of unknown kind after it says nothing of the place (nougat's token accuracy, R163).
_FIRST_TENSOR_ONLY = frozenset(
    "torch.nn.functional.pad torch.nn.functional.one_hot torch.nn.functional.softmax "
    "torch.nn.functional.log_softmax torch.nn.functional.normalize torch.nn.functional.dropout "
    "torch.nn.functional.interpolate torch.flatten torch.transpose torch.permute torch.squeeze "
    "torch.unsqueeze torch.roll torch.flip torch.cumsum torch.topk torch.argmax torch.argmin "
    "torch.softmax torch.log_softmax torch.chunk torch.split torch.reshape".split()
)
# Tensor methods that return a Python value (the ``is_*`` questions read the tensor's metadata, not
# its data: no wait; minimind's ``x.detach().clone() if x.is_inference() else x``, R81).
_PYTHON_METHODS = frozenset(
    "item tolist size dim ndimension numel nelement element_size data_ptr stride is_contiguous "
    "is_floating_point is_complex is_inference is_pinned is_shared is_signed get_device equal __len__ keys".split()
)
# Methods that return something that is not a tensor (nor a Python value worth knowing).
_OTHER_METHODS = frozenset("backward register_hook storage untyped_storage values items".split())
# Collectives of an engine (accelerate's ``accelerator.gather_for_metrics((preds, labels))``): what
# a device tensor gives back is on the device, one result per tensor of a tuple. Nothing they give
# back is known to be on the host (an NCCL group gathers onto the GPU).
_GATHERS = frozenset("gather gather_for_metrics reduce pad_across_processes".split())
# (``values``/``indices``: the fields of what ``topk``, ``max(dim)``, ``sort`` return)
_TENSOR_ATTRIBUTES = frozenset(("grad", "data", "T", "mT", "H", "real", "imag", "values", "indices"))
_PYTHON_ATTRIBUTES = frozenset(("shape", "ndim", "dtype", "device", "is_cuda", "requires_grad", "is_leaf",
                                "is_sparse", "is_quantized", "is_meta"))
# Fields of a tensor or of a moved batch object that hold no tensor: a tensor's metadata, and counts,
# sizes and names (``batch.num_graphs``, ``batch.batch_size``, ``batch.keys``).
# (``cl_total_num``: RecFormer's output dataclass holds the batch size there, a Python int)
_NOT_TENSOR_FIELD = re.compile(
    r"^(?:layout|is_\w+|grad_fn|names?|itemsize|nbytes|output_nr|_\w+|keys|num_\w+|n_\w+|"
    r"\w*_(?:size|len|length|count|num|names?|keys|paths?|str|text)|size|len|length|count|stride|storage)$")
# Keys of a batch dict that name what the samples are rather than hold their data: file names,
# platforms, prompts and captions, the task or split (clay-model's ``batch["platform"][0]`` formatted
# into a metric's name, holdout142): not read as tensors of a moved batch (R152).
_METADATA_KEY = re.compile(
    r"(?:^|_)(?:platforms?|names?|paths?|files?|filenames?|split|mode|task|types?|lang|language|texts?|captions?|"
    r"prompts?|sources?|dataset|domain|urls?|meta|metadata|infos?|strings?|str)$")
# The tensor fields of a model's output object (transformers' ModelOutput): ``model(**batch).logits``.
_PYTHON_BUILTINS = frozenset("float int bool len str round repr range format hash id ord chr isinstance".split())
_CONTAINER_BUILTINS = frozenset("list tuple dict set sorted".split())
_BUILTINS = _PYTHON_BUILTINS | _CONTAINER_BUILTINS | {"next"}
_PYTHON_MODULES = ("math.", "random.", "time.", "os.", "json.", "re.")
_COPIES = frozenset(("copy.deepcopy", "copy.copy"))
# The standard library's containers: made on the host, their items unknown (a dict of lists keyed
# by ids: ``embeddings = collections.defaultdict(list)``).
_CONTAINER_CALLS = frozenset(("collections.defaultdict", "collections.OrderedDict", "collections.Counter",
                              "collections.deque"))
# Methods that hand back an object's own module kind, not a new tensor (``Net().to(device).eval()``).
_MODULE_CHAIN = frozenset("to cuda cpu eval train half float double bfloat16 requires_grad_".split())
# Tensor methods that no numpy array or Python value has (``.norm(dim=-1)``, ``.detach()``,
# ``.softmax(-1)``): what they give back is a tensor, and of an operand of unknown origin possibly on
# the device (rules.md "Where a value lives"), as ``torch.norm(x)`` of the same operand is (R53).
_TENSOR_ONLY_METHODS = frozenset("norm detach softmax log_softmax sigmoid".split())
# Tests of finiteness called with no argument: a tensor's methods (numpy and ``math`` spell them as
# functions of the value, ``np.isnan(x)``): tiny-grpo's ``if not loss.isfinite():`` of a loss that a
# loss module returned (R77).
_TENSOR_TESTS = frozenset("isfinite isnan isinf isposinf isneginf".split())
# torch functions that give back the total norm of the gradients they are handed, as a tensor.
_GRADIENT_NORMS = frozenset(("nn.utils.clip_grad_norm_", "nn.utils.clip_grad_norm", "nn.utils.get_total_norm"))
# Methods of strings that no tensor has: what they give back is text (or a list of it), whatever
# the linter thought the receiver was (``pipe(messages)[0]["generated_text"].split("\n")``, R54).
_STRING_METHODS = frozenset("lower upper strip lstrip rstrip splitlines startswith endswith encode decode "
                            "casefold capitalize title".split())
# What a counter-like method gives back (``model.get_step()``, ``trainer.global_step()``): a Python
# number, not a tensor, whatever object it is called on.
_COUNTER_METHOD = re.compile(
    r"^(?:get_)?(?:global_|current_|total_|num_|cur_)?(?:step|steps|epoch|epochs|iter|iters|iteration|iterations"
    r"|updates)$")
# Module methods that give the module's tensors, one per time round a ``for`` over them.
_PARAMETER_ITERATORS = frozenset(("parameters", "named_parameters", "buffers", "named_buffers"))
_MAX_DEPTH = 60  # deeper chains of definitions count as unknown (generated code)


def _literal_item(item: cst.Subscript) -> Optional[Tuple[str, object]]:
    """(name, key) of ``name["key"]`` or ``name[0]``; None for any other subscript."""
    if type(item.value) is not cst.Name or len(item.slice) != 1:
        return None
    index = item.slice[0].slice
    if not isinstance(index, cst.Index):
        return None
    value = index.value
    if type(value) is cst.SimpleString:
        key = value.evaluated_value
    elif type(value) is cst.Integer:
        key = int(value.value) if value.value.isdigit() else None
    else:
        return None
    return None if key is None else (item.value.value, key)


class Binding:
    # No reference to its frame: the frame holds its bindings, and a cycle would keep every tree of
    # the unit alive until the cyclic garbage collector finds it. Lookups know the frame they are in.
    __slots__ = ("name", "source", "extra", "prev", "prev_same", "branches", "guards", "kind")

    def __init__(self, name, source, extra, prev, prev_same, branches, guards=()):
        self.name = name
        self.source = source  # "expr", "element", "aug", "tensor", "moved", "unknown"
        self.extra = extra  # what the source needs (the expression, the shape path...)
        self.prev = prev  # the frame's previous binding: the bindings in effect when this was made
        self.prev_same = prev_same  # the frame's previous binding of the same name
        # The ``if`` branches it was made in: id(If node) -> id(branch). None: in none.
        self.branches = branches
        # The blocks that decide whether it runs, outermost first: each ``if`` branch as
        # (id(If), id(branch)), each loop and ``except`` body as its id (``with`` bodies always run)
        self.guards = guards
        self.kind: Optional[str] = None


def _compatible(made_in, seen_from) -> bool:
    """Can a binding made in branches ``made_in`` be seen from ``seen_from``? Not from the other
    branch of the same ``if`` (``if cuda: x = x.cuda() else: x.numpy()``)."""
    if not made_in or not seen_from:
        return True
    for node, branch in made_in.items():
        other = seen_from.get(node)
        if other is not None and other != branch:
            return False
    return True


def _reaching(binding: Binding, seen_from):
    """``binding`` and the earlier bindings of its name that may reach the same place: a binding
    made in an ``if`` branch that the place is not in does not hide the one before it (``x = out.aux``,
    ``if not on: x = 0``, later ``if on: x.item()``). Stops at a binding made outside such branches,
    or once two branches of the outermost such ``if``/``else`` have each bound the name."""
    found = [binding]
    covered = {}
    while True:
        outer = [(node, branch) for node, branch in (binding.branches or {}).items()
                 if not seen_from or node not in seen_from]
        if not outer:
            return found
        for node, branch in outer:
            covered.setdefault(node, set()).add(branch)
        # (the outermost ``if`` decides: the ``elif`` and ``else`` of an inner one both binding the
        # name leave the outer ``if``'s own body, vqvae-vqgan's ``g_loss`` from an unresolved call
        # beside two ``torch.zeros(1)`` placeholders, holdout47)
        if len(covered[outer[0][0]]) > 1:
            return found
        binding = binding.prev_same
        while binding is not None and (not _compatible(binding.branches, seen_from) or _overwritten(binding, found)):
            binding = binding.prev_same
        if binding is None:
            return found
        found.append(binding)


def _overwritten(binding: Binding, later) -> bool:
    """Is ``binding`` bound again by one of the ``later`` bindings of its name whenever it runs: a
    later one made under the same blocks or fewer of them (``if chunked: out, chunk = out`` then
    ``chunk = chunk.cpu()`` in the same branch: only the copy reaches a later ``if chunked:``)?"""
    guards = binding.guards
    return any(guards[:len(other.guards)] == other.guards for other in later)


class _Env:
    """The bindings in effect when a binding was made: its frame's chain before it, seen from its
    branches."""

    __slots__ = ("head", "frame", "branches")

    def __init__(self, binding: Binding, frame):
        self.head = binding.prev
        self.frame = frame
        self.branches = binding.branches








class ValueFlow:
    """Per unit: the chains of bindings of each frame, and the kinds worked out so far."""

    def __init__(self, ctx):
        # A proxy, not the Context itself: the Context holds this object, and a reference cycle
        # would keep the unit's trees (and the module's ast, through the facts) alive until the
        # cyclic garbage collector finds them, which costs the CLI a fifth of its time.
        self.ctx = weakref.proxy(ctx)
        self._live = {}  # id(node) -> kind, for queries at the walk's current position
        self._tensor_uses = {}  # id(function) -> the names its body uses as tensors
        self._returns = None  # what project functions return (return_kinds), made on first use

    # ---- recording (called by the walker) ---------------------------------------------------
    def _branches(self):
        branches = None
        for block in self.ctx.frame.blocks:
            if block.kind == "if":
                if branches is None:
                    branches = {}
                branches[id(block.node)] = id(block.body)
        return branches

    def _add(self, name: str, source: str, extra) -> None:
        frame = self.ctx.frame
        head = frame.values.get(None)
        branches = None
        guards = ()
        for block in frame.blocks:
            kind = block.kind
            if kind == "if":
                if branches is None:
                    branches = {}
                branches[id(block.node)] = id(block.body)
                guards += ((id(block.node), id(block.body)),)
            elif kind != "with":
                guards += (id(block.node),)
        binding = Binding(name, source, extra, head, frame.values.get(name), branches, guards)
        frame.values[name] = binding
        frame.values[None] = binding
        if self._live:
            self._live.clear()

    def bind_unknown(self, name: str) -> None:
        self._add(name, "unknown", None)

    def bind_host(self, name: str) -> None:
        """A parameter that every per-step caller hands a Python value (or, for ``*args`` and
        ``**kwargs``, only Python values): what the body reads from it is on the host."""
        self._add(name, "host", None)

    def bind_host_batch(self, name: str) -> None:
        """A parameter that every per-step caller hands a value on the host that may be a batch or
        a tensor (a loader batch not moved, a ``.cpu()`` copy: argument_places, R14): like a
        batch taken from a loader, what the body reads from it stays on the host until it moves it."""
        self._add(name, "hostbatch", None)

    def bind_pinned_batch(self, name: str) -> None:
        """A parameter that every per-step caller hands a batch (or a field of one) taken from a
        loader its module makes with ``pin_memory=True`` (R155): a batch of that loader, as in the
        caller's loop."""
        self._add(name, "pinnedbatch", None)

    def bind_moved_batch(self, name: str) -> None:
        """A batch the framework moved to the device before the call (Lightning's step methods):
        what the body reads from it is on the device, as from ``batch = batch.to(device)``."""
        self._add(name, "device", None)

    def _moved_batch(self, expr) -> bool:
        """Is ``expr`` a name bound, where it is read, to a batch the framework moved
        (``bind_moved_batch``)?"""
        if not isinstance(expr, cst.Name):
            return False
        frame = self.ctx.frame
        while frame is not None:
            binding = frame.values.get(expr.value)
            if binding is not None:
                if binding.source == "passed":  # a helper handed the step's batch (return_kinds)
                    returns = self.return_kinds()
                    return returns is not None and returns.passed_kind(binding.extra, binding.name) == MOVED_BATCH
                return binding.source == "device"
            frame = frame.parent
        return False

    def bind_passed(self, name: str, qualname: str) -> None:
        """A step body's parameter whose per-step callers' arguments the index could not place: what
        they are, read with what project callees return, is asked of return_kinds when a rule asks
        about the parameter (``"passed"`` in _evaluate)."""
        self._add(name, "passed", qualname)

    def bind_target(self, target: cst.CSTNode, value: Optional[cst.BaseExpression], shape_source=None) -> None:
        """``target = value`` (``shape_source``: ("element", iterable) for a ``for`` target)."""
        if isinstance(target, cst.Subscript) and value is not None:
            self._every_item_moved(target, value)
            if type(target.value) is cst.Name:
                block = next((n for n in reversed(self.ctx.stack) if isinstance(n, (cst.IndentedBlock, cst.Module))), None)
                named = self.ctx.frame.values.get(value.value) if type(value) is cst.Name else None
                self._know_item(target, (value, self.ctx.frame.values.get(None), block, named))
            return
        if (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, cst.Name) and shape_source is None
                and self._tested_as_sequence(value.value)):
            # ``if isinstance(loss, (list, tuple)): loss, extra = loss``: the items of a Python
            # sequence there, whatever value flow says of the name elsewhere (SlowFast)
            self._bind(target, ("unknown", None), ())
            return
        self._bind(target, (shape_source or ("expr", value)), ())

    def bind_loop_target(self, loop: cst.For) -> None:
        """``for target in iterable:``. A name that the body uses as a key of what it iterates
        (``for key in logs: self.log(f"train/{key}", logs[key])``) is a key of a mapping, not
        an item of a tensor (a tensor's items index no tensor): a host value (ByProt)."""
        target, iterable = loop.target, loop.iter
        if (isinstance(target, cst.Name) and isinstance(iterable, cst.Name)
                and _subscripts_with(loop.body, iterable.value, target.value)):
            self.bind_host(target.value)
            return
        self.bind_target(target, None, ("element", iterable))

    def _tested_as_sequence(self, name: str) -> bool:
        """Is the walk in the body of an ``if isinstance(name, list/tuple ...)`` of its function?"""
        for block in self.ctx.frame.blocks:
            if block.kind != "if" or block.body is not block.node.body:
                continue
            test = block.node.test
            if (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                    and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)
                    and test.args[0].value.value == name):
                kinds = test.args[1].value
                names = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
                if names and all(isinstance(n, cst.Name) and n.value in ("list", "tuple") for n in names):
                    return True
        return False

    def _every_item_moved(self, target: cst.Subscript, value: cst.BaseExpression) -> None:
        """``for i in range(len(data)): data[i] = data[i].cuda()``, ``for k in batch: batch[k] =
        batch[k].to(device)``, ``for k, v in batch.items(): batch[k] = v.to(device)``: every item
        of the container is stored again, so what is read from it afterwards lives where the stored
        value lives (a loader batch moved item by item is no longer on the host). Recorded from the
        syntax alone and judged when a rule asks ("moved" in _evaluate); a store of one key, or a
        loop over something else, records nothing."""
        container = target.value
        if not (isinstance(container, cst.Name) and len(target.slice) == 1
                and isinstance(target.slice[0].slice, cst.Index)
                and isinstance(target.slice[0].slice.value, cst.Name)):
            return
        before = self.ctx.frame.values.get(container.value)
        if before is None:
            return  # a container bound outside this function: left as it is there
        blocks = self.ctx.frame.blocks
        at = next((i for i in range(len(blocks) - 1, -1, -1) if isinstance(blocks[i].node, cst.For)), None)
        key = target.slice[0].slice.value.value
        if at is not None and _walks_every_key(blocks[at].node, container.value, key):
            # ``if not k.startswith("name"): batch[k] = batch[k].to(device)`` (DDSP-SVC): the keys
            # the ``if`` tests between the loop and the store are the ones moved
            filters = tuple(block.node.test for block in blocks[at + 1:] if block.kind == "if"
                            and block.body is block.node.body and reads_name(block.node.test, key))
            self._add(container.value, "moved", (value, before, key, filters))

    def _bind(self, target, source, path) -> None:
        if isinstance(target, cst.Name):
            self._add(target.value, source[0], (source[1], path))
        elif _self_attribute(target) is not None:
            # ``self.tokens = 0`` in this function: what it reads back as ``self.tokens`` later in
            # the same function (minGPT's trainer), under the key "self.tokens"
            self._add(_self_attribute(target), source[0], (source[1], path))
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            value = source[1]
            # ``a, b = x[m], y``: each name gets its own expression.
            if source[0] == "expr" and not path and isinstance(value, (cst.Tuple, cst.List)) and len(
                value.elements) == len(elements) and not any(isinstance(e, cst.StarredElement) for e in elements):
                for element, item in zip(elements, value.elements):
                    if isinstance(item, cst.StarredElement):
                        self._bind(element.value, ("unknown", None), ())
                    else:
                        self._bind(element.value, ("expr", item.value), ())
                return
            count = len(elements)
            for index, element in enumerate(elements):
                inner = element.value
                if isinstance(element, cst.StarredElement):
                    self._bind(inner, source, path + ((-1, count),))
                else:
                    self._bind(inner, source, path + ((index, count),))
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, source, path)

    def bind_augmented(self, node: cst.AugAssign) -> None:
        # ``self.tokens += (y >= 0).sum()``: whatever it held before (a number, a tensor), it holds
        # a tensor where the added one lives afterwards, as a name does (decision-transformer binds
        # ``self.tokens = 0`` in the function around the one that adds to it)
        name = node.target.value if isinstance(node.target, cst.Name) else _self_attribute(node.target)
        if name is not None:
            before = self.ctx.frame.values.get(name)
            # (an attribute not bound before in the function: what it holds is asked of the
            # attribute itself, ``self.num_updates += 1`` of a registered buffer)
            held = node.target if before is None and not isinstance(node.target, cst.Name) else None
            self._add(name, "aug", (node.value, before, held))

    def hint_tensor(self, name: str) -> None:
        """``loss.backward()``: ``loss`` is a tensor, wherever it came from."""
        frame = self.ctx.frame
        before = frame.values.get(name)
        if before is not None or not self._bound_outside(name):
            self._add(name, "tensor", before)

    def hint_tensor_item(self, item: cst.Subscript) -> None:
        """``losses["total"].backward()``: that item of ``losses`` is a tensor, as long as ``losses``
        keeps the binding it has now (RPMNet's dict of losses a project helper returns, R184)."""
        self._know_item(item, None)

    def _know_item(self, item: cst.Subscript, stored) -> None:
        """Remember what ``name[key]`` holds: a tensor (``stored`` None, R184) or ``stored``, (the
        value, the bindings in effect, the block the store is in) of ``name[key] = value`` (R191)."""
        found = _literal_item(item)
        if found is None:
            return
        frame = self.ctx.frame
        if frame.known_items is None:
            frame.known_items = {}
        frame.known_items[found] = (frame.values.get(found[0]), stored)

    def _known_item_kind(self, expr: cst.Subscript, depth: int) -> Optional[str]:
        """The kind of ``expr`` (``losses["total"]``, seen at the walk's position) when this frame knows
        the item, its container not bound again since: a tensor whose ``.backward()`` ran (DEVICE,
        or the host tensor its container is: R184), or what a plain store put there, from a block
        around the read (``data["att_masks"] = np.zeros(...)`` ... ``data["att_masks"].sum()``: AoANet's
        batch builder, holdout220; R191). None when unknown."""
        items = self.ctx.frame.known_items
        if not items:
            return None
        found = _literal_item(expr)
        if found is None or found not in items:
            return None
        binding, stored = items[found]
        if binding is not self.ctx.frame.values.get(found[0]):
            return None
        if stored is None:
            owner = self._kind(expr.value, None, depth + 1)
            return owner if owner in TENSORS else DEVICE
        if not any(node is stored[2] for node in self.ctx.stack):
            return None  # stored in a branch the read is not in
        kind = self._stored_kind(stored, self.ctx.frame, depth)
        return kind if kind in TENSORS or kind in (NUMPY, PYTHON) else None

    def _stored_kind(self, stored, frame, depth: int) -> str:
        """The kind of a value ``name[key] = value`` stored (R191): as it was then, or, for a name
        whose binding since then only learnt it is a tensor (``loss_bp.backward()`` after
        ``loss['CE V'] = loss_bp``), as it is known now."""
        value, head, _, named = stored
        kind = self._kind(value, _Env(head, frame), depth + 1)
        if kind == UNKNOWN and named is not None:
            current = frame.values.get(value.value)
            while current is not None and current is not named and current.source == "tensor":
                current = current.extra
            if current is named and frame.values.get(value.value) is not named:
                return self._binding_kind(frame.values.get(value.value), frame, depth + 1)
        return kind

    def _bound_outside(self, name: str) -> bool:
        frame = self.ctx.frame.parent
        while frame is not None:
            if name in frame.values:
                return True
            frame = frame.parent
        return False

    # ---- questions (called by the rules, through the Context) --------------------------------
    def kind(self, expr: cst.BaseExpression) -> str:
        key = id(expr)
        known = self._live.get(key)
        if known is None:
            known = self._live[key] = self._kind(expr, None, 0)
        return known

    def is_tensor_argument(self, expr: cst.BaseExpression) -> bool:
        """Is ``expr`` known to be a tensor that may live on the device (``.to(x)`` with ``x`` a
        tensor, not a device or a dtype)? A DEVICE value, or a name of the current function of
        unknown origin (a parameter, what a callee returned) that the function uses as a tensor
        (``x.unsqueeze(-1)``, ``A.shape``: tensor_uses) and that no binding of the function makes
        a device or a dtype. Anything else, a name bound outside the function included, is unsure."""
        kind = self.kind(expr)
        if kind == DEVICE:
            return True
        if kind != UNKNOWN or not isinstance(expr, cst.Name):
            return False
        frame = self.ctx.frame
        function = frame.node
        name = expr.value
        if not isinstance(function, cst.FunctionDef) or name not in frame.bindings:
            return False
        binding = frame.values.get(name)
        while binding is not None:
            if binding.source == "expr" and not binding.extra[1]:
                value = binding.extra[0]
                if (device_kind(value, self.ctx) is not None
                        or (isinstance(value, cst.Attribute) and value.attr.value in ("device", "dtype", "type"))):
                    return False  # ``x = t.device`` ... ``.to(x)``: a device, whatever else ``x`` was
            binding = binding.prev_same
        uses = self._tensor_uses.get(id(function))
        if uses is None:
            uses = self._tensor_uses[id(function)] = names_used_as_tensors(function)
        return name in uses

    def assigned_expr(self, name: str) -> Optional[cst.BaseExpression]:
        """The expression ``name`` was last given by a plain ``name = expr`` in the current frame."""
        binding = self.ctx.frame.values.get(name)
        if binding is not None and binding.source == "expr" and not binding.extra[1]:
            return binding.extra[0]
        return None

    # ---- evaluation ----------------------------------------------------------------------------
    def _lookup(self, name: str, env: Optional[_Env], depth: int) -> Optional[str]:
        """The kind of ``name`` as seen at the walk's position (``env`` None) or when a binding was
        made (``env``)."""
        if env is None:
            comprehension = self._comprehension_target(name, depth)
            if comprehension is not None:
                return comprehension
            frame = self.ctx.frame
            seen_from = self._branches()
            binding = frame.values.get(name)
        else:
            frame = env.frame
            seen_from = env.branches
            binding = env.head
            while binding is not None and binding.name != name:
                binding = binding.prev
        while binding is not None and not _compatible(binding.branches, seen_from):
            binding = binding.prev_same
        while binding is None:
            if name in frame.bindings and env is None:
                return UNKNOWN  # bound by something the walk does not give a value (an import...)
            frame = frame.parent
            if frame is None:
                return None
            binding = frame.values.get(name)
        kinds = {self._binding_kind(other, frame, depth) for other in _reaching(binding, seen_from)}
        return kinds.pop() if len(kinds) == 1 else either(kinds)  # (R67)

    def _binding_kind(self, binding: Binding, frame, depth: int) -> str:
        """The kind of ``binding``, made in ``frame``."""
        if binding.kind is None:
            binding.kind = UNKNOWN  # a definition that reaches itself is unknown
            binding.kind = self._evaluate(binding, frame, depth + 1)
        return binding.kind

    def _evaluate(self, binding: Binding, frame, depth: int) -> str:
        if depth > _MAX_DEPTH:
            return UNKNOWN
        source, extra = binding.source, binding.extra
        env = _Env(binding, frame)
        if source == "unknown":
            return UNKNOWN
        if source == "host":
            return PYTHON
        if source == "hostbatch":
            return BATCH
        if source == "pinnedbatch":
            return PINNED_BATCH
        if source == "device":
            return UNKNOWN  # the moved batch itself: its fields are read through _moved_batch
        if source == "passed":
            returns = self.return_kinds()
            passed = returns.passed_kind(extra, binding.name) if returns is not None else UNKNOWN
            return passed if passed in (PYTHON, NUMPY, CPU_TENSOR, DEVICE) else UNKNOWN
        if source == "moved":
            # every item stored again (_every_item_moved): on the device if what was stored is
            # there, else as the container was
            value, before = extra[0], extra[1]
            previous = self._binding_kind(before, frame, depth)
            return DEVICE if self._kind(value, _Env(before, frame), depth) == DEVICE else previous
        if source == "tensor":
            before = self._binding_kind(extra, frame, depth) if extra is not None else UNKNOWN
            return before if before in TENSORS else DEVICE
        if source == "aug":
            value, before, attribute = extra
            kinds = [self._kind(value, env, depth)]
            if before is not None:
                kinds.append(self._binding_kind(before, frame, depth))
            elif attribute is not None:
                held = self._kind(attribute, env, depth + 1)
                if held != UNKNOWN:
                    kinds.append(held)
            return combine(kinds)
        expr, path = extra
        if source == "expr":
            gathered = self._gathered_tuple(expr, env, depth) if path else None
            if gathered is None and path and isinstance(expr, cst.Call):
                gathered = self._project_tuple(expr, env, depth)
            if gathered is None and path and isinstance(expr, cst.ListComp):
                moved = self._moved_items_kind(expr, env, depth)
                if moved is not None:
                    return moved  # ``ids, lens = [t.to(device) for t in batch]``: each item (R190)
            shape: Shape = gathered if gathered is not None else self._kind(expr, env, depth)
        else:
            shape = self._element_shape(expr, env, depth)
        for index, count in path:
            if index < 0:  # ``first, *rest = ...``
                shape = collapse(shape) if isinstance(shape, str) else UNKNOWN
                shape = shape if shape in HOST else UNKNOWN
            else:
                shape = item_shape(shape, index, count)
        return collapse(shape)

    def _moved_items_kind(self, comprehension: cst.ListComp, env, depth: int) -> Optional[str]:
        """The kind of every item of ``[t.to(device) for t in batch]`` (one ``for``, no ``if``): what
        the move or copy written as the element makes (DEVICE for ``.cuda()``/``.to(device)``, a host
        tensor for ``.cpu()``, NUMPY for ``.numpy()``); None for any other element."""
        element = comprehension.elt
        if (comprehension.for_in.inner_for_in is not None or comprehension.for_in.ifs
                or not isinstance(element, cst.Call) or not isinstance(element.func, cst.Attribute)
                or element.func.attr.value not in ("to", "cuda", "cpu", "numpy")):
            return None
        kind = self._kind(element, env, depth + 1)
        return kind if kind in (DEVICE, CPU_TENSOR, NUMPY) else None

    def _comprehension_target(self, name: str, depth: int) -> Optional[str]:
        """A name bound by a comprehension around the current node: the kind of the items it takes."""
        for node in reversed(self.ctx.stack):
            if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                comp = node.for_in
                while comp is not None:
                    found = _find_in_target(comp.target, name)
                    if found is not None:
                        shape = self._element_shape(comp.iter, None, depth + 1)
                        for index, count in found:
                            shape = item_shape(shape, index, count)
                        return collapse(shape)
                    comp = comp.inner_for_in
            elif isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return None
        return None

    def _element_shape(self, iterable, env, depth: int) -> Shape:
        """What a ``for`` over ``iterable`` binds each time round."""
        steps = self.ctx.steps
        if isinstance(iterable, cst.Call):
            func = iterable.func
            name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
            args = [a.value for a in iterable.args if a.keyword is None and not a.star]
            if isinstance(func, cst.Name) and name == "enumerate" and args:
                return (PYTHON, self._element_shape(args[0], env, depth))
            if isinstance(func, cst.Name) and name == "zip" and args:
                return tuple(self._element_shape(a, env, depth) for a in args)
            if isinstance(func, cst.Name) and name == "range":
                return PYTHON
            if is_iterating_wrapper(name) and args:
                return self._element_shape(args[0], env, depth)
            if isinstance(func, cst.Attribute) and name in _PARAMETER_ITERATORS and not args:
                # ``for name, p in model.named_parameters():``: a module's tensors, where the module
                # lives (on the host for a model of the file never moved)
                owner = func.value
                if self._kind(owner, env, depth) in TENSORS or not self._is_module(owner):
                    return UNKNOWN
                place = CPU_TENSOR if last_identifier(owner) in self.ctx.steps.unmoved_models else DEVICE
                return (PYTHON, place) if name.startswith("named_") else place
            if isinstance(func, cst.Attribute) and name in ("items", "values", "keys") and not args:
                owner = self._kind(func.value, env, depth)
                values = owner if owner in BATCHES or owner == PYTHON else UNKNOWN  # ``host_kwargs.items()``
                if name == "keys":
                    return PYTHON
                if owner == CONTAINER and isinstance(func.value, cst.Name):
                    values = self._displayed_values_kind(func.value.value, env, depth)
                return (PYTHON, values) if name == "items" else values
        if steps.iterates_loader(iterable) or (isinstance(iterable, cst.Name) and iterable.value in steps.iterated):
            # ``pbar = tqdm(enumerate(loader))`` then ``for i, (x, y) in pbar:``: that loader's batches
            return self._batch_kind(iterable)
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
            kinds = {collapse(self._kind(e.value, env, depth)) for e in iterable.elements
                     if not isinstance(e, cst.StarredElement)}
            return kinds.pop() if len(kinds) == 1 else UNKNOWN
        kind = self._kind(iterable, env, depth)
        if kind in TENSORS or kind in (NUMPY, PYTHON):
            return kind
        if kind == CONTAINER and isinstance(iterable, cst.Name):
            return self._built_items_kind(iterable.value, env, depth)
        return UNKNOWN

    def _unmoved_key_kind(self, expr: cst.Subscript, env, depth: int) -> Optional[str]:
        """``data["name"]`` after ``for k in data.keys(): if not k.startswith("name"): data[k] =
        data[k].to(device)``: a literal key the move's ``if`` leaves out keeps the kind the
        container had before (a loader batch's file names stay on the host). None when unsure."""
        if not (isinstance(expr.value, cst.Name) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
                and isinstance(expr.slice[0].slice.value, cst.SimpleString)):
            return None
        frame, binding = self._last_binding(expr.value.value, env)
        if binding is None or binding.source != "moved" or not binding.extra[3]:
            return None
        literal = expr.slice[0].slice.value.evaluated_value
        _, before, key, filters = binding.extra
        if not isinstance(literal, str) or any(_key_passes(test, key, literal) is not False for test in filters):
            return None
        owner = self._binding_kind(before, frame, depth)
        return owner if owner in TENSORS or owner in (NUMPY, PYTHON) else None

    def _plain_binding(self, name: str, env):
        """(the expression, the binding, its frame) of ``name``'s last plain ``name = expr``, as seen
        at the walk's position (``env`` None) or when a binding was made; None otherwise."""
        frame, binding = self._last_binding(name, env)
        if binding is None or binding.source != "expr" or binding.extra[1]:
            return None
        return binding.extra[0], binding, frame

    def _last_binding(self, name: str, env):
        """(frame, the last binding of ``name`` in it) at the walk's position (``env`` None) or as
        seen when a binding was made; the binding is None when the frame has none."""
        if env is None:
            return self.ctx.frame, self.ctx.frame.values.get(name)
        binding = env.head
        while binding is not None and binding.name != name:
            binding = binding.prev
        return env.frame, binding

    def _displayed_values_kind(self, name: str, env, depth: int) -> str:
        """DEVICE when ``name`` was last bound to a dict display (``{"a": loss1, "b": loss2}``,
        ``dict(a=loss1)``) whose every value may be on the device: what
        ``.items()``/``.values()`` of it hand out (``float(v)`` of each then reads a device loss).
        UNKNOWN otherwise (an empty dict filled later, a value of another kind)."""
        found = self._plain_binding(name, env)
        if found is None:
            return UNKNOWN
        built, binding, frame = found
        inner = _Env(binding, frame)
        if isinstance(built, cst.Dict):
            values = [e.value for e in built.elements if isinstance(e, cst.DictElement)]
            if len(values) != len(built.elements):
                return UNKNOWN  # a ``**other`` spread
        elif (isinstance(built, cst.Call) and isinstance(built.func, cst.Name) and built.func.value == "dict"
              and built.args and all(a.keyword is not None for a in built.args)):
            values = [a.value for a in built.args]
        else:
            return UNKNOWN
        if values and all(self._kind(v, inner, depth + 1) == DEVICE for v in values):
            return DEVICE
        if not values and frame.known_items:
            # ``loss = {}`` ... ``loss['CE V'] = loss_bp``: an empty dict filled by literal keys
            # (R191's stores) with device values only (the lip-reading trainer's progress line, R196)
            stored = [item for (owner, _), (made, item) in frame.known_items.items()
                      if owner == name and made is binding]
            if stored and all(item is not None and self._stored_kind(item, frame, depth) == DEVICE for item in stored):
                return DEVICE
        return UNKNOWN

    def _built_items_kind(self, name: str, env, depth: int) -> str:
        """The kind of the items of a list ``name`` was bound to by a comprehension whose items read
        none of its own targets (``data_list = [copy.deepcopy(batch) for _ in range(n)]``): each item
        is that one expression's value. Known-host kinds only; UNKNOWN otherwise."""
        found = self._plain_binding(name, env)
        if found is None:
            return UNKNOWN
        built, binding, frame = found
        if not isinstance(built, (cst.ListComp, cst.GeneratorExp)):
            return UNKNOWN
        targets, comp = set(), built.for_in
        while comp is not None:
            targets |= {n.value for n in descendants(comp.target) if isinstance(n, cst.Name)}
            comp = comp.inner_for_in
        if any(isinstance(n, cst.Name) and n.value in targets for n in descendants(built.elt)):
            if isinstance(built.elt, cst.Call) and self._gradient_norm(built.elt):
                # ``[clip_grad_norm(group['params'], m) for group in param_groups]``: whatever the
                # group, each norm is a tensor where the parameters live (learning-tsp's and
                # VRP-DACT's ``clip_grad_norms``, holdout161; R143)
                return DEVICE
            return UNKNOWN
        kind = self._kind(built.elt, _Env(binding, frame), depth + 1)
        return kind if kind in HOST else UNKNOWN

    def _gradient_norm(self, call: cst.Call) -> bool:
        """A call of ``clip_grad_norm_`` (or its old name, ``get_total_norm``) given no model the
        file never moves (whose norms stay on the host)."""
        qual = self.ctx.qualname(call.func) or ""
        if not qual.startswith("torch.") or qual[len("torch."):] not in _GRADIENT_NORMS:
            return False
        args = positional(call)
        return not (args and self._of_unmoved_model(args[0].value))

    def _copied_item_kind(self, name: str, env, depth: int) -> str:
        """The kind of an item of a dict or list ``name`` was bound to by a comprehension whose every
        item is a copy to the host (``reprs = {k: v.detach().cpu() for k, v in out.items()}``, then
        ``reprs["ids"]``): what the copy makes, whatever the comprehension's targets held. Known-host
        kinds only; UNKNOWN otherwise."""
        found = self._plain_binding(name, env)
        if found is None:
            return UNKNOWN
        built, binding, frame = found
        item = built.value if isinstance(built, cst.DictComp) else built.elt if isinstance(
            built, (cst.ListComp, cst.GeneratorExp)) else None
        if item is None or not _ends_in_host_copy(item):
            return UNKNOWN
        kind = self._kind(item, _Env(binding, frame), depth + 1)
        return kind if kind in HOST else UNKNOWN

    def _batch_kind(self, loader_expr) -> str:
        """A batch from ``loader_expr`` (a loader, an iterator over one, or a wrapper around one)."""
        steps = self.ctx.steps
        name = _loader_name(loader_expr)
        name = steps.iterated.get(name, name)
        names = {name}
        function = self._function_of(name)
        unfilled = False
        if function is not None:
            # A parameter: the loaders the module passes to it (``evaluate(model, test_loader)``).
            passed = {steps.iterated.get(n, n) for n in steps.loaders_passed(function, name)}
            if passed and None not in passed:
                names = passed
            # ... none: its loader is made where the module does not show (SCRUB's vendored
            # ``train_vanilla(epoch, train_loader, ...)``, holdout158), whatever loaders the module
            # binds to the same name in other functions (R137)
            unfilled = not passed
        device_data = steps.device_data_loaders
        if device_data and _self_attribute(_iterated_expression(loader_expr)) is not None:
            device_data = device_data - steps.prepared_locals  # a local's preparing is not the attribute's
        if device_data and any(
            n is None or n not in steps.loaders or n in device_data for n in names
        ):
            return UNKNOWN  # the module builds a loader over CUDA tensors: its batches are on the device
        made = self.assigned_expr(name) if name is not None else None
        if isinstance(made, cst.Call) and keyword(made, "device") is not None:
            # ``dl = create_dataloader(data, batch_size, device=self.device)``: a loader told where
            # to put its batches (PaLM-rlhf's collate moves them): not known to be on the host
            return UNKNOWN
        if unfilled:
            return PINNED_BATCH if _pins_memory(made) else BATCH
        if all(n in steps.pinned_loaders and n not in steps.unpinned_loaders for n in names):
            return PINNED_BATCH
        if all(n in steps.unpinned_loaders and n not in steps.pinned_loaders for n in names):
            return UNPINNED_BATCH
        if names == {name} and _pins_memory(made):
            # the module binds the name to pinned and other loaders (mcan-vqa's ``dataloader`` in
            # ``train`` and ``eval``): the loader this function made for the loop decides (R118)
            return PINNED_BATCH
        return BATCH

    def _function_of(self, parameter: Optional[str]) -> Optional[str]:
        """The name of the function around the walk whose parameter ``parameter`` is, if it is one."""
        frame = self.ctx.frame
        while frame is not None:
            node = frame.node
            if isinstance(node, cst.FunctionDef):
                params = node.params
                for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                    if param.name.value == parameter:
                        return node.name.value
                return None
            frame = frame.parent
        return None

    def _kind(self, expr, env, depth: int) -> str:
        if depth > _MAX_DEPTH:
            return UNKNOWN
        t = type(expr)
        if t is cst.Name:
            if expr.value in ("True", "False", "None"):
                return PYTHON
            return self._lookup(expr.value, env, depth) or UNKNOWN
        if t in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            return PYTHON
        if t in (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp):
            return CONTAINER
        if t is cst.Call:
            return self._call_kind(expr, env, depth)
        if t is cst.Attribute:
            attr = expr.attr.value
            if (isinstance(expr.value, cst.Name) and _NOT_TENSOR_FIELD.search(attr) is None
                    and attr not in _PYTHON_ATTRIBUTES and self._moved_batch(expr.value)):
                return DEVICE  # ``batch.edge_labels`` of a batch the framework moved (R35)
            key = _self_attribute(expr)
            if key is not None:
                bound = self._lookup(key, env, depth)
                if bound is not None:
                    return bound  # ``self.tokens``, bound in this function before this use
            owner = self._kind(expr.value, env, depth + 1)
            if attr in _PYTHON_ATTRIBUTES and owner in TENSORS | {NUMPY}:
                return PYTHON
            if attr in _TENSOR_ATTRIBUTES and owner in TENSORS:
                return owner
            if is_output_field(attr) and owner == DEVICE:
                return DEVICE
            if (owner == DEVICE and isinstance(expr.value, cst.Name) and _NOT_TENSOR_FIELD.search(attr) is None
                    and not is_model_name(expr.value.value) and not self._is_module(expr.value)):
                # ``batch = batch.to(device)`` then ``batch.batch[-1] == 0``: a field of a batch object
                # moved to the device (a PyG ``Batch``: ``x``, ``edge_index``, ``y``) is a tensor there;
                # counts and sizes (``num_graphs``) and a tensor's own metadata are not (ogb), nor the
                # attributes of a model moved there (PyTorch-YOLOv3's ``model.hyperparams``)
                return DEVICE
            if owner in BATCHES or owner == NUMPY:
                return owner  # ``batch.x``, ``arr.T``
            if owner == CPU_TENSOR:
                return CPU_TENSOR
            if (isinstance(expr.value, cst.Name) and expr.value.value == "self" and owner == UNKNOWN
                    and attr in self.ctx.facts.derived("metric_tensor_states", tensor_states)):
                return DEVICE  # ``self.add_state("cer", default=torch.tensor(0))``: a state of the metric
            if (isinstance(expr.value, cst.Name) and expr.value.value == "self" and owner == UNKNOWN
                    and attr in self.ctx.facts.derived("cpu_tensor_attributes", cpu_tensor_attributes)):
                return CPU_TENSOR  # ``self.video_labels = torch.zeros(n)`` and nothing else: on the host
            if (isinstance(expr.value, cst.Name) and expr.value.value == "self" and owner == UNKNOWN
                    and attr in self.ctx.facts.derived("numpy_attributes", numpy_attributes)):
                return NUMPY  # ``self.train_cm = np.zeros((2, 2))`` and nothing else (R128)
            return UNKNOWN
        if t is cst.Subscript:
            if _optimizer_state_key(expr.slice[0].slice.value if len(expr.slice) == 1
                                    and isinstance(expr.slice[0].slice, cst.Index) else None):
                return DEVICE  # ``state["exp_avg"]``: an optimizer's state lives with its parameters (R100)
            unmoved = self._unmoved_key_kind(expr, env, depth)
            if unmoved is not None:
                return unmoved
            index = expr.slice[0].slice if len(expr.slice) == 1 else None
            if (isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)
                    and isinstance(expr.value, cst.Name) and self._moved_batch(expr.value)):
                key = index.value.evaluated_value
                if isinstance(key, str) and _NOT_TENSOR_FIELD.search(key) is None and _METADATA_KEY.search(key) is None:
                    # ``batch["sft_mask"]`` of a batch the framework moved (a Lightning step's
                    # ``batch``, the HF Trainer's ``compute_loss`` ``inputs``): a tensor there, as
                    # ``batch.sft_mask`` is (R35, R152)
                    return DEVICE
            if env is None:
                known = self._known_item_kind(expr, depth)
                if known is not None:
                    return known  # R184, R191
            owner = self._kind(expr.value, env, depth + 1)
            if owner in TENSORS or owner in (NUMPY, PYTHON):
                return owner
            if owner == CONTAINER and isinstance(expr.value, cst.Name):
                return self._copied_item_kind(expr.value.value, env, depth)  # ``reprs["ids"]``
            if owner == UNKNOWN and _DATASET_NAME.search(last_identifier(expr.value) or "") is not None \
                    and not any(isinstance(e.slice, cst.Slice) for e in expr.slice):
                # ``image1, image2, flow_gt, _ = val_dataset[val_id]``: an item a dataset hands
                # out, as a loader would, before any move (rules.md "Where a value lives")
                return BATCH
            return UNKNOWN
        if t is cst.BinaryOperation:
            return combine((self._kind(expr.left, env, depth + 1), self._kind(expr.right, env, depth + 1)))
        if t is cst.UnaryOperation:
            if isinstance(expr.operator, cst.Not):
                return PYTHON
            return self._kind(expr.expression, env, depth + 1)
        if t is cst.Comparison:
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons):
                return PYTHON
            if any(isinstance(v, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
                   or (isinstance(v, cst.Name) and v.value == "None")
                   for v in (expr.left, *(c.comparator for c in expr.comparisons))):
                # ``batch["mode"] == "train"``: no tensor compares with a string; ``out == None``:
                # a tensor compared with None gives a Python bool (VoiceCraft's trainer, holdout56)
                return PYTHON
            kinds = [self._kind(expr.left, env, depth + 1)]
            kinds.extend(self._kind(c.comparator, env, depth + 1) for c in expr.comparisons)
            return combine(kinds)
        if t is cst.BooleanOperation:
            left = self._kind(expr.left, env, depth + 1)
            right = self._kind(expr.right, env, depth + 1)
            return left if left == right else UNKNOWN
        if t is cst.IfExp:
            # ``out.aux_loss if use_aux else None``: the value when there is one (R117), as a name
            # bound to a value in one branch and to None before it already reads
            if _is_none(expr.orelse):
                return self._kind(expr.body, env, depth + 1)
            if _is_none(expr.body):
                return self._kind(expr.orelse, env, depth + 1)
            body = self._kind(expr.body, env, depth + 1)
            orelse = self._kind(expr.orelse, env, depth + 1)
            return body if body == orelse else UNKNOWN
        if t is cst.NamedExpr:
            return self._kind(expr.value, env, depth + 1)
        return UNKNOWN

    def _call_kind(self, call: cst.Call, env, depth: int) -> str:
        if (isinstance(call.func, cst.Attribute) and call.func.attr.value == "get" and call.args
                and _optimizer_state_key(call.args[0].value)):
            return DEVICE  # ``s.get("exp_avg")``: an optimizer's state (R100)
        kind = self._local_call_kind(call, env, depth)
        if kind not in (UNKNOWN, DEVICE):
            return kind
        if is_loss_function_name(last_identifier(call.func)) and self._host_tensor_operands(call, env, depth):
            # ``criterion(pred.detach().cpu(), true.detach().cpu())``: a loss computes where its
            # inputs are, all host copies here (Crossformer's ``vali``, holdout228; R202)
            return CPU_TENSOR
        # What a project function returns (return_kinds): a host value known there wins over a
        # model's or a loss's name; a tensor it makes stays what this function already says it is
        # (a model of the file never moved, on host inputs, is on the host).
        returned = self._project_return(call, env, depth)
        if returned is None:
            return kind
        returned = collapse(returned)
        if returned == CONTAINER and kind == DEVICE:
            # a model's forward that returns a dict (self-critical's ``LossWrapper``: ``out['reward']``,
            # ``out['loss']``): a model's output, whose items live on the device, as when the call
            # resolved to no project function
            return DEVICE
        if returned in HOST or returned == DEVICE:
            return returned
        return kind

    def _host_tensor_operands(self, call: cst.Call, env, depth: int) -> bool:
        """Does ``call`` take at least one positional tensor, every positional argument a CPU tensor
        (a host copy, a tensor made on the host) or a Python number? Not a loader batch never
        moved: a loss method handed the raw batch may move it itself (``self.calc_loss(batch)``)."""
        args = [a for a in call.args if a.keyword is None and not a.star]
        if not args or len(args) != len(call.args):
            return False
        kinds = [self._kind(a.value, env, depth + 1) for a in args]
        return CPU_TENSOR in kinds and all(k == CPU_TENSOR or k == PYTHON for k in kinds)

    def return_kinds(self) -> Optional[ReturnKinds]:
        """What the project's functions return (return_kinds.ReturnKinds), made on first use; None
        while the file's step bodies are not made (the engine makes them for a unit a rule reads)."""
        if self._returns is None:
            bodies = getattr(self.ctx.facts, "step_bodies", None)
            if bodies is None:
                return None
            tree = self.ctx.facts.derived("ast-tree", lambda tree, table: tree)
            self._returns = ReturnKinds(bodies, tree)
        return self._returns

    def _project_return(self, call: cst.Call, env, depth: int):
        """The shape of what ``call`` returns when it calls a project function (return_kinds), the
        tensors it makes from its arguments placed where this call's arguments are; None when it is
        no such call or the project is not known."""
        if not isinstance(call.func, (cst.Name, cst.Attribute)) or is_torch_name(self.ctx.qualname(call.func)):
            return None
        returns = self.return_kinds()
        if returns is None:
            return None
        shape = returns.of_call(call, self.ctx.function_qualname())
        if shape is None:
            return None
        arguments = None
        if not any(a.star for a in call.args):
            arguments = [self._kind(a.value, env, depth + 1) for a in call.args]
        return at_call(shape, arguments)

    def _project_tuple(self, call: cst.Call, env, depth: int) -> Optional[Shape]:
        """``a, b, logs = self.id_loss(...)``: the items of a tuple a project function returns,
        where return_kinds knows them (a host value, a device tensor), else what this function
        says of the call as a whole; None when the project says nothing of the items."""
        returned = self._project_return(call, env, depth)
        if not isinstance(returned, tuple):
            return None
        whole = self._kind(call, env, depth)
        # A tensor the callee makes stays where this function places the call's tensors (a model of
        # the file never moved, on host inputs: ``mu, std = model.pi(s)``), as for a single value.
        known = HOST if whole == CPU_TENSOR else HOST | {DEVICE}
        return tuple(item if collapse(item) in known else item_shape(whole, i, len(returned))
                     for i, item in enumerate(returned))

    def _local_call_kind(self, call: cst.Call, env, depth: int) -> str:
        ctx = self.ctx
        func = call.func
        if _asks_for_torch_tensors(call):
            # ``tokenizer(text, return_tensors="pt")``: Hugging Face tokenizers and processors make
            # their tensors on the host; they are there until moved (XRec, holdout82; R47.2)
            return CPU_TENSOR
        if isinstance(func, cst.Attribute) and func.attr.value == "apply" and self._is_autograd_function(func.value):
            # ``AllReduce.apply(x)`` of a project ``torch.autograd.Function``, defined here or
            # imported: a tensor, where the tensors it is given are (V-JEPA's ``float(AllReduce.apply(
            # ...))``, holdout127)
            return self._follow_tensor_args(call, env, depth)
        qual = ctx.qualname(func)
        if qual is not None:
            if qual.startswith(_ARRAY_LIBRARIES):
                return NUMPY
            if qual in _COPIES and call.args and call.args[0].keyword is None and not call.args[0].star:
                # ``copy.deepcopy(batch)``: a copy lives where what it copies lives (known-host only)
                copied = self._kind(call.args[0].value, env, depth + 1)
                return copied if copied in HOST else UNKNOWN
            if qual in _CONTAINER_CALLS:
                return CONTAINER
            if qual in _VARIABLE and call.args and call.args[0].keyword is None and not call.args[0].star:
                # ``torch.autograd.Variable(input[0])``: the tensor itself since torch 0.4 (SiamMask's
                # pinned batches, holdout154; R133), as TPL101 reads it (R114)
                return self._kind(call.args[0].value, env, depth + 1)
            if not is_torch_name(qual):
                return PYTHON if qual.startswith(_PYTHON_MODULES) else UNKNOWN
            return self._torch_call_kind(call, qual, env, depth)
        taken_apart = self._taken_apart_kind(call, env, depth)
        if taken_apart != UNKNOWN:
            return taken_apart
        if isinstance(func, cst.Attribute):
            return self._method_kind(call, func.attr.value, func.value, env, depth)
        if (isinstance(func, cst.Name) and func.value == "abs" and len(call.args) == 1 and not call.args[0].star
                and ctx.is_builtin("abs")):
            # ``abs(min_v - max_v)``: Python calls the tensor's ``__abs__``, a tensor where its
            # operand lives (pytorch_GAN_zoo's GDPP loss, holdout139; R107)
            return self._kind(call.args[0].value, env, depth + 1)
        if (isinstance(func, cst.Name) and func.value == "getattr" and len(call.args) == 2
                and not any(a.star or a.keyword is not None for a in call.args) and ctx.is_builtin("getattr")):
            # ``getattr(rays, name)`` of a batch: one of its fields, as ``rays.origins`` is
            # (mipnerf_pl's ``Rays(*[getattr(rays, name).to(device) for name in Rays_keys])``; R124)
            owner = self._kind(call.args[0].value, env, depth + 1)
            if owner in BATCHES:
                return owner
        if (isinstance(func, cst.Name) and func.value == "sum" and call.args and not call.args[0].star
                and call.args[0].keyword is None and isinstance(call.args[0].value, (cst.ListComp, cst.GeneratorExp))
                and ctx.is_builtin("sum")):
            # ``sum([torch.sum(g * g_r) for g, g_r in zip(grad, grad_ref)])``: Python adds the
            # tensors up, a tensor where they live (online-continual-learning's A-GEM, holdout147; R121)
            item = self._kind(call.args[0].value.elt, env, depth + 1)
            return item if item in (DEVICE, CPU_TENSOR) else UNKNOWN
        if isinstance(func, cst.Name) and func.value in _BUILTINS and ctx.is_builtin(func.value):
            name = func.value
            if name in _PYTHON_BUILTINS:
                return PYTHON
            if name in _CONTAINER_BUILTINS:
                return CONTAINER
            if name == "next" and call.args and ctx.steps.iterates_loader(call.args[0].value):
                return self._batch_kind(call.args[0].value)
            return UNKNOWN
        instance = ctx.torch_instance(func)
        if instance is not None:
            if not instance.startswith("torch.nn."):
                return UNKNOWN
            return CPU_TENSOR if self._host_model_call(call, env, depth) else DEVICE
        return self._model_output_kind(call, env, depth)

    def _taken_apart_kind(self, call: cst.Call, env, depth: int) -> str:
        """``self.parse_data(batch)``: a function of the module that only takes its arguments apart
        (step_loops.ModuleSteps.only_takes_apart), given host batches, returns parts of them."""
        func = call.func
        if isinstance(func, cst.Name):
            name = func.value
        elif (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
              and func.value.value in ("self", "cls")):
            name = func.attr.value  # a method of the module's classes (what is_module_function accepts)
        else:
            return UNKNOWN
        if not call.args or any(a.star for a in call.args):
            return UNKNOWN
        # The arguments first: only a loop over a loader makes a batch, and the module's step-loop
        # facts are not built for units that hold none.
        kinds = {self._kind(a.value, env, depth + 1) for a in call.args}
        if not kinds <= BATCHES:
            return UNKNOWN
        steps = self.ctx.steps
        if not (steps.is_module_function(func) and steps.only_takes_apart(name)):
            return UNKNOWN
        return kinds.pop() if len(kinds) == 1 else BATCH

    def _gathered_tuple(self, expr, env, depth: int) -> Optional[Shape]:
        """``accelerator.gather_for_metrics((preds, labels))`` unpacked: the kinds of the tuple's
        tensors, item by item (None when ``expr`` is no such call)."""
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in _GATHERS and expr.args and expr.args[0].keyword is None
                and isinstance(expr.args[0].value, (cst.Tuple, cst.List))):
            return None
        if self._kind(expr.func.value, env, depth + 1) in TENSORS:
            return None  # ``t.gather(...)`` of a tensor
        kinds = tuple(self._kind(e.value, env, depth + 1) for e in expr.args[0].value.elements)
        return tuple(DEVICE if k == DEVICE else UNKNOWN for k in kinds)

    def _returns_model_output(self, call: cst.Call) -> bool:
        """``logits = model(x)``, ``loss = criterion(out, y)``, ``loss = self.compute_loss(...)``."""
        func = call.func
        return (self.ctx.is_model_call(call) or is_loss_function_name(last_identifier(func))
                or (isinstance(func, cst.Subscript) and is_loss_collection_name(last_identifier(func.value)))
                or self._calls_own_module(call))

    def _calls_own_module(self, call: cst.Call) -> bool:
        """``output = self(x, targets=y)`` in a method of a class of this file that derives from
        ``nn.Module`` (Transformers4Rec's ``Model.fit``): the module's own forward, a model's output.
        (Value flow only: whether a loop calling it is a step loop is not changed by this.)"""
        if not (isinstance(call.func, cst.Name) and call.func.value == "self"):
            return False
        owner = self.ctx.function_qualname().rpartition(".")[0].rpartition(".")[2]
        return bool(owner) and owner in self.ctx.steps.module_classes

    def _torch_call_kind(self, call: cst.Call, qual: str, env, depth: int) -> str:
        if qual.startswith(_TENSOR_NAMESPACES):
            return self._follow_tensor_args(call, env, depth, qual in _FIRST_TENSOR_ONLY)
        short = qual[len("torch."):]
        if short in _GRADIENT_NORMS:
            # ``grad_norm = clip_grad_norm_(model.parameters(), 1.0)``: the total norm, a tensor on the
            # parameters' device (rules.md "Where a value lives"; R55); a model the file never moves
            # keeps its parameters, and so the norm, on the host
            args = positional(call)
            return CPU_TENSOR if args and self._of_unmoved_model(args[0].value) else DEVICE
        if "." in short:
            return PYTHON if _python_from_torch_submodule(short) else UNKNOWN
        if short in _PYTHON_TORCH or short.startswith(("is_", "get_")):
            return PYTHON
        if short == "load":
            where = keyword(call, "map_location")
            if where is not None and (
                (string_value(where.value) or "").startswith("cpu")
                or (isinstance(where.value, cst.Call) and self.ctx.qualname(where.value.func) == "torch.device"
                    and positional(where.value) and (string_value(positional(where.value)[0].value) or "").startswith("cpu"))
            ):
                return CONTAINER
            return UNKNOWN
        if short in LEGACY_CONSTRUCTORS:
            if self._on_a_host_tensor_s_device(call, env, depth):
                return CPU_TENSOR
            return DEVICE if keyword(call, "device") is not None or has_double_splat(call) else CPU_TENSOR
        if short in _NON_TENSOR_TORCH or not short[:1].islower() or short.startswith(("set_", "use_")):
            return UNKNOWN
        if short in CPU_FACTORIES:
            if self._on_a_host_tensor_s_device(call, env, depth):
                return CPU_TENSOR
            if keyword(call, "device") is not None or has_double_splat(call):
                return DEVICE
            args = positional(call)
            if short.endswith("_like") or short in ("bernoulli", "multinomial"):
                # ``zeros_like(t)``, ``multinomial(t, 1)`` live where ``t`` does.
                if not args:
                    return UNKNOWN
                return CPU_TENSOR if self._kind(args[0].value, env, depth + 1) in HOST else DEVICE
            if short in ("tensor", "as_tensor") and args:
                data = self._kind(args[0].value, env, depth + 1)
                if data == DEVICE:
                    return DEVICE  # data already on the device stays there
                if short == "as_tensor" and data == UNKNOWN and not _literal_data(args[0].value):
                    # ``torch.as_tensor(v)`` hands a tensor back as it is, on its device: data of
                    # unknown origin (HALOs' metrics, a ``clip_grad_norm_`` result) may be there
                    return UNKNOWN
            return CPU_TENSOR
        return self._follow_tensor_args(call, env, depth, qual in _FIRST_TENSOR_ONLY)

    def _on_a_host_tensor_s_device(self, call: cst.Call, env, depth: int) -> bool:
        """``torch.ones(n, device=ids.device)`` with ``ids`` a loader batch not yet moved: made where
        the batch lives, the host (vec2text pads the batch's own ids so). Only a batch: a tensor
        that value flow calls a CPU tensor may be one on some paths only (yolov5's NMS copies its
        input to the host only on MPS), and ``x.device`` follows the tensor at run time."""
        target = keyword(call, "device")
        if target is None or has_double_splat(call):
            return False
        value = target.value
        return (isinstance(value, cst.Attribute) and value.attr.value == "device"
                and self._kind(value.value, env, depth + 1) in BATCHES)

    def _follow_tensor_args(self, call: cst.Call, env, depth: int, first_only: bool = False) -> str:
        """``torch.cat([a, b])``, ``F.relu(x)``: on the host when the tensors it is given are.
        ``first_only``: a function whose one tensor is its first argument (_FIRST_TENSOR_ONLY)."""
        kinds = []
        for index, arg in enumerate(call.args):
            if arg.keyword is not None and arg.keyword.value not in ("input", "other", "tensors"):
                continue
            if first_only and (index > 0 or arg.star) and not (arg.keyword is not None and arg.keyword.value == "input"):
                continue
            value = arg.value
            if isinstance(value, (cst.List, cst.Tuple)):
                kinds.extend(self._kind(e.value, env, depth + 1) for e in value.elements)
            else:
                kinds.append(self._kind(value, env, depth + 1))
        tensors = [k for k in kinds if k in TENSORS]
        if tensors and all(k in HOST_TENSORS for k in tensors) and all(k in HOST for k in kinds):
            return CPU_TENSOR
        return DEVICE

    def _is_autograd_function(self, receiver) -> bool:
        dotted = dotted_name(receiver)
        bodies = getattr(self.ctx.facts, "step_bodies", None)
        return dotted is not None and bodies is not None and bodies.is_autograd_function(dotted)

    def _method_kind(self, call: cst.Call, name: str, receiver, env, depth: int) -> str:
        if name in ("item", "tolist") or name in _STRING_METHODS:
            return PYTHON
        if name == "split" and call.args and isinstance(call.args[0].value, (cst.SimpleString, cst.FormattedString)):
            return PYTHON  # ``text.split("\n")``: a tensor splits by sizes, never by a string (R54)
        if name == "numpy":
            return NUMPY
        if isinstance(receiver, cst.Name) and self._host_model_method(call, receiver, env, depth):
            return CPU_TENSOR  # ``model.pi(torch.from_numpy(s).float())``: a method of a host model
        if name in DISTRIBUTION_METHODS and self._host_distribution(receiver, env, depth):
            return CPU_TENSOR  # ``Normal(mu, std).log_prob(a)`` of host ``mu``, ``std``
        owner = self._kind(receiver, env, depth + 1)
        if name in _MODULE_CHAIN and owner not in TENSORS and self._is_module(receiver):
            return UNKNOWN  # ``model.to(device)``: a module, not a tensor (its methods give no tensors)
        if _COUNTER_METHOD.match(name) is not None:
            return UNKNOWN  # ``model.get_step()``: a counter; no tensor method is named so
        if name == "cpu":
            return CPU_TENSOR
        if name == "cuda":
            return DEVICE
        if name == "pin_memory":
            return CPU_TENSOR
        if name == "to":
            target = keyword(call, "device")
            args = positional(call)
            where = device_kind(target.value if target is not None else args[0].value, self.ctx) if (
                target is not None or args) else "dtype"
            if where == "cpu":
                return CPU_TENSOR
            if where == "dtype":
                if owner == PINNED_BATCH:
                    return UNPINNED_BATCH  # ``batch.to(torch.float16)``: a converted copy, in pageable memory
                return owner if owner in TENSORS else UNKNOWN
            return DEVICE
        if name == "type_as" and len(call.args) == 1 and call.args[0].keyword is None:
            # ``torch.rand(n).type_as(X)``: X's dtype and device (cfm's timesteps, holdout39);
            # where X lives, or unknown
            other = self._kind(call.args[0].value, env, depth + 1)
            if other == DEVICE or (other in HOST_TENSORS and owner in HOST_TENSORS):
                return other if other == DEVICE else CPU_TENSOR
            return UNKNOWN
        if name in _PYTHON_METHODS:
            return PYTHON if owner in TENSORS or owner in (NUMPY, UNKNOWN) else UNKNOWN
        if name == "type":
            return owner if call.args and owner in TENSORS else PYTHON if owner in TENSORS else UNKNOWN
        if name in _OTHER_METHODS:
            return UNKNOWN
        if name == "generate" and owner not in TENSORS and self._is_module(receiver):
            return DEVICE  # ``unwrapped_model.generate(prompt_ids)``: token ids where the model runs
        if name in _PREPARES_INPUTS and _is_self_or_super(receiver):
            # ``super()._prepare_inputs(inputs)`` in a Hugging Face ``Trainer``: the batch moved to the
            # device the trainer runs on (BioReason's GRPO trainer prints its ``prompt_ids``)
            return DEVICE
        if name in _GATHERS and owner not in TENSORS and call.args and call.args[0].keyword is None:
            given = self._kind(call.args[0].value, env, depth + 1)
            return DEVICE if given == DEVICE else UNKNOWN
        if owner == PINNED_BATCH and name in _PAGEABLE_COPIES:
            # ``batch['images'].half().cuda()`` (RLAIF-V): the host makes a new tensor in pageable
            # memory, and its copy to the device cannot overlap whatever ``non_blocking`` says
            return UNPINNED_BATCH
        if owner in BATCHES:
            return owner  # ``batch.float()``, ``batch.get("x")``
        if owner in (CPU_TENSOR, DEVICE, NUMPY):
            return owner
        if ((name in _TENSOR_ONLY_METHODS or (name in _TENSOR_TESTS and not call.args)) and owner == UNKNOWN
                and not self._of_unmoved_model(receiver)):
            return DEVICE  # ``text_encoder.get_input_embeddings().weight.norm(dim=-1)`` (R53)
        return self._model_output_kind(call, env, depth)

    def _of_unmoved_model(self, expr) -> bool:
        """Is ``expr`` read off a model built in the file and never moved (``model.fc.weight``, a
        CPU script's parameters): its tensors are on the host (rules.md "Where a value lives")?"""
        while True:
            if isinstance(expr, (cst.Attribute, cst.Subscript)):
                expr = expr.value
            elif isinstance(expr, cst.Call):
                expr = expr.func
            else:
                break
        return (isinstance(expr, cst.Name) and expr.value in self.ctx.steps.unmoved_models
                and self._function_of(expr.value) is None)

    def _is_module(self, expr) -> bool:
        """``model``, ``self.net``, ``Tacotron(...)``, ``nn.Linear(...)``, ``Net().eval()``: an object
        that ``.to()``/``.cuda()`` moves as a module, not a tensor."""
        ctx = self.ctx
        while (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
               and expr.func.attr.value in _MODULE_CHAIN):
            expr = expr.func.value
        if isinstance(expr, cst.Call):
            qual = ctx.qualname(expr.func)
            name = last_identifier(expr.func) or ""
            if qual is not None and is_torch_name(qual):
                return qual.startswith("torch.nn.") and name[:1].isupper() and "Parameter" not in name
            return name[:1].isupper()  # a class: an object, not a tensor (torch makes tensors with functions)
        name = last_identifier(expr)
        if name is None:
            return False
        return (name in ctx.steps.objects or is_model_name(name)
                or (ctx.torch_instance(expr) or "").startswith("torch.nn.")
                or (isinstance(expr, cst.Name) and name in self._called_names()))

    def _called_names(self) -> FrozenSet[str]:
        """The names the current function calls (tensor_uses.names_called), worked out once each."""
        function = self.ctx.frame.node if self.ctx.frame is not None else None
        if not isinstance(function, cst.FunctionDef):
            return frozenset()
        key = ("called", id(function))
        known = self._tensor_uses.get(key)
        if known is None:
            known = self._tensor_uses[key] = names_called(function)
        return known

    def _model_output_kind(self, call: cst.Call, env, depth: int) -> str:
        """What a model or loss call gives back: on the host for a model built in the file and never
        moved, given host inputs (the spec's "Where a value lives"); else possibly on the device."""
        if not self._returns_model_output(call):
            return UNKNOWN
        return CPU_TENSOR if self._host_model_call(call, env, depth) else DEVICE

    def _host_model_method(self, call: cst.Call, receiver: cst.Name, env, depth: int) -> bool:
        """A method of a model built in the file and never moved (minimalRL's ``model.pi(s)``,
        ``model.v(s)``), given host tensors: its result is on the host too, as its forward's is."""
        # the cheap tests first: every method call on a name passes here
        if not call.args or any(a.star for a in call.args):
            return False
        if receiver.value not in self.ctx.steps.unmoved_models or self._function_of(receiver.value) is not None:
            return False
        kinds = [self._kind(a.value, env, depth + 1) for a in call.args]
        return all(k in HOST for k in kinds) and any(k in HOST_TENSORS for k in kinds)

    def _host_distribution(self, receiver, env, depth: int) -> bool:
        """Is ``receiver`` a torch.distributions object built from host tensors only (``Normal(mu,
        std)`` or a name last bound to one, with ``mu``, ``std`` host tensors or numbers)?"""
        made, made_env = receiver, env
        if isinstance(receiver, cst.Name):
            found = self._plain_binding(receiver.value, env)
            if found is None:
                return False
            made, binding, frame = found
            made_env = _Env(binding, frame)
        if not (isinstance(made, cst.Call) and is_distribution_class(self.ctx.qualname(made.func))):
            return False
        kinds = [self._kind(value, made_env, depth + 1) for value in distribution_parameters(made)]
        return bool(kinds) and all(k in HOST for k in kinds) and any(k in HOST_TENSORS for k in kinds)

    def _host_model_call(self, call: cst.Call, env, depth: int) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value  # ``model.forward(x)``
        if not isinstance(func, cst.Name) or not call.args or any(a.star for a in call.args):
            return False
        kinds = [self._kind(a.value, env, depth + 1) for a in call.args]
        if not (all(k in HOST for k in kinds) and any(k in HOST_TENSORS for k in kinds)):
            return False
        # A parameter of the same name is whatever the caller hands in, not the file's model.
        return func.value in self.ctx.steps.unmoved_models and self._function_of(func.value) is None


def _find_in_target(target, name: str, path=()):
    if isinstance(target, cst.Name):
        return path if target.value == name else None
    if isinstance(target, (cst.Tuple, cst.List)):
        count = len(target.elements)
        for index, element in enumerate(target.elements):
            found = _find_in_target(element.value, name, path + ((index, count),))
            if found is not None:
                return found
    return None


def _subscripts_with(body: cst.CSTNode, container: str, key: str) -> bool:
    """Does ``body`` read or write ``container[key]`` (both plain names)?"""
    for node in descendants(body):
        if (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == container
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)):
            index = node.slice[0].slice.value
            if isinstance(index, cst.Name) and index.value == key:
                return True
    return False


# The pre-0.4 wrapper, which has returned its tensor itself since (R133).
_VARIABLE = frozenset(("torch.autograd.Variable", "torch.autograd.variable.Variable"))


def _pins_memory(made) -> bool:
    """``DataLoader(..., pin_memory=True)`` (no ``**`` settings that could say otherwise)."""
    if not isinstance(made, cst.Call) or last_identifier(made.func) != "DataLoader":
        return False
    if any(arg.star for arg in made.args):
        return False
    flag = keyword(made, "pin_memory")
    return flag is not None and isinstance(flag.value, cst.Name) and flag.value.value == "True"


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


# The per-parameter state of torch's optimizers (Adam/AdamW, SGD, RMSprop, Adadelta): tensors that
# live where the parameters do, and a name a project's own data hardly uses as a key.
_OPTIMIZER_STATE_KEYS = frozenset(("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "momentum_buffer", "square_avg",
                                   "acc_delta"))


def _optimizer_state_key(key) -> bool:
    """Is ``key`` a written string naming a torch optimizer's per-parameter state (``"exp_avg"``)?
    jepa's ``adamw_logger`` reads ``float(s.get('exp_avg').abs().mean())`` for each parameter every
    step (holdout127)."""
    return isinstance(key, cst.SimpleString) and key.evaluated_value in _OPTIMIZER_STATE_KEYS


def _key_passes(test: cst.BaseExpression, key: str, literal: str) -> Optional[bool]:
    """The value of ``test`` when the name ``key`` holds the string ``literal``: comparisons with
    strings (``k != "name"``, ``k in ("f0", "units")``, ``"spk" in k``), ``k.startswith(...)``/
    ``endswith``, ``not``, ``and``, ``or``; None for anything else."""
    def text(node) -> Optional[str]:
        if isinstance(node, cst.Name) and node.value == key:
            return literal
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        return None

    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _key_passes(test.expression, key, literal)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = _key_passes(test.left, key, literal), _key_passes(test.right, key, literal)
        if isinstance(test.operator, cst.And):
            return False if False in (left, right) else (True if left and right else None)
        return True if True in (left, right) else (False if left is False and right is False else None)
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value in (
            "startswith", "endswith") and len(test.args) == 1 and text(test.func.value) is not None:
        subject, argument = text(test.func.value), test.args[0].value
        options = [text(e.value) for e in argument.elements] if isinstance(argument, cst.Tuple) else [text(argument)]
        if None in options:
            return None
        check = subject.startswith if test.func.attr.value == "startswith" else subject.endswith
        return check(tuple(options))
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left, comparison = text(test.left), test.comparisons[0]
        operator, right = comparison.operator, comparison.comparator
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            other = text(right)
            if left is None or other is None:
                return None
            return (left == other) == isinstance(operator, cst.Equal)
        if isinstance(operator, (cst.In, cst.NotIn)) and left is not None:
            if isinstance(right, (cst.Tuple, cst.List, cst.Set)):
                options = [text(e.value) for e in right.elements]
                if None in options:
                    return None
                found = left in options
            elif text(right) is not None:
                found = left in text(right)  # ``"spk" in k``: a substring
            else:
                return None
            return found == isinstance(operator, cst.In)
    return None


def _walks_every_key(loop: cst.For, container: str, key: str) -> bool:
    """Does ``loop`` hand ``key`` every index or key of ``container``: ``for key in
    range(len(container))``, ``for key in container`` / ``container.keys()``, ``for key, v in
    container.items()``?"""
    target, iterable = loop.target, loop.iter
    if isinstance(target, cst.Tuple) and target.elements and isinstance(iterable, cst.Call) and isinstance(
            iterable.func, cst.Attribute) and iterable.func.attr.value == "items":
        first = target.elements[0].value
        return (isinstance(first, cst.Name) and first.value == key and isinstance(iterable.func.value, cst.Name)
                and iterable.func.value.value == container)
    if not (isinstance(target, cst.Name) and target.value == key):
        return False
    if isinstance(iterable, cst.Name):
        return iterable.value == container
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute):
        return (iterable.func.attr.value == "keys" and isinstance(iterable.func.value, cst.Name)
                and iterable.func.value.value == container)
    if (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"
            and len(iterable.args) == 1):
        length = iterable.args[0].value
        return (isinstance(length, cst.Call) and isinstance(length.func, cst.Name) and length.func.value == "len"
                and len(length.args) == 1 and isinstance(length.args[0].value, cst.Name)
                and length.args[0].value.value == container)
    return False


def _self_attribute(node) -> Optional[str]:
    """"self.tokens" for the expression ``self.tokens`` (one attribute of ``self``), else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return "self." + node.attr.value
    return None


def _iterated_expression(expr):
    """What ``enumerate(pbar := tqdm(x))`` or ``next(x)`` hands out the items of: ``x`` (through
    iterating wrappers and walrus bars, first positional argument each); None when a wrapper is
    handed nothing positional."""
    while True:
        if isinstance(expr, cst.NamedExpr):
            expr = expr.value  # ``enumerate(pbar := tqdm(loader))`` (minChatGPT)
            continue
        if isinstance(expr, cst.Call):
            name = last_identifier(expr.func)
            if name == "next" or is_iterating_wrapper(name):
                args = [a.value for a in expr.args if a.keyword is None]
                if not args:
                    return None
                expr = args[0]
                continue
        return expr


def _loader_name(expr) -> Optional[str]:
    """The loader (or iterator) name in ``enumerate(tqdm(train_loader))``, ``next(it)``..., or the
    name of a call that makes one (``build_loader(...)``)."""
    expr = _iterated_expression(expr)
    return last_identifier(expr.func if isinstance(expr, cst.Call) else expr)


def _literal_data(expr: cst.BaseExpression) -> bool:
    """A list, tuple or number written in the source (also a comprehension): host data."""
    return isinstance(expr, (cst.List, cst.Tuple, cst.Integer, cst.Float, cst.ListComp, cst.UnaryOperation))


# Methods that copy a tensor to the host, and methods that keep a value where it is.
_HOST_COPIES = frozenset(("cpu", "numpy", "tolist"))
_DATASET_NAME = re.compile(r"(?:^|_)(?:dataset|dset)$", re.I)
# Libraries whose functions compute on the host and return numpy arrays or numbers (a mesh's
# ``trimesh.proximity.closest_point`` distances, OpenCV images, scipy and scikit-learn results)
_ARRAY_LIBRARIES = ("numpy.", "scipy.", "cv2.", "trimesh.", "skimage.", "sklearn.", "librosa.", "soundfile.",
                    "imageio.", "open3d.")
_KEEPS_PLACE = frozenset(("detach", "float", "double", "half", "long", "int", "bool", "clone", "contiguous",
                          "squeeze", "unsqueeze", "view", "reshape", "permute", "transpose", "flatten"))


def _ends_in_host_copy(expr: cst.BaseExpression) -> bool:
    """``v.detach().cpu()``, ``v.cpu().float()``: a host copy, through methods that keep a value's
    place; what ``v`` was does not change where the result lives."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        name = expr.func.attr.value
        if name in _HOST_COPIES:
            return True
        if name not in _KEEPS_PLACE:
            return False
        expr = expr.func.value
    return False


# Hugging Face ``Trainer`` methods that move a batch to the trainer's device and return it.
_PREPARES_INPUTS = frozenset(("_prepare_inputs", "_prepare_input"))


def _is_self_or_super(expr) -> bool:
    """``self`` or ``super()``."""
    if isinstance(expr, cst.Name):
        return expr.value == "self"
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "super" and not expr.args


# Methods that always give a new tensor (never the tensor itself, as ``.float()`` of a float32
# batch does): on a pinned batch, a copy in pageable memory.
_PAGEABLE_COPIES = frozenset(("half", "bfloat16", "double", "clone"))


def _python_from_torch_submodule(short: str) -> bool:
    """``distributed.get_rank``, ``distributed.get_world_size``, ``cuda.device_count``,
    ``cuda.is_available`` (``torch.`` left out): process and device facts, Python numbers, strings
    and bools; not ``cuda.get_rng_state``, a tensor (moco-v3's ``torch.arange(N) + N *
    torch.distributed.get_rank()``, holdout71)."""
    module, _, name = short.rpartition(".")
    if module not in ("distributed", "cuda"):
        return False
    return name in ("device_count", "current_device") or (name.startswith(("get_", "is_")) and "rng" not in name)


def _asks_for_torch_tensors(call: cst.Call) -> bool:
    """A call given ``return_tensors="pt"`` (a tokenizer, processor or feature extractor)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "return_tensors":
            return string_value(arg.value) == "pt"
    return False
