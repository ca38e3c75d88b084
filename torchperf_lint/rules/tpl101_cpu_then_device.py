"""TPL101 cpu-then-device: a tensor built on the CPU by a torch factory, then moved to the device."""

from __future__ import annotations

import ast
import os
import re
from typing import Dict, Optional

import libcst as cst

from ..catalog import SAFE, UNSAFE
from ..fixing.edits import add_keyword_with_comments
from ..findings import RuleFix
from ..analysis import value_flow
from ..analysis.syntax import (
    assigned_names, device_kind, has_double_splat, has_splat, is_literal_data, keyword, last_identifier, method_call,
    move_target,
    positional,
)
from ..analysis.tree import descendants
from ..analysis.tensor_uses import names_used_as_torch_tensors
from ..analysis.walker import Rule

DETERMINISTIC = frozenset(
    "tensor as_tensor zeros ones empty full arange linspace logspace eye".split()
)
RANDOM = frozenset("rand randn randint randperm normal".split())
# Fixes that change values: random factories draw other numbers on another device (and leave the
# CPU generator where it was); linspace/logspace round differently on CUDA than on the CPU.
_VALUE_CHANGING = RANDOM | frozenset("rand_like randn_like randint_like linspace logspace".split())
# ``*_like`` factories follow their argument's device: flagged only for a known host tensor.
LIKE = frozenset("zeros_like ones_like empty_like full_like rand_like randn_like randint_like".split())
# The legacy typed constructors (``torch.LongTensor([i])``, ``torch.Tensor(n, m)``) build a CPU
# tensor of their type: given sizes, uninitialised like ``empty``; given data, like ``tensor``.
# The dtype each stands for (None: the default dtype).
LEGACY = {
    "Tensor": None, "FloatTensor": "torch.float32", "DoubleTensor": "torch.float64",
    "HalfTensor": "torch.float16", "BFloat16Tensor": "torch.bfloat16", "ByteTensor": "torch.uint8",
    "CharTensor": "torch.int8", "ShortTensor": "torch.int16", "IntTensor": "torch.int32",
    "LongTensor": "torch.int64", "BoolTensor": "torch.bool",
}
_FACTORIES = {f"torch.{name}": name for name in DETERMINISTIC | RANDOM | LIKE | set(LEGACY)}
# Functions of numbers that give a number (numpy's give a scalar, not an array: ``np.log(10000.0)``)
_SCALAR_MATH = frozenset(("log", "log2", "log10", "log1p", "exp", "expm1", "sqrt", "sin", "cos", "tan", "atan",
                          "arctan", "floor", "ceil", "power", "pow", "fabs", "abs"))
# Arithmetic of numbers written out is a number too (``torch.tensor(1/2)``, R145).
_NUMBER_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.Modulo)
_NUMBER_ARITHMETIC_AST = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod)
# Numbers written as calls or constants: ``float("-inf")``, ``math.pi``, ``np.pi`` (RoPINN's
# ``torch.tensor(np.pi, dtype=torch.float32).to(device)``, holdout150; R127).
_NUMBER_CONSTANTS = frozenset(("math.pi", "math.e", "math.tau", "math.inf", "math.nan",
                               "numpy.pi", "numpy.e", "numpy.inf", "numpy.nan", "numpy.euler_gamma"))
# Keywords after which creating on the device is not the same tensor: a leaf that requires grad
# would become a different leaf, pinned memory cannot be on the device, ``out=`` writes elsewhere.
_UNSAFE_FACTORY_KEYWORDS = frozenset(("requires_grad", "pin_memory", "out", "generator"))
# Elementwise functions of one tensor: what they make from a fresh host tensor is one too
# (guided diffusion's ``timestep_embedding``: ``th.exp(-math.log(p) * th.arange(half) / half).to(device)``,
# copied into countless diffusion projects; DifFace and naifu, holdout65).
_ELEMENTWISE_NAMES = ("exp exp2 expm1 log log2 log10 log1p sin cos tan tanh sigmoid sqrt rsqrt abs neg reciprocal floor ceil round"
                      " sign sgn trunc frac square erf")  # (R203: ``torch.randn(n, m).sign()``, deep hashing's codes)
# Ops after which the tensor is still a fresh host tensor nobody else holds: dtype and shape changes,
# in-place fills (the spec's list, with their obvious siblings).
_KEEP_FRESH = frozenset(
    "float double half bfloat16 long int short bool byte char type view reshape repeat repeat_interleave expand "
    "unsqueeze squeeze t flatten contiguous fill_ zero_ tril triu tril_ triu_ transpose permute expand_as view_as reshape_as "
    "uniform_ normal_ random_ bernoulli_ exponential_".split()  # in-place (random) fills
    + "tile fill_diagonal_".split()  # ``torch.arange(W).view(1, -1).tile(H, 1)``: a repeat (mickey,
    # holdout64); ``torch.zeros(n, n).fill_diagonal_(m)``: an in-place fill (SimKGC, holdout63)
    + _ELEMENTWISE_NAMES.split()  # ``.exp()``: one value per value, a new host tensor
    # ``.type_as(x)`` on the way to an explicit move (``torch.empty(1, 1).fill_(sos).type_as(src).to(device)``:
    # pytorch-transformer's greedy decoding, holdout78; Informer2020's attention): the factory's
    # tensor reaches the device by one or the other; ``type_as`` alone stays no move the rule names
    + ["type_as"]
)
# Those of them torch also offers as functions of the tensor (``torch.unsqueeze(t, 0)``).
_FUNCTION_FORMS = frozenset("unsqueeze squeeze reshape flatten t transpose permute tril triu".split()
                            + _ELEMENTWISE_NAMES.split())
# Tensor attributes that are views of the tensor (its transposes): ``.t()`` as a property.
_TRANSPOSE_VIEWS = frozenset(("T", "mT", "H", "mH"))
# Methods that are arithmetic with one operand (``t.pow(2)`` is ``t ** 2``).
_ARITHMETIC_METHODS = frozenset(("pow", "mul", "add", "sub", "div", "true_divide"))
# ``torch.autograd.Variable(t)`` without ``requires_grad=`` hands back ``t`` itself (torch >= 0.4).
_VARIABLE = frozenset(("torch.autograd.Variable", "torch.autograd.variable.Variable"))
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
_ORDERING = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


class CpuThenDevice(Rule):
    code = "TPL101"
    message = (
        "tensor is created on the CPU and then copied to the device; pass `device=` to "
        "`torch.{factory}(...)` to create it there (runtime_guard: device-native creation)"
    )
    # ``.to(x)`` with ``x`` a tensor: a move to ``x``'s device and a cast to its dtype in one.
    message_tensor = (
        "tensor is created on the CPU and then copied to the device of `{target}`; pass "
        "`device={target}.device` to `torch.{factory}(...)` to create it there (the `.to({target})` "
        "then only casts)"
    )
    message_legacy = (
        "tensor is created on the CPU by the legacy constructor `torch.{factory}(...)` and then copied "
        "to the device; create it there with `{modern}`"
    )
    prefilter = (
        (".cuda(", ".to("),  # = r"\.(?:cuda|to)\("
        ("tensor(", "Tensor(", "zeros(", "ones(", "empty(", "full(", "arange(", "linspace(", "logspace(", "eye(",
         "rand", "normal("),
        r"\b(?:tensor|as_tensor|zeros|ones|empty|full|arange|linspace|logspace|eye|rand\w*|normal|\w*Tensor)\(",
    )

    @classmethod
    def ast_may_match(cls, unit) -> bool:
        """A ``.to(...)``/``.cuda(...)`` call and a call that may be a host factory: most units the
        text prefilter lets through pass ``device=`` already, call numpy's ``zeros``, or name a
        factory in a docstring."""
        factories = {id(call) for call in unit.calls_to(_FACTORIES) if _may_be_factory(call, unit.callee(call))}
        if not factories:
            return False
        # Every report is of a move whose receiver is a fresh factory result, directly or through
        # the ops that keep it fresh, or a name assigned one (``mask = torch.ones(n)``).
        fresh_names = set()
        derived = []  # (name, the name under ops that keep it fresh): R189's ``y = x.unsqueeze(0)``
        for node in unit.nodes:
            if (type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name
                    and _may_be_fresh(node.value, factories)):
                fresh_names.add(node.targets[0].id)
            elif type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
                base = _ast_name_under_kept_ops(node.value)
                if base is not None and base != node.targets[0].id:
                    derived.append((node.targets[0].id, base))
            elif (type(node) is ast.Assign and len(node.targets) == 1 and _ast_self_attribute(node.targets[0])
                  and _may_be_fresh(node.value, factories)):
                fresh_names.add(_ast_self_attribute(node.targets[0]))  # ``self.c = torch.tensor([c])`` (R68)
            elif (type(node) is ast.AnnAssign and type(node.target) is ast.Name and node.value is not None
                  and _may_be_fresh(node.value, factories)):
                fresh_names.add(node.target.id)  # ``tot_loss: Tensor = torch.tensor(0.0)``
        grown = bool(derived)
        while grown:
            grown = False
            for name, base in derived:
                if base in fresh_names and name not in fresh_names:
                    fresh_names.add(name)
                    grown = True
        for call in unit.calls:
            func = call.func
            if type(func) is ast.Attribute and func.attr in ("to", "cuda"):
                receiver = func.value
                while type(receiver) is ast.Call and type(receiver.func) is ast.Attribute and (
                        receiver.func.attr in _KEEP_FRESH or receiver.func.attr in _ARITHMETIC_METHODS):
                    receiver = receiver.func.value  # ``alpha.expand_as(x).to(...)``
                if (type(receiver) is ast.Name and receiver.id in fresh_names) or _may_be_fresh(func.value, factories):
                    return True
                if _ast_self_attribute(receiver) in fresh_names:
                    return True
        return False

    def __init__(self, ctx, sink):
        super().__init__(ctx, sink)
        # ``mask = torch.ones(n)`` waiting to be moved: (frame, name) -> (factory call, its name)
        self._fresh = {}
        # ... read in the statement that rebinds the name to ops that keep it fresh (``mask =
        # mask.view(-1, 1).repeat(1, h)``): carried over to the new binding when the statement ends
        self._carried = {}
        # (frame, name) -> the ``if`` branches the fresh binding sits in (_branches): another
        # branch of one of them binds the name on another path, which leaves this one fresh (R93)
        self._fresh_branches = {}
        # (frame, name) -> [(factory call and name, branches)] of the fresh bindings of the name in
        # the other branches of those ``if``s (``if a: x = torch.rand(1)`` / ``elif b: x =
        # torch.rand(n)`` / ``else: x = torch.FloatTensor([0.5])``, then ``x = x.to(d)``): each path
        # makes its own host tensor, and the move after the ``if`` copies each one (R162)
        self._fresh_alternatives = {}

    def _factory_name(self, factory: cst.BaseExpression):
        """The factory's name if ``factory`` makes a new host tensor (see the rule's conditions)."""
        if not isinstance(factory, cst.Call):
            return None
        name = _FACTORIES.get(self.ctx.qualname(factory.func) or "")
        if name is None or keyword(factory, "device") is not None or has_double_splat(factory):
            return None  # ``**opts`` may hold a device; ``*shape`` cannot
        data = positional(factory)
        if name in LEGACY:
            return name if self._legacy_form(factory) is not None else None
        if name in ("tensor", "as_tensor"):
            # tensor(x) of data that already lives on the host is a copy either way.
            if not data or not self._is_literal_data(data[0].value):
                return None
        if name in LIKE and (not data or not self.ctx.is_cpu_tensor(data[0].value)):
            return None
        if name == "normal" and not self._normal_of_numbers(factory):
            return None  # ``torch.normal(mean, std)`` of tensors draws where they are (lightning-ir)
        return name

    def _normal_of_numbers(self, factory: cst.Call) -> bool:
        """``torch.normal(0.0, 1.0, size=(n,))``: the mean and the std are numbers (written, or not
        known to be tensors), so the sample is made on the CPU; with a tensor mean or std it is made
        on that tensor's device. With a ``size`` (``torch.normal(mean=0.0, std=noise_std,
        size=shape)``) the mean and the std are numbers whatever they are written as: torch's one
        overload with a size takes floats (a 0-dim tensor is read with ``.item()``) and draws on the
        default device (meshGraphNets' ``get_velocity_noise``, holdout205; R179)."""
        data = positional(factory)
        if len(data) >= 3 or any(a.keyword is not None and a.keyword.value == "size" for a in factory.args):
            return True
        given = [a.value for a in data[:2]] + [a.value for a in factory.args
                                                if a.keyword is not None and a.keyword.value in ("mean", "std")]
        # (numbers written or known Python values, not a name of unknown kind: ``mean = h.mean(0)``)
        return bool(given) and all(self._is_number(value, unknown_names=False) for value in given)

    def _is_number_written(self, expr: cst.BaseExpression) -> bool:
        """A number written in the source: a literal, a sign of one, ``math.pi``-like constants,
        ``float("inf")``, or arithmetic of such numbers."""
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self._is_number_written(expr.expression)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _NUMBER_ARITHMETIC):
            return self._is_number_written(expr.left) and self._is_number_written(expr.right)
        if isinstance(expr, (cst.Call, cst.Attribute)):
            return self._is_literal_data(expr)
        return False

    def _is_literal_data(self, expr: cst.BaseExpression) -> bool:
        """Data written in the source: a list, tuple, comprehension or number, numbers written as
        ``float("-inf")``, ``math.pi`` or ``np.pi`` included."""
        if is_literal_data(expr):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self._is_literal_data(expr.expression)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _NUMBER_ARITHMETIC) and (
                self._is_number_written(expr.left) and self._is_number_written(expr.right)):
            return True  # ``torch.tensor(1/2)``: arithmetic of numbers written out (IFRNet, holdout164; R145)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
            # ``[sos] * n``: a list written in the source, repeated (StyleTTS2's ASR decoder), also
            # repeated again (``[1] * batch_size * n * 16``: AniPortrait's guidance mask, R134)
            return _repeated_list(expr)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            # ``[1] * n + [0] * n``: lists written in the source, joined (Loss-Gated-Learning's AAT
            # labels, holdout129)
            return self._is_literal_data(expr.left) and self._is_literal_data(expr.right)
        if isinstance(expr, cst.Call):
            args = expr.args
            return (isinstance(expr.func, cst.Name) and expr.func.value == "float" and self.ctx.is_builtin("float")
                    and len(args) == 1 and args[0].keyword is None and not args[0].star
                    and isinstance(args[0].value, cst.SimpleString))
        return isinstance(expr, cst.Attribute) and self.ctx.qualname(expr) in _NUMBER_CONSTANTS

    def _is_parameter(self, name: str) -> bool:
        """Is ``name`` a parameter of the function around the current node, not bound again
        before here?"""
        function = next((n for n in reversed(self.ctx.stack) if isinstance(n, cst.FunctionDef)), None)
        if function is None or self.ctx.values.assigned_expr(name) is not None:
            return False
        params = function.params
        return any(p.name.value == name for p in (*params.posonly_params, *params.params, *params.kwonly_params))

    def _used_as_torch_tensor(self, expr: cst.BaseExpression) -> bool:
        function = next((n for n in reversed(self.ctx.stack) if isinstance(n, cst.FunctionDef)), None)
        return (isinstance(expr, cst.Name) and function is not None
                and expr.value in names_used_as_torch_tensors(function))

    def _legacy_form(self, factory: cst.Call):
        """"sizes" for ``torch.Tensor(n, m)`` / ``torch.FloatTensor(*shape)`` / ``torch.Tensor(x.size())``,
        "data" for ``torch.LongTensor([i])``; ``torch.Tensor(x.shape)`` is sizes only for a tensor ``x``
        (a numpy or gym ``.shape`` is a tuple: data); None when it cannot be told (``torch.Tensor(x)``: a
        size or a host list) or is neither."""
        if (len(factory.args) == 1 and factory.args[0].keyword is not None
                and factory.args[0].keyword.value == "size"):
            return "sizes"  # ``torch.ByteTensor(size=(n,))`` (stylegan2's all_gather)
        if any(a.keyword is not None for a in factory.args):
            return None  # ``device=``, ``dtype=`` and the like: not the plain legacy form
        args = factory.args
        if not args:
            return None
        if len(args) == 1 and not args[0].star:
            value = args[0].value
            if isinstance(value, cst.Integer):
                return "sizes"
            if self._is_literal_data(value) or self._is_range_list(value):
                return "data"
            if isinstance(value, cst.Attribute) and value.attr.value == "shape":
                # A tensor's ``.shape`` is a torch.Size, which the constructor reads as sizes; any
                # other ``.shape`` is a tuple (numpy, a gym space), which it reads as data:
                # ``torch.Tensor(action_space.shape)`` is ``tensor([6.])``.
                # A name the function calls a torch-only method on (``audio.to(self.device)``) is a
                # tensor too (ReFlow-VAE-SVC's padding masks, holdout146; R123).
                return "sizes" if self.ctx.is_tensor(value.value) or self._used_as_torch_tensor(value.value) else None
            if _is_size_expression(value) or _grows_a_size(value):
                return "sizes"
            if _number_arithmetic(value) and all(
                    isinstance(leaf, cst.Integer) or _names_a_size(last_identifier(leaf))
                    for leaf in _arithmetic_leaves(value)):
                # ``torch.LongTensor(opt.batchSize * 5)`` (MORAN's and Attention_ocr's label buffers,
                # holdout219; R193): arithmetic on names called sizes and numbers only is a number;
                # any other name may be a list it repeats (``ids * n``: data)
                return "sizes"
            if isinstance(value, cst.Call) and (
                    (self.ctx.qualname(value.func) or "") in _COUNT_REDUCTIONS
                    or (isinstance(value.func, cst.Name) and value.func.value == "sum"
                        and self.ctx.is_builtin("sum"))):
                # ``torch.Tensor(np.sum(self.grad_dims))``: one number, the total of a list of
                # sizes (LIBERO's A-GEM gradient buffer, holdout44): the constructor reads a size
                return "sizes"
            if (isinstance(value, cst.Name) and _SIZE_PARAMETER.match(value.value) and self._is_parameter(value.value)
                    and not self._rebinds_its_argument(value.value)):
                # ``def __init__(self, size, ...)``: ``torch.FloatTensor(size).zero_()`` (UniXcoder's
                # beam): a parameter named as a size is one, not a list of data
                return "sizes"
            if isinstance(value, cst.Name):
                # ``batch_size = batch_H.size(0)`` ... ``torch.LongTensor(batch_size)``: a name bound
                # to a size or an integer literal (value flow's Python kind also holds ``.tolist()``
                # lists, which the constructor reads as data)
                assigned = self.ctx.values.assigned_expr(value.value)
                if assigned is not None and (isinstance(assigned, cst.Integer) or _is_size_expression(assigned)):
                    return "sizes"
                if assigned is not None and _SIZE_PARAMETER.match(value.value) and _number_arithmetic(assigned):
                    # ``buffer_size = economy * args.mem_size`` ... ``torch.LongTensor(buffer_size)``
                    # (MIR's replay buffer, holdout118): a name called a size, bound to arithmetic
                    # on names and numbers; a list repeated (``[0] * n``) shows its list
                    return "sizes"
            return None
        if all(a.star in ("", "*") for a in args):
            # several positional arguments are always sizes (data is one argument; the constructor
            # raises for ``torch.Tensor([1, 2], 3)``), whatever expressions give them (DeepCTR's
            # ``torch.Tensor(sum(fc.dimension for fc in cols), 1)``)
            return "sizes"
        return None

    def _rebinds_its_argument(self, name: str) -> bool:
        """Is the constructor inside ``name = ...`` of the very name it is handed (trade-dst's
        ``length = Variable(torch.LongTensor(length)).cuda()``)? A parameter converted under its own
        name is data the function turns into a tensor; no one calls an uninitialised buffer by the
        size it was made from (R186)."""
        for node in reversed(self.ctx.stack):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            if isinstance(node, cst.Assign):
                return any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets)
        return False

    def _is_range_list(self, value) -> bool:
        """``list(range(n))`` or ``range(n)``: numbers the host counts out (GEARS's
        ``torch.LongTensor(list(range(self.num_genes))).to(device)``), an ``arange`` made on the CPU."""
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list"
                and len(value.args) == 1 and not value.args[0].star and self.ctx.is_builtin("list")):
            value = value.args[0].value
        return (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "range"
                and self.ctx.is_builtin("range") and all(a.keyword is None and not a.star for a in value.args))

    def _message(self, factory: cst.Call, name: str, target: Optional[cst.BaseExpression] = None) -> str:
        if name not in LEGACY:
            if target is not None:
                return self.message_tensor.format(target=cst.Module([]).code_for_node(target), factory=name)
            return self.message.format(factory=name)
        sizes = self._legacy_form(factory) == "sizes"
        # ``torch.Tensor([1, 2])`` is a float tensor where ``torch.tensor([1, 2])`` infers int64.
        dtype = LEGACY[name] or (None if sizes else "torch.get_default_dtype()")
        dtype_part = f", dtype={dtype}" if dtype else ""
        modern = ("torch.empty(..." if sizes else "torch.tensor(...") + f"{dtype_part}, device=...)"
        return self.message_legacy.format(factory=name, modern=modern)

    def _fresh_tensor(self, expr: cst.BaseExpression):
        """(factory call, its name, moved directly?) when ``expr`` is a fresh host tensor: a factory
        call, or one followed by ops that keep it one (``.long()``, ``.view(...)``, ``+ k``, ``> p``)."""
        direct = True
        while True:
            inner = self._kept_operand(expr)
            if inner is None:
                break
            expr, direct = inner, False
        name = self._factory_name(expr)
        return (expr, name, direct) if name is not None else None

    def _kept_operand(self, expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The tensor ``expr`` applies one op to that keeps a fresh host tensor fresh, or None: the
        same ops whether the factory is written there (``_fresh_tensor``) or a name bound to it is
        (``_name_under_fresh_ops``: ``mask = (mask == 0).unsqueeze(1)``, CoSeRec's causal mask)."""
        if isinstance(expr, cst.Call):
            if (expr.args and expr.args[0].keyword is None and not expr.args[0].star
                    and all(a.keyword is not None and a.keyword.value == "volatile" for a in expr.args[1:])
                    and self.ctx.qualname(expr.func) in _VARIABLE):
                # ``Variable(torch.ones(1)).cuda()``: Variable has returned its tensor since torch 0.4,
                # and ``volatile=`` has done nothing since (PSMNet's cost volume, holdout144; R114)
                return expr.args[0].value
            held = self._function_form_operand(expr)
            if held is not None:
                # ``torch.unsqueeze(torch.Tensor([29871]).long(), dim=0)``: the function spelling
                # of a method that keeps the tensor fresh (openvla's predict_action)
                return held
            found = method_call(expr)
            if found is not None and self._keeps_fresh(expr, found[1]):
                return found[0]
            return None
        if isinstance(expr, cst.Attribute) and expr.attr.value in _TRANSPOSE_VIEWS:
            return expr.value  # ``torch.arange(n).T``: a view of the fresh tensor (R62)
        if isinstance(expr, cst.Subscript) and all(_adds_or_keeps_axis(e.slice) for e in expr.slice):
            return expr.value  # ``torch.arange(n)[None, :]``: a view of the fresh tensor
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
            if self._is_number(expr.right):
                return expr.left
            if self._is_number(expr.left):
                return expr.right
            return None
        if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1 and isinstance(
            expr.comparisons[0].operator, _ORDERING
        ):
            if self._is_number(expr.comparisons[0].comparator):
                return expr.left
            if self._is_number(expr.left):
                return expr.comparisons[0].comparator
            return None
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return expr.expression
        return None

    def _function_form_operand(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The tensor operand of ``torch.unsqueeze(t, 0)``, ``torch.reshape(t, shape)``,
        ``torch.flatten(t)``... (the ``_KEEP_FRESH`` views and casts called as torch functions), or
        None."""
        qual = self.ctx.qualname(call.func)
        if not qual or not qual.startswith("torch.") or qual.count(".") != 1 or has_splat(call):
            return None
        if qual[6:] not in _FUNCTION_FORMS:
            return None
        args = positional(call)
        if not args or call.args[0] is not args[0]:
            return None
        return args[0].value

    def _keeps_fresh(self, call: cst.Call, method: str) -> bool:
        if method in _KEEP_FRESH:
            return not has_double_splat(call)
        if method in _ARITHMETIC_METHODS:
            # ``torch.linspace(...).pow(2)``, as ``** 2``: arithmetic with a number makes a new host tensor
            args = positional(call)
            return len(call.args) == 1 and len(args) == 1 and self._is_number(args[0].value)
        if method == "to":  # ``.to(torch.long)``, ``.to(dtype=weight_dtype)``: a dtype change, not a move
            args = positional(call)
            if len(call.args) == 1 and len(args) == 1:
                return device_kind(args[0].value, self.ctx) == "dtype"
            return len(call.args) == 1 and call.args[0].keyword is not None and call.args[0].keyword.value == "dtype"
        return False

    def _is_number(self, expr: cst.BaseExpression, unknown_names: bool = True) -> bool:
        """A number, or a name or attribute not known to hold a tensor (``k``, ``self.p``, ``len(x)``);
        without ``unknown_names``, only a number written or a value known to be a Python one."""
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return self._is_number(expr.expression, unknown_names)
        if isinstance(expr, cst.BinaryOperation):
            return self._is_number(expr.left, unknown_names) and self._is_number(expr.right, unknown_names)
        if isinstance(expr, cst.Call) and expr.args and all(
                a.keyword is None and not a.star and self._is_number(a.value, unknown_names) for a in expr.args):
            # ``np.log(10000.0)``, ``math.sqrt(d)``: a math function of numbers is a number (RefineGNN's
            # positional frequencies, holdout167; R149)
            qual = self.ctx.qualname(expr.func) or ""
            if qual.startswith(("numpy.", "math.")) and qual.count(".") == 1 and qual.split(".")[1] in _SCALAR_MATH:
                return True
        kind = self.ctx.value_kind(expr)
        if kind == value_flow.PYTHON:
            return True
        return unknown_names and isinstance(expr, (cst.Name, cst.Attribute)) and kind == value_flow.UNKNOWN

    def visit_Call(self, node: cst.Call) -> None:
        if self._fresh and _hands_self(node):
            # ``self.reset()`` or ``helper(self)`` between ``self.c = torch.tensor(...)`` and its
            # move may read the attribute on the host (R68)
            frame = id(self.ctx.frame)
            for key in [key for key in self._fresh if key[0] == frame and key[1].startswith("self.")]:
                del self._fresh[key]
        found = method_call(node)
        if found is None or found[1] not in ("cuda", "to"):
            return
        receiver = found[0]
        if isinstance(receiver, cst.Name):
            self._moved_variable(node, receiver)
            return
        attribute = _self_attribute(receiver)
        if attribute is not None:
            self._moved_attribute(node, attribute)
            return
        named = self._name_under_fresh_ops(receiver)
        if named is not None:
            # ``alpha = alpha.expand_as(data).to(data.device)``: a name moved after ops that keep it fresh
            self._moved_variable(node, named)
            return
        fresh = self._fresh_tensor(receiver)
        if fresh is None:
            return
        factory, name, direct = fresh
        if move_target(node, self.ctx) != "accelerator":
            target = self._tensor_target(node)
            if target is not None:
                fix = self._tensor_fix(factory, name, target) if direct and name not in LEGACY else None
                self.report(factory, self._message(factory, name, target), fix)
            return
        if self._moves_to_a_host_default(node):
            return
        # With ops between factory and move there is no one-keyword fix: the author rewrites it. A
        # legacy constructor gets none either: it raises for any ``device=`` but the CPU, and its
        # modern spelling (``torch.empty``/``torch.tensor`` with a dtype) changes more than the device.
        fix = self._fix(node, factory, name) if direct and name not in LEGACY else None
        self.report(factory, self._message(factory, name), fix)

    def _moved_variable(self, move: cst.Call, receiver: cst.Name) -> None:
        """``mask = torch.ones(n)`` ... ``mask = mask.to(device)``: the same pitfall in two statements."""
        key = (id(self.ctx.frame), receiver.value)
        if _exclusive(self._fresh_branches.get(key, ()), self._branches()):
            return  # a move on another path than the fresh binding's (its ``else``): not that tensor
        fresh = self._fresh.pop(key, None)
        self._fresh_branches.pop(key, None)
        alternatives = self._fresh_alternatives.pop(key, ())
        if fresh is None:
            return
        for other, branches in alternatives:
            if not _exclusive(branches, self._branches()):
                self._moved_fresh(other, move, receiver)
        self._moved_fresh(fresh, move, receiver)

    def _moved_fresh(self, fresh, move: cst.Call, receiver: cst.Name) -> None:
        """Report ``fresh`` (a factory call and its name) bound to ``receiver`` and moved by ``move``
        when the move's statement leaves no host tensor in use (_moved_variable)."""
        assign = self.ctx.parent()
        if self._handed_out(move):  # ``yield inputs.cuda(), labels.cuda()``
            self._report_moved(fresh, move)
            return
        if isinstance(assign, cst.IfExp):
            # ``x = x.to("cuda") if torch.cuda.is_available() else x.to("cpu")`` (or ``else x``): the
            # name rebound to its own move on the branch that moves it
            branches = (assign.body, assign.orelse)
            if all(_moves_or_is(branch, receiver.value) for branch in branches):
                move = next((b for b in branches if isinstance(b, cst.Call)
                             and move_target(b, self.ctx) == "accelerator"), move)
                parent = self.ctx.parent(2)
                if isinstance(parent, cst.Assign) and parent.value is assign:
                    assign = parent
                    if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) and (
                            assign.targets[0].target.value == receiver.value):
                        self._report_moved(fresh, move)
                        return
        if isinstance(assign, cst.BinaryOperation) and isinstance(assign.operator, _ARITHMETIC):
            # ``tot_loss = tot_loss.to(scaled.device) + scaled``: the name rebound to arithmetic on
            # its own move, the host tensor never used again (lightning-pose's loss factory)
            depth = 1
            while isinstance(self.ctx.parent(depth), cst.BinaryOperation):
                depth += 1
            outer = self.ctx.parent(depth)
            if (isinstance(outer, cst.Assign) and outer.value is self.ctx.parent(depth - 1)
                    and len(outer.targets) == 1 and isinstance(outer.targets[0].target, cst.Name)
                    and outer.targets[0].target.value == receiver.value
                    and sum(1 for n in descendants(outer.value)
                            if isinstance(n, cst.Name) and n.value == receiver.value) == 1):
                self._report_moved(fresh, move)
                return
        if isinstance(assign, cst.Element) and assign.value is move and self._rebound_in_tuple(assign, receiver):
            self._report_moved(fresh, move)
            return
        value = move
        top, depth = self._through_kept_methods(move)
        if top is not move and isinstance(self.ctx.parent(depth), cst.Assign) and self.ctx.parent(depth).value is top:
            assign, value = self.ctx.parent(depth), top  # ``m = m.unsqueeze(-1).cuda().float()`` (R101)
        if not isinstance(assign, cst.Assign) or assign.value is not value:
            if self._only_load(receiver):
                # ``k = torch.tensor([...]).view(1, 3, 1, 1)`` ... ``x * k.to(x.device)``: the move
                # is the name's one use in the function, so the host tensor is never used as such
                self._report_moved(fresh, move)
            return
        targets = [t.target for t in assign.targets]
        if len(targets) != 1 or not isinstance(targets[0], cst.Name) or targets[0].value != receiver.value:
            if self._only_load(receiver):
                # ``seq_range = torch.arange(n).long()`` then ``expanded = seq_range.unsqueeze(0)
                # .expand(b, n).to(lengths.device)``: the move bound to another name is the host
                # tensor's one read (ppg-vc's ``get_mask``, holdout196; R167)
                self._report_moved(fresh, move)
            return  # else the host tensor is kept under its name: moving its creation would change it
        self._report_moved(fresh, move)

    def _rebound_in_tuple(self, item: cst.Element, receiver: cst.Name) -> bool:
        """``stds, epsilon = stds.cuda(), epsilon.cuda()`` (vaal's ``reparameterize``, holdout158;
        R138): the name rebound to its own move by the target in the same place of a tuple
        assignment, and read nowhere else in the statement: the host tensor is never used again."""
        items, outer = self.ctx.parent(2), self.ctx.parent(3)
        if not (isinstance(items, (cst.Tuple, cst.List)) and isinstance(outer, cst.Assign) and outer.value is items
                and len(outer.targets) == 1 and isinstance(outer.targets[0].target, (cst.Tuple, cst.List))):
            return False
        names = outer.targets[0].target.elements
        if len(names) != len(items.elements) or any(isinstance(e, cst.StarredElement)
                                                    for e in (*names, *items.elements)):
            return False
        index = next((i for i, e in enumerate(items.elements) if e is item), None)
        target = names[index].value if index is not None else None
        return (isinstance(target, cst.Name) and target.value == receiver.value
                and sum(1 for n in descendants(outer.value) if isinstance(n, cst.Name) and n.value == receiver.value) == 1)

    def _through_kept_methods(self, move: cst.Call):
        """(the outermost call, its depth above the current node) of methods that keep the moved
        tensor as it is applied after the move (``m.unsqueeze(-1).cuda().float()``: rcg's MAGE
        drop mask, holdout128; R101), so that the statement around them is read as around the move."""
        top, depth = move, 1
        while True:
            attribute, call = self.ctx.parent(depth), self.ctx.parent(depth + 1)
            if not (isinstance(attribute, cst.Attribute) and attribute.value is top and isinstance(call, cst.Call)
                    and call.func is attribute and self._keeps_fresh(call, attribute.attr.value)):
                return top, depth
            top, depth = call, depth + 2

    def _moved_attribute(self, move: cst.Call, attribute: str) -> None:
        """``self.c = torch.tensor([args.c])`` ... ``self.c = self.c.to(args.device)`` in the same
        function, nothing between reading ``self.c`` or handing ``self`` on (hgcn's ``BaseModel``,
        holdout120; R68): the attribute rebound to its own move, as ``_moved_variable``'s plain case."""
        fresh = self._fresh.pop((id(self.ctx.frame), attribute), None)
        if fresh is None:
            return
        assign = self.ctx.parent()
        if (isinstance(assign, cst.Assign) and assign.value is move and len(assign.targets) == 1
                and _self_attribute(assign.targets[0].target) == attribute):
            self._report_moved(fresh, move)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        # A read of ``self.c`` before its move works on the host tensor (as visit_Name for names).
        if self._fresh and not isinstance(self.ctx.parent(), cst.AssignTarget):
            attribute = _self_attribute(node)
            if attribute is not None:
                self._fresh.pop((id(self.ctx.frame), attribute), None)

    def _name_under_fresh_ops(self, expr: cst.BaseExpression) -> Optional[cst.Name]:
        """The name under one or more ops that keep a tensor fresh (``alpha.expand_as(x)``,
        ``mask.float().view(-1)``, ``(mask == 0).unsqueeze(1)``, ``m + 1``), or None."""
        seen = False
        while True:
            inner = self._kept_operand(expr)  # (``torch.unsqueeze(mask, 0)``: the operand, not ``torch``)
            if inner is None:
                break
            expr, seen = inner, True
        return expr if seen and isinstance(expr, cst.Name) else None

    def _report_moved(self, fresh, move: cst.Call) -> None:
        """Report the factory of a name moved later (no fix: creation and move are apart)."""
        factory, name = fresh
        if move_target(move, self.ctx) == "accelerator":
            if not self._moves_to_a_host_default(move):
                self.report(factory, self._message(factory, name))
        else:
            target = self._tensor_target(move)
            if target is not None:
                self.report(factory, self._message(factory, name, target))

    def _moves_to_a_host_default(self, move: cst.Call) -> bool:
        """``.to(device)`` where ``device`` is a parameter of the function around the move that
        defaults to ``"cpu"``, the function never binds it again, and every visible call of the
        function leaves it at that default: the project's calls show the tensor stays on the host
        (PINNacle's ``err_fft(..., device='cpu')``, I2SB's corruption mixtures; R72). The calls are
        those of the file; another module of the project that imports this one and names the
        function could call it with a device, so the reading holds only when none does. With no
        visible call at all (a library's function, called by its users) the move is reported."""
        argument = keyword(move, "device")
        if argument is None:
            args = positional(move)
            argument = args[0] if args else None
        if argument is None or not isinstance(argument.value, cst.Name):
            return False
        device = argument.value.value
        function = self.ctx.frame.node
        if not isinstance(function, cst.FunctionDef):
            return False
        params = function.params
        ordered = [*params.posonly_params, *params.params]
        param = next((p for p in (*ordered, *params.kwonly_params) if p.name.value == device), None)
        if param is None or param.default is None or not _host_device_default(param.default):
            return False
        if any(isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))
               and device in assigned_names(node.target) for node in descendants(function.body)):
            return False  # bound again in the function: the default says nothing of the move
        callee, index = function.name.value, (ordered.index(param) if param in ordered else None)
        owner = self._class_around(function)
        if owner == "":
            return False
        if owner is not None:
            if ordered and ordered[0].name.value in ("self", "cls") and index is not None:
                index -= 1  # ``obj.method(a)`` and ``Class(a)`` hand no ``self``
            if callee == "__init__":
                callee = owner
        calls = self.ctx.facts.derived("calls_by_last_name", _calls_by_last_name).get(callee, ())
        if not calls:
            return False
        for call in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return False
            if any(k.arg == device for k in call.keywords) or (index is not None and len(call.args) > index):
                return False
        bodies = getattr(self.ctx.facts, "step_bodies", None)
        project = getattr(bodies, "project", None)
        module = getattr(bodies, "module", None)
        if project is None or module is None or not module.name:
            return False
        try:
            for path in project.importers(module.name):
                if os.path.abspath(path) == module.path:
                    continue
                text = project.current_text(path)
                if text is None or re.search(rf"\b{re.escape(callee)}\b", text):
                    return False
        except (OSError, ValueError):
            return False
        return True

    def _class_around(self, function: cst.FunctionDef) -> Optional[str]:
        """The name of the class whose body defines ``function`` directly, if any; "" when the file
        has several such definitions and cannot tell which (a unit the walk parses may be one
        method, without its class: the file's ast answers, by the name and the parameters)."""
        params = function.params
        key = (function.name.value, tuple(p.name.value for p in (*params.posonly_params, *params.params,
                                                                   *params.kwonly_params)))
        owners = self.ctx.facts.derived("method_owners", _method_owners).get(key, ())
        if not owners:
            return None
        return owners[0] if len(owners) == 1 else ""

    def _only_load(self, receiver: cst.Name) -> bool:
        """Is ``receiver`` the one place the function (or module) reads its name? Nested functions
        and classes count: they may read it when called."""
        scope = self.ctx.frame.node
        if scope is None:
            # module level: the unit is a part of the file, so the file's own names count (a
            # script's episode loop, pytorch_xvectors's ``labels = torch.arange(...)`` then
            # ``criterion(out, labels.cuda())``, holdout137; R104)
            counts = self.ctx.facts.derived("tpl101-name-counts", _name_counts)
            return counts.get(receiver.value, 0) == 2
        reads = 0
        for node in descendants(scope.body if hasattr(scope, "body") else scope):
            if isinstance(node, cst.Name) and node.value == receiver.value:
                reads += 1
                if reads > 2:  # the binding target and this move
                    return self._only_load_of_binding(receiver)
        return reads == 2

    def _only_load_of_binding(self, receiver: cst.Name) -> bool:
        """A name the function binds several times: is the move the one read of the binding right
        before it? The statement that moves follows the binding in one block outside loops, reads
        the name once, and nothing after it in the function names it again
        (Graph_Transformer_Networks' ``value_tmp = torch.ones(n).type(torch.FloatTensor)`` then
        ``A.append([edge_tmp.to(device), value_tmp.to(device)])`` after a loop that used the same
        name, holdout181; R159)."""
        stack, name = self.ctx.stack, receiver.value
        holder = None
        for index in range(len(stack) - 2, 0, -1):
            node = stack[index]
            if isinstance(node, (cst.For, cst.While, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(node, cst.FunctionDef):
                break
            if isinstance(node, (cst.IndentedBlock, cst.Module)) and holder is None:
                holder = index
        else:
            return False
        if holder is None:
            return False
        block, moving = stack[holder].body, stack[holder + 1]
        at = next((i for i, statement in enumerate(block) if statement is moving), None)
        if not at:
            return False
        binding = block[at - 1]
        if not (isinstance(binding, cst.SimpleStatementLine) and len(binding.body) == 1
                and isinstance(binding.body[0], cst.Assign) and len(binding.body[0].targets) == 1
                and isinstance(binding.body[0].targets[0].target, cst.Name)
                and binding.body[0].targets[0].target.value == name):
            return False
        if sum(1 for n in descendants(moving) if isinstance(n, cst.Name) and n.value == name) != 1:
            return False
        # what follows, in this block and in every block around it up to the function
        for index in range(holder, 0, -1):
            node = stack[index]
            if isinstance(node, cst.FunctionDef):
                break
            if not isinstance(node, (cst.IndentedBlock, cst.Module)):
                continue
            inner = stack[index + 1]
            after = list(node.body)
            position = next((i for i, statement in enumerate(after) if statement is inner), None)
            if position is None:
                return False
            if any(isinstance(n, cst.Name) and n.value == name
                   for statement in after[position + 1:] for n in descendants(statement)):
                return False
        return True

    def _handed_out(self, move: cst.Call) -> bool:
        """Is the moved tensor returned or yielded (alone or in a tuple)? The host tensor is not used
        again: the function ends, or the loop around the ``yield`` makes a new one."""
        depth = 1
        parent = self.ctx.parent(depth)
        if isinstance(parent, cst.Element):
            depth += 2  # the Element, then the Tuple
            parent = self.ctx.parent(depth)
        return isinstance(parent, (cst.Return, cst.Yield))

    def visit_Name(self, node: cst.Name) -> None:
        # Any other use before the move (``mask[i] = v``, ``fill(mask)``) means the host tensor is
        # worked on where it is: creating it on the device would turn each write into a kernel.
        if self._fresh and not isinstance(self.ctx.parent(), cst.AssignTarget) and not self._in_tuple_target():
            key = (id(self.ctx.frame), node.value)
            fresh = self._fresh.pop(key, None)
            if fresh is not None:
                self._fresh_branches.pop(key, None)
                self._fresh_alternatives.pop(key, None)
            if fresh is not None:
                target = self._rebound_under_fresh_ops(node)
                if target is not None:
                    self._carried[(key[0], target)] = fresh

    def _in_tuple_target(self) -> bool:
        """Is the current name an item of a tuple or list an assignment binds (``a, b = ...``)? A
        binding, not a use (R138)."""
        return (isinstance(self.ctx.parent(), cst.Element) and isinstance(self.ctx.parent(2), (cst.Tuple, cst.List))
                and isinstance(self.ctx.parent(3), cst.AssignTarget))

    def _rebound_under_fresh_ops(self, node: cst.Name) -> Optional[str]:
        """The name a statement binds to ops that keep a tensor fresh read on ``node`` alone: the same
        name (``mask = mask.view(-1, 1).repeat(1, h)``: MARL-Algorithms' CommNet, holdout126; R79),
        or another when this is the one read of ``node``'s name in the function
        (``seq_range_expand = seq_range.unsqueeze(0).expand(b, n)``: trade-dst's ``sequence_mask``,
        holdout217; R189). The new binding is then the same fresh host tensor. None otherwise."""
        assign = next((n for n in reversed(self.ctx.stack) if isinstance(n, (cst.Assign, cst.BaseStatement,
                                                                                cst.Lambda))), None)
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        target = assign.targets[0].target
        if not (isinstance(target, cst.Name) and self._name_under_fresh_ops(assign.value) is node
                and sum(1 for n in descendants(assign.value) if isinstance(n, cst.Name) and n.value == node.value) == 1):
            return None
        if target.value == node.value or (self.ctx.frame.node is not None and self._only_load(node)):
            return target.value
        return None

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        """``tot_loss: Tensor = torch.tensor(0.0)``: a binding as ``leave_Assign``'s (lightning-pose)."""
        frame = id(self.ctx.frame)
        if isinstance(node.target, cst.Name):
            self._fresh.pop((frame, node.target.value), None)
            self._fresh_branches.pop((frame, node.target.value), None)
            self._fresh_alternatives.pop((frame, node.target.value), None)
            fresh = self._fresh_tensor(node.value) if node.value is not None else None
            if fresh is not None:
                self._fresh[(frame, node.target.value)] = fresh[:2]

    def _branches(self) -> tuple:
        """(id of an ``if``, "body" or "orelse") for each ``if`` branch around the current node."""
        stack = self.ctx.stack
        return tuple((id(node), "body" if stack[i + 1] is node.body else "orelse")
                     for i, node in enumerate(stack[:-1])
                     if isinstance(node, cst.If) and (stack[i + 1] is node.body or stack[i + 1] is node.orelse))

    def leave_Assign(self, node: cst.Assign) -> None:
        frame = id(self.ctx.frame)
        if self._fresh_branches and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            key = (frame, node.targets[0].target.value)
            branches = self._branches()
            if key in self._fresh and _exclusive(self._fresh_branches.get(key, ()), branches):
                # ``if free: ref = torch.tensor(0.0)`` / ``else: ref = a - b`` / ``ref = ref.to(d)``:
                # the other branch's binding is another path; on the first the host tensor is still
                # the one moved after the ``if`` (GRM's compute_loss, holdout136; R93). A fresh
                # tensor there is another one moved after the ``if`` (R162), when its path is apart
                # from every other fresh binding's.
                others = self._fresh_alternatives.get(key, [])
                fresh = self._fresh_tensor(node.value)
                if fresh is not None and not any(not _exclusive(known, branches) for _, known in others):
                    self._fresh_alternatives.setdefault(key, []).append((fresh[:2], branches))
                return
        for target in node.targets:
            for bound in assigned_names(target.target):
                self._fresh.pop((frame, bound), None)
                self._fresh_branches.pop((frame, bound), None)
                self._fresh_alternatives.pop((frame, bound), None)
            attribute = _self_attribute(target.target)
            if attribute is not None:
                self._fresh.pop((frame, attribute), None)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            key = (frame, node.targets[0].target.value)
            fresh = self._fresh_tensor(node.value)
            carried = self._carried.pop(key, None)
            if fresh is not None:
                self._fresh[key] = fresh[:2]
                branches = self._branches()
                if branches:
                    self._fresh_branches[key] = branches
                else:
                    self._fresh_branches.pop(key, None)
            elif carried is not None:
                self._fresh[key] = carried  # R79: rebound to ops that keep it fresh
        elif len(node.targets) == 1 and _self_attribute(node.targets[0].target) is not None:
            fresh = self._fresh_tensor(node.value)
            if fresh is not None:
                self._fresh[(frame, _self_attribute(node.targets[0].target))] = fresh[:2]

    def _tensor_target(self, move: cst.Call) -> Optional[cst.BaseExpression]:
        """``t.to(x)`` (also with ``non_blocking``, ``copy``, ``memory_format``) where value flow
        knows ``x`` is a tensor that may be on the device: ``x``; else None (a device, a dtype, a
        CPU tensor, or a name it cannot tell)."""
        if move.func.attr.value != "to" or has_splat(move) or keyword(move, "device") is not None:
            return None
        args = positional(move)
        if not args or move.args[0] is not args[0] or keyword(move, "dtype") is not None:
            return None
        target = args[0].value
        if device_kind(target, self.ctx) is not None:
            return None
        return target if self.ctx.values.is_tensor_argument(target) else None

    @staticmethod
    def _tensor_fix(factory: cst.Call, name: str, target: cst.BaseExpression):
        """``torch.arange(L).to(x)`` -> ``torch.arange(L, device=x.device).to(x)``: the move stays and
        only casts, so dtype, device and values are those of before. Only when ``x`` is a name or
        an attribute chain: with a call in it, ``x`` would be evaluated twice."""
        if not _is_plain_reference(target) or any(
                a.keyword is not None and a.keyword.value in _UNSAFE_FACTORY_KEYWORDS for a in factory.args):
            return None
        device = cst.Attribute(value=target.deep_clone(), attr=cst.Name("device"))
        fixed = add_keyword_with_comments(factory, "device", device, [])
        if fixed is None:
            return None
        applicability = UNSAFE if name in _VALUE_CHANGING else SAFE
        text = cst.Module([]).code_for_node(device)
        return RuleFix(applicability, f"create the tensor with device={text}", [(factory, fixed)])

    @staticmethod
    def _fix(move: cst.Call, factory: cst.Call, name: str):
        method = move.func.attr.value
        extra = [a for a in move.args if not (a.keyword is not None and a.keyword.value == "non_blocking")]
        if has_splat(move) or any(a.keyword is not None and a.keyword.value in _UNSAFE_FACTORY_KEYWORDS
                                  for a in factory.args):
            return None
        if method == "cuda":
            if not extra:
                device = cst.SimpleString('"cuda"')
            elif len(extra) == 1 and (extra[0].keyword is None or extra[0].keyword.value == "device"):
                device = extra[0].value
            else:
                return None
        else:
            if len(extra) != 1 or (extra[0].keyword is not None and extra[0].keyword.value != "device"):
                return None  # .to(device, dtype) or .to(..., copy=True): more than a move
            device = extra[0].value
        # Comments of the ``.to(...)`` part go to the ``device=`` argument's line.
        fixed = add_keyword_with_comments(factory, "device", device, _comments(move, factory))
        if fixed is None:
            return None
        applicability = UNSAFE if name in _VALUE_CHANGING else SAFE
        return RuleFix(applicability, f"create the tensor with device={cst.Module([]).code_for_node(device)}",
                       [(move, fixed)])


def _name_counts(tree, table) -> Dict[str, int]:
    """How many times each name appears in the file (``ast``: bindings and reads, at any depth)."""
    counts: Dict[str, int] = {}
    for node in ast.walk(tree):
        if type(node) is ast.Name:
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _exclusive(first: tuple, second: tuple) -> bool:
    """Do two ``if``-branch paths (``_branches``) sit in different branches of one ``if``?"""
    if not first or not second:
        return False
    taken = dict(first)
    return any(taken.get(node, which) != which for node, which in second)


def _ast_name_under_kept_ops(expr) -> Optional[str]:
    """The name under methods that keep a tensor fresh (``x.unsqueeze(0).expand(b, n)``), or the
    name a ``Variable(...)`` wraps; None otherwise (the prefilter's cheap twin of
    ``_name_under_fresh_ops``)."""
    seen = False
    while True:
        if (type(expr) is ast.Call and type(expr.func) is ast.Attribute and expr.func.attr in _KEEP_FRESH):
            expr, seen = expr.func.value, True
        elif (type(expr) is ast.Call and type(expr.func) is ast.Name and expr.func.id == "Variable"
              and len(expr.args) == 1):
            expr, seen = expr.args[0], True
        else:
            break
    return expr.id if seen and type(expr) is ast.Name else None


def _is_plain_reference(expr: cst.BaseExpression) -> bool:
    """``x``, ``self.buf``, ``batch.x``: a name or an attribute chain, nothing called."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


# Parameter names that hold a size, not data: ``size``, ``n``, ``batch_size``, ``num_classes``,
# ``n_tokens``, ``max_len``, ``seq_length``, ``dim``, ``hidden_dim``.
_SIZE_PARAMETER = re.compile(r"^(?:size|n|k|dim|length|\w+_(?:size|dim|len|length)|(?:num|n)_\w+)$")


_NUMBER_OPERATORS = (cst.Multiply, cst.FloorDivide, cst.Add, cst.Subtract)
# ... the same words in camel case: ``opt.batchSize``, ``seqLength``, ``nClasses``, ``numLayers``.
_CAMEL_SIZE = re.compile(r"[a-z](?:Size|Len|Length|Dim)$|^n[A-Z]|^num[A-Z]")


def _names_a_size(name: Optional[str]) -> bool:
    """A name that says it holds a size (``_SIZE_PARAMETER``, or its camel-case spelling)."""
    return bool(name) and (_SIZE_PARAMETER.match(name) is not None or _CAMEL_SIZE.search(name) is not None)


def _arithmetic_leaves(expr: cst.BaseExpression):
    """The operands of ``_number_arithmetic``, nested operations opened."""
    if isinstance(expr, cst.BinaryOperation):
        yield from _arithmetic_leaves(expr.left)
        yield from _arithmetic_leaves(expr.right)
    else:
        yield expr


def _number_arithmetic(expr: cst.BaseExpression) -> bool:
    """``a * b``, ``n // 2 + 1``, ``args.mem_size * k``: ``*``, ``//``, ``+``, ``-`` on names,
    attributes, integers and sizes only (no list, tuple or call that may hold data)."""
    if not isinstance(expr, cst.BinaryOperation) or not isinstance(expr.operator, _NUMBER_OPERATORS):
        return False
    for side in (expr.left, expr.right):
        if isinstance(side, cst.BinaryOperation):
            if not _number_arithmetic(side):
                return False
        elif not (isinstance(side, (cst.Name, cst.Attribute, cst.Integer)) or _is_size_expression(side)):
            return False
    return True


def _host_device_default(default: cst.BaseExpression) -> bool:
    """``"cpu"`` as a parameter's default. (Not ``None``: ``.to(None)`` moves nothing either, but the
    vendored Hugging Face rotary embedding, ``torch.arange(...).float().to(device)`` with
    ``device=None``, is labelled in most sets; measured, reading ``None`` too removed two labels
    with one false finding: R72.)"""
    return isinstance(default, cst.SimpleString) and default.evaluated_value == "cpu"


def _method_owners(tree, table) -> dict:
    """(method name, parameter names) -> the names of the classes that define such a method."""
    found: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    args = item.args
                    key = (item.name, tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)))
                    found.setdefault(key, []).append(node.name)
    return found


def _calls_by_last_name(tree, table) -> dict:
    """The file's calls by the last name of what they call (``f(...)``, ``obj.f(...)``)."""
    found: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name:
                found.setdefault(name, []).append(node)
    return found


def _self_attribute(expr) -> Optional[str]:
    """``"self.c"`` for ``self.c``, else None."""
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        return "self." + expr.attr.value
    return None


def _ast_self_attribute(expr) -> Optional[str]:
    """``_self_attribute`` on the ast."""
    if type(expr) is ast.Attribute and type(expr.value) is ast.Name and expr.value.id == "self":
        return "self." + expr.attr
    return None


def _hands_self(call: cst.Call) -> bool:
    """``self.reset()``, ``helper(self)``: a call that may read any attribute of ``self``."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        return True
    return any(isinstance(arg.value, cst.Name) and arg.value.value == "self" for arg in call.args)


def _grows_a_size(expr: cst.BaseExpression) -> bool:
    """``tensor.size() + (n,)``: a size with dimensions added (wavenet_vocoder's ``to_one_hot``)."""
    return (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add)
            and (_is_size_expression(expr.left) and isinstance(expr.left, cst.Call))
            and isinstance(expr.right, cst.Tuple))


# Reductions whose one number a legacy constructor is handed as a size.
_COUNT_REDUCTIONS = frozenset(("numpy.sum", "numpy.prod", "math.prod"))


def _is_size_expression(expr: cst.BaseExpression) -> bool:
    """``x.size()``, ``x.size(0)``, ``x.shape``, ``x.shape[0]``, ``len(x)``: a size, never data."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "shape"
    if (isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
            and isinstance(expr.slice[0].slice.value, (cst.Integer, cst.UnaryOperation))):
        # ``feats.shape[0]``, ``x.size()[1]``: one dimension, an int (CLUENER's CRF, holdout145; R114)
        return _is_size_expression(expr.value)
    if isinstance(expr, cst.Call):
        func = expr.func
        return (isinstance(func, cst.Attribute) and func.attr.value == "size") or (
            isinstance(func, cst.Name) and func.value == "len")
    return False


def _adds_or_keeps_axis(index) -> bool:
    """``None`` (a new axis), ``...`` or a bare ``:``: indexing that makes a view of the whole tensor;
    or a fixed position (``torch.Tensor([lr])[0]``: a view of part of it, still made on the host)."""
    if isinstance(index, cst.Index):
        value = index.value
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        return ((isinstance(value, cst.Name) and value.value == "None") or isinstance(value, cst.Ellipsis)
                or isinstance(value, cst.Integer))
    return (isinstance(index, cst.Slice) and index.lower is None and index.upper is None
            and index.step is None)


def _moves_or_is(expr: cst.BaseExpression, name: str) -> bool:
    """``name`` itself, or ``name.to(...)``/``name.cuda(...)``/``name.cpu()``."""
    if isinstance(expr, cst.Name):
        return expr.value == name
    found = method_call(expr) if isinstance(expr, cst.Call) else None
    return (found is not None and found[1] in ("to", "cuda", "cpu") and isinstance(found[0], cst.Name)
            and found[0].value == name)


def _may_be_factory(call: ast.Call, qualname: str) -> bool:
    """The ast twin of ``_factory_name``'s tests on a call that may be a factory (``qualname``: what
    its callee may stand for, see ast_scan), erring on "maybe": not with ``device=`` or
    ``**opts``, not ``torch.tensor(x)`` of a variable."""
    if any(k.arg is None or k.arg == "device" for k in call.keywords):
        return False
    if qualname in ("torch.tensor", "torch.as_tensor"):
        data = [a for a in call.args if not isinstance(a, ast.Starred)]
        return bool(data) and _is_literal_data_ast(data[0])
    if qualname.rsplit(".", 1)[-1] in LEGACY:
        return bool(call.args) and not call.keywords
    return True


def _may_be_fresh(expr, factories) -> bool:
    """``_fresh_tensor`` on the ast, erring on "maybe": one of the ``factories`` (their ids) after
    ops that may keep a tensor fresh (any operand of an arithmetic or comparison)."""
    pending = [expr]
    while pending:
        expr = pending.pop()
        kind = type(expr)
        if kind is ast.Call:
            if id(expr) in factories:
                return True
            func = expr.func
            if type(func) is ast.Attribute and (func.attr in _KEEP_FRESH or func.attr in _ARITHMETIC_METHODS
                                                or func.attr == "to"):
                # (``torch.rand(x.shape).sub(0.5)``: the rule keeps arithmetic with a number fresh too)
                pending.append(func.value)
                if func.attr in _FUNCTION_FORMS and expr.args:
                    pending.append(expr.args[0])  # ``torch.unsqueeze(torch.Tensor([1]), dim=0)``
            elif (type(func) is ast.Name or type(func) is ast.Attribute) and (
                    (func.id if type(func) is ast.Name else func.attr) == "Variable") and len(expr.args) == 1:
                pending.append(expr.args[0])  # ``Variable(torch.ones(1)).cuda()``: maybe the tensor itself
        elif kind is ast.Subscript:
            pending.append(expr.value)  # ``torch.arange(n)[None, :]`` (erring on "maybe": any index)
        elif kind is ast.Attribute and expr.attr in _TRANSPOSE_VIEWS:
            pending.append(expr.value)  # ``torch.arange(n).T``
        elif kind is ast.BinOp:
            pending += (expr.left, expr.right)
        elif kind is ast.Compare:
            pending += (expr.left, *expr.comparators)
        elif kind is ast.UnaryOp:
            pending.append(expr.operand)
    return False


def _repeated_list(expr) -> bool:
    """A list or tuple written in the source, or one repeated by ``*`` (any number of times)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return True
    return (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply)
            and (_repeated_list(expr.left) or _repeated_list(expr.right)))


def _repeated_list_ast(expr) -> bool:
    """``_repeated_list`` on the ast."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        return True
    return (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)
            and (_repeated_list_ast(expr.left) or _repeated_list_ast(expr.right)))


def _is_number_written_ast(expr) -> bool:
    if isinstance(expr, ast.Constant):
        return type(expr.value) in (int, float)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _is_number_written_ast(expr.operand)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _NUMBER_ARITHMETIC_AST):
        return _is_number_written_ast(expr.left) and _is_number_written_ast(expr.right)
    return isinstance(expr, (ast.Call, ast.Attribute)) and _is_literal_data_ast(expr)


def _is_literal_data_ast(expr) -> bool:
    """syntax.is_literal_data on the ast."""
    if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp)):
        return True
    if isinstance(expr, ast.Constant):
        return type(expr.value) in (int, float)
    if (isinstance(expr, ast.BinOp) and isinstance(expr.op, _NUMBER_ARITHMETIC_AST)
            and _is_number_written_ast(expr.left) and _is_number_written_ast(expr.right)):
        return True  # ``torch.tensor(1/2)`` (R145)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _is_literal_data_ast(expr.operand)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):  # ``[sos] * n``, ``[1] * b * n``
        return _repeated_list_ast(expr)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):  # ``[1] * n + [0] * n``
        return _is_literal_data_ast(expr.left) and _is_literal_data_ast(expr.right)
    if isinstance(expr, ast.Call):  # ``float("-inf")``
        return (isinstance(expr.func, ast.Name) and expr.func.id == "float" and len(expr.args) == 1
                and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str))
    return isinstance(expr, ast.Attribute) and expr.attr in ("pi", "e", "tau", "inf", "nan")  # ``math.pi``


class _CommentsOutside(cst.CSTVisitor):
    """The comments of a tree, those inside one call (``skipped``) left out."""

    def __init__(self, skipped: cst.Call):
        super().__init__()
        self.skipped = skipped
        self.found: list = []

    def visit_Call(self, node: cst.Call) -> bool:
        return node is not self.skipped

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def _comments(move: cst.Call, factory: cst.Call) -> list:
    """The comments in the part of ``factory(...).to(...)`` that the fix leaves out, in order."""
    # A module-level class: a class made per call is a reference cycle the garbage collector must find.
    visitor = _CommentsOutside(factory)
    move.visit(visitor)
    return visitor.found


RULE = CpuThenDevice
RULE.VALID = (
    """
import torch
def sample(h, device):
    mean, std = h.mean(0), h.std(0)
    return torch.normal(mean, std).to(device)   # of tensors: drawn where they are
""",
    """
import numpy as np
import torch
device = torch.device("cuda")
a = torch.zeros(3, device=device)
b = torch.from_numpy(np.ones(3)).to(device)
c = torch.tensor(np_array).cuda()          # data already on the host
d = torch.ones(3).to(torch.float16)        # dtype only
e = torch.ones(3).cpu()
f = torch.ones(3).to("cpu")
g = torch.zeros(3, **opts).cuda()          # device may be in opts
""",
    """
import torch
class Cache:
    def zeros(self, n):
        return [0] * n
cache = Cache()
x = cache.zeros(3).to(device)              # not torch.zeros
""",
    """
import torch
def build(n, device, other):
    a = (torch.ones(n) + other.cuda()).cuda()     # combined with another tensor first
    b = torch.arange(n).to(torch.long)            # a dtype change only
    c = torch.zeros(n).long()
    c[0] = 1                                      # worked on where it is, then moved
    c = c.to(device)
    d = torch.ones(n).view(-1, 1).scatter_(0, idx, 1).to(device)   # an op the rule does not follow
    return a, b, c, d
""",
    """
import numpy as np
import torch
def build(n, data, device):
    a = torch.Tensor(data).cuda()              # data (a host list) or a size: cannot tell
    b = torch.FloatTensor(np.ones(3)).to(device)   # numpy data: it starts on the host
    c = torch.cuda.FloatTensor(n, 4)           # made on the device
    d = torch.Tensor(n, 4, device=device)      # not moved
    e = torch.tensor(float(n)).to(device)      # a value computed at run time, not written data
    f = torch.Tensor(env.action_space.shape).to(device)   # a tuple's .shape is data: tensor([6.])
    return a, b, c, d, e, f
""",
    """
import torch
def like(x, n, t):
    a = torch.arange(n).to(x)                  # x: a tensor, a device or a dtype? cannot tell
    host = torch.zeros(n)
    b = torch.ones(n).to(host)                 # a CPU tensor: no move
    kind = t.dtype
    c = torch.zeros(n).to(kind)                # a dtype, although t is a tensor
    return a, b, c, t.shape
""",
    """
import torch
def blend(x, device, ids):
    w = torch.tensor([1.0, 2.0])
    y = w.to(device) + w.sum()                 # the host tensor is used again
    t = torch.LongTensor(ids).to(device)       # ids: data or a size, cannot tell
    return y, t
""",
    """
import torch
from torch.autograd import Variable
def pick(x, n, rows):
    leaf = Variable(torch.zeros(n), requires_grad=True).cuda()   # a new leaf, not the factory's tensor
    picked = torch.arange(n)[rows].cuda()                         # indexing by values picks data
    return leaf, picked
""",
)
RULE.INVALID = (
    """
import torch
def velocity_noise(graph, noise_std, device):
    shape = graph.x[:, 1:3].shape
    return torch.normal(mean=0.0, std=noise_std, size=shape).to(device)  # TPL101 (a size: numbers, R179)
""",
    """
import torch
def to_gray(target, batch_H, device):
    kernel = torch.tensor([0.2989, 0.5870, 0.1140]).view(1, 3, 1, 1)  # TPL101
    gray = (target * kernel.to(target.device)).sum(1)   # the name's one use: the move
    batch_size = batch_H.size(0)
    go = torch.LongTensor(batch_size).fill_(0).to(device)  # TPL101
    return gray, go
""",
    """
import torch
def probe(vae, size, weight_dtype, device):
    noise = torch.randn(1, 3, size, size).to(dtype=weight_dtype).to(device)  # TPL101
    return vae(noise)
""",
    """
import torch
device = torch.device("cuda")
x = torch.zeros(8, 8).to(device)  # TPL101
y = torch.tensor([1.0, 2.0]).cuda()  # TPL101
z = torch.randn(4, 4).to(device="cuda:0")  # TPL101
sos = torch.LongTensor([0] * 8).to(device)  # TPL101
""",
    """
import torch as T
def batch_mask(n, like):
    return T.ones(n, dtype=T.bool).to(like.device, non_blocking=True)  # TPL101
""",
    """
import torch
def causal_mask(n, device):
    mask = torch.ones(n, n).tril()  # TPL101
    weights = torch.full((n,), 0.5)  # TPL101
    weights = weights.to(device)
    host = torch.zeros(n)
    copy = host.to(device)               # host is kept: not the same pitfall
    filled = torch.zeros(n, dtype=torch.long)
    filled[0] = 3                        # written on the host first, then moved once
    filled = filled.to(device)
    base = torch.zeros(n)
    ones = torch.ones_like(base).cuda()  # TPL101
    return mask.cuda(), weights, copy, host, ones
""",
    """
import torch
DEVICE = torch.device("cuda")
def ops(n, k, p, s, x, d, shape, trainer, local_rank):
    a = torch.ones(n).long().to(x.device)  # TPL101
    b = (torch.zeros(n) + k).cuda()  # TPL101
    c = torch.arange(n).view(-1, 1).repeat(1, k).view(-1).to(DEVICE)  # TPL101
    e = torch.ones(1, 1).fill_(s).type(torch.long).to(DEVICE)  # TPL101
    f = (torch.rand(n) > p).to(trainer.device)  # TPL101
    g = torch.zeros(  # TPL101
        *shape,
        dtype=torch.float,
    ).to(local_rank)
    h = torch.ones(n).to(torch.accelerator.current_accelerator())  # TPL101
    return a, b, c, e, f, g, h
""",
    """
import torch
def fake_batches(batch_size):
    for _ in range(10):
        inputs = torch.randn(batch_size, 3, 8, 8)  # TPL101
        yield inputs.cuda()
class Worker:
    def step(self, n):
        return torch.zeros(n).to(self.gpu_id)  # TPL101
""",
    """
import math
import torch
def legacy(n, m, i, shape, x, device):
    a = torch.Tensor(n, m).cuda()  # TPL101
    b = torch.LongTensor([i]).to(device)  # TPL101
    c = torch.FloatTensor(n, 1, 1).uniform_(0, 1).to(device)  # TPL101
    d = torch.Tensor(*shape).to(x.device)  # TPL101
    e = torch.ByteTensor(x.size(0)).zero_().cuda()  # TPL101
    noise = torch.randn(n, m)
    f = torch.Tensor(noise.shape).to(device)  # TPL101 (a tensor's .shape: sizes)
    return a, b, c, d, e, f
def numbers(x, device):
    low = torch.tensor(float("-inf")).to(x.device)  # TPL101
    pi = torch.tensor(math.pi).cuda()  # TPL101
    minus = torch.tensor(-1).to(device)  # TPL101
    return low, pi, minus
""",
    """
import torch
def vandermonde(v, x, L):
    powers = torch.arange(L).to(x)  # TPL101
    return (v.unsqueeze(-1) * x.unsqueeze(-1) ** powers).sum(-2)
def one_hot(z: torch.Tensor, n):
    codes = torch.zeros(z.size(0), n).to(z, non_blocking=True)  # TPL101
    noise = torch.randn(n).to(z)  # TPL101
    return codes, noise
""",
    """
import torch
from torch.autograd import Variable
def featurize(x, n, bsz):
    ones = Variable(torch.ones(1)).cuda()  # TPL101
    offsets = torch.arange(n)[None, :].repeat(bsz, 1).to(x.device)  # TPL101
    alpha = torch.rand(bsz, 1)  # TPL101
    alpha = alpha.expand_as(x).to(x.device)
    tokens = torch.arange(n).long()  # TPL101
    tokens = tokens.to("cuda") if torch.cuda.is_available() else tokens.to("cpu")
    return ones, offsets, alpha, tokens
""",
)
RULE.FIXES = (
    (
        "import torch\nx = torch.zeros(8, 8).to(device)\ny = torch.arange(4).cuda(non_blocking=True)\n",
        "import torch\nx = torch.zeros(8, 8, device=device)\ny = torch.arange(4, device=\"cuda\")\n",
    ),
    (
        "import math\nimport torch\nlow = torch.tensor(float(\"-inf\")).to(x.device)\n"
        "pi = torch.tensor(math.pi).cuda()\n",
        "import math\nimport torch\nlow = torch.tensor(float(\"-inf\"), device=x.device)\n"
        "pi = torch.tensor(math.pi, device=\"cuda\")\n",
    ),
    (
        "import torch\ndef power(A):\n    return torch.eye(A.shape[-1]).to(A)\n",
        "import torch\ndef power(A):\n    return torch.eye(A.shape[-1], device=A.device).to(A)\n",
    ),
)
RULE.WHY = """\
A factory without `device=` allocates and fills the tensor in host memory; the move then allocates
it again on the device and copies it over PCIe, a synchronous copy from pageable memory. Created on
the device, the tensor is filled there by a kernel with no copy at all. In a training step this
turns a host allocation, a fill and a blocking copy into one asynchronous kernel launch."""
RULE.EXAMPLE = "mask = torch.ones(n, n).tril().to(device)\nnoise = torch.randn(batch, dim).cuda()"
RULE.USE_INSTEAD = "mask = torch.ones(n, n, device=device).tril()\nnoise = torch.randn(batch, dim, device=\"cuda\")"
RULE.FIX_NOTE = """\
Safe for deterministic factories (`zeros`, `ones`, `full`, `arange`, `eye`, `tensor([...])`,
`tensor(float("-inf"))`, `tensor(1/2)`: arithmetic of numbers written out is number data, reading
R145…) when the move has no keyword but `non_blocking`. Unsafe for random
factories (`rand*`, `randn_like`, `rand_like`, `randint_like`, `normal`): another device draws other
numbers and leaves the CPU generator where it was, so later CPU draws change; and for
`linspace`/`logspace`, whose values computed on CUDA can differ from the CPU's in the last bits. A comment inside `.to(...)` moves to
the `device=` argument's line.

`torch.normal(mean, std)` is a CPU factory only when its mean and std are numbers: given tensors it
draws on their device, and nothing is made on the host. Given a `size`, it is a CPU factory whatever
its mean and std are written as (torch's overload with a size takes numbers; reading R179).

Views and casts keep the tensor a fresh host one whether written as methods or as torch functions
(`torch.triu(torch.ones(n, n), 1).to(device)`, `torch.unsqueeze(torch.tensor([k]), 0).cuda()`;
reading R39), also the transpose properties (`torch.arange(n).T.flatten().to(device)`, `.mT`, `.H`;
reading R62), and so do repeats and in-place fills (`.tile(...)`, `.fill_diagonal_(m)`) and
elementwise functions of the one tensor (`torch.exp(-math.log(p) * torch.arange(half) / half)
.to(t.device)`, guided diffusion's `timestep_embedding`; reading R45), and `.type_as(x)` on the way
to an explicit move (`torch.empty(1, 1).fill_(sos).type_as(src).to(device)`; `type_as` alone is no
move the rule names; reading R46); with ops between factory and move no fix is offered. A factory bound to a name (also
by an annotated assignment) and moved later, `x = x.to(device)`, `x = x.to(d) + y` or
`x = x.cuda().float()`, also in a tuple assignment that rebinds each name to its own move
(`s, eps = s.cuda(), eps.cuda()`; reading R138), is reported at the factory, without a fix, also when the name is bound to
something else in the other branch of an `if` and moved after it (reading R93), each factory of
an `if`/`elif`/`else` that binds one on each path and moves the name after it (reading R162), and at module level
when the move is the name's one use in the file (reading R104), in a function when the move, bound to
another name, is the name's one read (reading R167), and in a function that binds the
name again elsewhere when the statement right after this binding, outside loops, moves it and
nothing after that statement names it (reading R159); the name may be rebound on the way
to the ops above that keep it fresh (`mask = (mask == 0).unsqueeze(1)`, `m = m.long()`; readings R79,
R108; a number there may be written as arithmetic of numbers or a scalar math function of them,
`-(np.log(10000.0) / n)`: reading R149), and `Variable(t)` or `Variable(t, volatile=...)` hands `t` back (reading R114); so is one bound to an attribute of `self` and rebound to its own move
in the same function (`self.c = torch.tensor([c])` ... `self.c = self.c.to(device)`) when nothing
between reads it or hands `self` on (reading R68). A move to a parameter that defaults to `"cpu"`
is not reported when every call of the function in its file leaves it at that default and
no other module that imports the file names the function (reading R72).

`.to(x)` with `x` a tensor moves to `x`'s device (and casts to its dtype): reported when the linter
knows `x` is a tensor (made on the device in the function, or a name the function uses as one:
`x.unsqueeze(-1)`, `A.shape`, a `torch.Tensor` annotation, the tensor of a collective such as
`dist.all_gather(out, x)`: reading R170), never for a name it cannot tell from a device or a dtype. A
device chosen at run time, written inline (`.to("cuda" if torch.cuda.is_available() else "cpu")`), is
a move to the accelerator as the same device held by a name is (reading R172). The fix adds `device=x.device` to the factory and keeps the `.to(x)`, which then
only casts: values, dtype and device are those of before. Safe for deterministic factories when `x`
is a name or an attribute chain (with a call in it, `x` would be evaluated twice: no fix), unsafe for
random ones, and none when ops stand between factory and move. The runtime guard does not rewrite
this form.

The legacy constructors (`torch.Tensor(n, m)`, `torch.FloatTensor(...)`, `torch.LongTensor([i])`…)
are reported when given sizes or written data, with no fix: given sizes they are uninitialised
like `torch.empty`, given data they fix the dtype where `torch.tensor` infers one, and they take no
accelerator `device=` (`torch.Tensor(n, device="cuda")` raises "legacy constructor expects device
type: cpu"). The message names the modern spelling to write
(`torch.empty(..., dtype=..., device=...)` or `torch.tensor(..., dtype=..., device=...)`). One
argument that could be a size or a host list (`torch.LongTensor(x)`) is left alone unless it is
known to be a size: an integer, `x.size(0)`, `x.shape[0]` (reading R114), `len(...)`, a parameter named as a size, or a name
named as one (`buffer_size`, `num_rows`) bound to arithmetic on names and numbers (`buffer_size =
economy * args.mem_size`; reading R65); `x.shape` when `x` is known to be a torch tensor, also by a
method only a torch tensor has that the function calls on it (`x.to(device)`, `x.size(0)`; reading
R123), since a numpy array's `.shape` is a tuple the constructor reads as data."""
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#create-tensors-directly-on-the-target-device",
)
