"""Small questions about libcst nodes that several rules ask: names, arguments, steps, loops."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

import libcst as cst

from .names import AUTOCASTS, SCALERS, is_torch_name, turns_grad_off  # noqa: F401 (re-exported)
from .tree import descendants


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
_DEVICE_WORD = re.compile(r"(^|_)(device|dev|gpu|cuda|local_rank|rank|devices)$|device", re.I)
_ACCELERATOR_PREFIXES = ("cuda", "xpu", "mps", "hpu", "npu", "mtia", "xla")


def device_kind(expr: cst.BaseExpression, ctx) -> Optional[str]:
    """Classify a ``.to(...)`` argument: "cpu", "accelerator", "dtype" or None (cannot tell)."""
    text = string_value(expr)
    if text is not None:
        if text.startswith("cpu"):
            return "cpu"
        return "accelerator" if text.startswith(_ACCELERATOR_PREFIXES) else None
    if isinstance(expr, cst.Integer):
        return "accelerator"  # .to(0) is cuda:0
    if isinstance(expr, cst.Call):
        qual = ctx.qualname(expr.func)
        if qual == "torch.device":
            args = positional(expr)
            if args:
                return device_kind(args[0].value, ctx)
            type_arg = keyword(expr, "type")
            return device_kind(type_arg.value, ctx) if type_arg else None
        return None
    qual = ctx.qualname(expr)
    if is_torch_name(qual):
        return "dtype" if qual.count(".") == 1 else None  # torch.float16 and friends
    name = last_identifier(expr)
    if name is None:
        return None
    if name == "device" and isinstance(expr, cst.Attribute):
        return "accelerator"  # x.device: where another tensor lives (CPU tensors rarely matter here)
    if "dtype" in name.lower() or name.lower() in ("cpu",):
        return "dtype" if "dtype" in name.lower() else "cpu"
    return "accelerator" if _DEVICE_WORD.search(name) else None


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
# Names of models: ``model``, ``self.model``, ``ddp_model``, ``text_encoder``, ``net``, ``resnet``...
# A model is held in a variable named by a noun, at most one qualifier before it; functions that
# make, convert or inspect one are verb phrases (``load_model``, ``should_convert_module``).
_MODEL_NOUNS = frozenset(
    "model net network module backbone generator discriminator encoder decoder policy critic actor".split()
)
_VERBS = frozenset(
    "load save build get create make init export compile prepare wrap unwrap freeze print setup is has "
    "should convert to check find apply estimate count".split()
)


_LOSS_FUNCTION = re.compile(r"(?i)^(?:criterion|\w*_criterion|loss_fn|loss_func|compute_loss|\w*_loss|loss)$")
_OPTIMIZER_WORD = re.compile(r"optim|(^|_)opt(_|$)|scaler|^opt", re.I)


def is_model_name(name: Optional[str]) -> bool:
    if not name:
        return False
    parts = name.lower().strip("_").split("_")
    last = parts[-1][:-1] if parts[-1].endswith("s") and parts[-1][:-1] in _MODEL_NOUNS else parts[-1]
    if len(parts) == 1:
        return last in _MODEL_NOUNS or last.endswith("net")
    return len(parts) == 2 and last in _MODEL_NOUNS and parts[0] not in _VERBS


def is_model_call(call: cst.Call) -> bool:
    return is_model_name(last_identifier(call.func))

def is_step_call(call: cst.Call) -> bool:
    """``loss.backward()``, ``optimizer.step()``/``scaler.step(opt)``, or a model call."""
    found = method_call(call)
    if found is not None:
        receiver, name = found
        if name == "backward":
            return True
        if name == "step":
            owner = last_identifier(receiver)
            return owner is not None and _OPTIMIZER_WORD.search(owner) is not None
    return is_model_call(call)


def _is_definition(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))  # defining runs nothing


def runs_step(node: cst.CSTNode) -> bool:
    return any(
        isinstance(n, cst.Call) and is_step_call(n) for n in descendants(node, prune=_is_definition)
    )


def is_epoch_loop(loop: cst.CSTNode) -> bool:
    """Its body runs no step itself, but a nested loop does."""
    nested_steps = False

    def prune(node: cst.CSTNode) -> bool:
        nonlocal nested_steps
        if isinstance(node, (cst.For, cst.While)):
            if runs_step(node.body):
                nested_steps = True
            return True
        return _is_definition(node)

    for node in descendants(loop.body, prune=prune):
        if isinstance(node, cst.Call) and is_step_call(node):
            return False
        if isinstance(node, cst.For):
            # The iterable of a nested ``for`` is evaluated by this loop's own body.
            if any(isinstance(n, cst.Call) and is_step_call(n) for n in descendants(node.iter, prune=_is_definition)):
                return False
    return nested_steps


def _statements(block: cst.CSTNode) -> List[cst.CSTNode]:
    if isinstance(block, (cst.If, cst.Else)):
        block = block.body
    body = getattr(block, "body", ())
    return list(body) if isinstance(body, (list, tuple)) else []


def branch_leaves(branch: cst.CSTNode) -> bool:
    """Does this branch end by leaving the loop (``break``, ``return``, ``raise``)?"""
    if isinstance(branch, cst.If):  # an ``elif`` chain: the branch is the elif's own body
        branch = branch.body
    for stmt in _statements(branch):
        small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()
        for part in small:
            if isinstance(part, (cst.Break, cst.Return, cst.Raise)):
                return True
    return False


def tests_interval(test: cst.BaseExpression) -> bool:
    """``if step % log_every == 0`` (or any test using ``%``) runs every N steps."""
    return any(
        isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Modulo) for n in descendants(test)
    )


# ---- value kinds -------------------------------------------------------------------------------
# torch.X functions that do not return a tensor.
_NON_TENSOR_TORCH = frozenset(
    "device dtype no_grad enable_grad inference_mode set_grad_enabled manual_seed seed initial_seed "
    "compile save load numel typename get_default_dtype autocast Generator Size equal allclose "
    "is_nonzero is_same_size result_type can_cast promote_types".split()
)
# Factories that build a tensor on the CPU unless given ``device=``.
CPU_FACTORIES = frozenset(
    "tensor as_tensor from_numpy zeros ones empty full arange linspace logspace eye rand randn "
    "randint randperm normal zeros_like ones_like empty_like full_like rand_like randn_like".split()
)
_TENSOR_NAMESPACES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
# Tensor methods that do not return a tensor.
_NON_TENSOR_METHODS = frozenset(
    "item tolist numpy size dim ndimension numel nelement element_size data_ptr stride "
    "is_contiguous is_floating_point is_complex get_device backward register_hook storage "
    "untyped_storage equal type __len__ keys values items".split()
)
_TENSOR_ATTRIBUTES = frozenset(("grad", "data", "T", "mT", "H", "real", "imag"))


def is_tensor_expr(expr: cst.BaseExpression, ctx) -> bool:
    if isinstance(expr, cst.Name):
        return ctx.names_in_frames(expr.value, "tensors")
    if isinstance(expr, cst.Call):
        qual = ctx.qualname(expr.func)
        if qual is not None:
            if not is_torch_name(qual):
                return False
            if qual.startswith(_TENSOR_NAMESPACES):
                return True
            short = qual[len("torch.") :]
            return (
                "." not in short
                and short[:1].islower()
                and short not in _NON_TENSOR_TORCH
                and not short.startswith(("is_", "set_", "get_", "use_", "from_numpy"))
            ) or short == "from_numpy"
        found = method_call(expr)
        if found is not None:
            receiver, name = found
            return name not in _NON_TENSOR_METHODS and is_tensor_expr(receiver, ctx)
        instance = ctx.torch_instance(expr.func)
        if instance is not None:
            return instance.startswith("torch.nn.")
        # ``logits = model(x)``, ``loss = criterion(out, y)``, ``loss = self.compute_loss(...)``
        return is_model_call(expr) or _LOSS_FUNCTION.search(last_identifier(expr.func) or "") is not None
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in _TENSOR_ATTRIBUTES and is_tensor_expr(expr.value, ctx)
    if isinstance(expr, cst.BinaryOperation):
        return is_tensor_expr(expr.left, ctx) or is_tensor_expr(expr.right, ctx)
    if isinstance(expr, cst.UnaryOperation):
        return not isinstance(expr.operator, cst.Not) and is_tensor_expr(expr.expression, ctx)
    if isinstance(expr, cst.Subscript):
        return is_tensor_expr(expr.value, ctx)
    if isinstance(expr, cst.Comparison):
        return is_tensor_expr(expr.left, ctx) and all(
            not isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons
        )
    return False


def is_cpu_tensor_expr(expr: cst.BaseExpression, ctx) -> bool:
    """A tensor known to live in host memory: reading it back synchronises nothing."""
    if isinstance(expr, cst.Name):
        return ctx.names_in_frames(expr.value, "cpu_tensors")
    if isinstance(expr, cst.Call):
        qual = ctx.qualname(expr.func)
        if qual is not None:
            short = qual[len("torch.") :] if is_torch_name(qual) else ""
            if short.endswith("_like"):
                args = positional(expr)
                return bool(args) and keyword(expr, "device") is None and is_cpu_tensor_expr(args[0].value, ctx)
            return short in CPU_FACTORIES and keyword(expr, "device") is None and not has_splat(expr)
        found = method_call(expr)
        if found is not None:
            receiver, name = found
            if name == "cpu":
                return True
            return name not in ("to", "cuda", "pin_memory") and is_cpu_tensor_expr(receiver, ctx)
        return False
    if isinstance(expr, (cst.Subscript, cst.Attribute)):
        return is_cpu_tensor_expr(expr.value, ctx)
    if isinstance(expr, cst.UnaryOperation):
        return is_cpu_tensor_expr(expr.expression, ctx)
    if isinstance(expr, (cst.BinaryOperation, cst.Comparison)):
        parts = [expr.left, expr.right] if isinstance(expr, cst.BinaryOperation) else [
            expr.left, *(c.comparator for c in expr.comparisons)]
        tensors = [p for p in parts if is_tensor_expr(p, ctx)]
        return bool(tensors) and all(is_cpu_tensor_expr(p, ctx) for p in tensors)
    return False


_PLAIN_VALUES = (cst.List, cst.Dict, cst.Tuple, cst.Set, cst.SimpleString, cst.Integer, cst.Float)


def is_numpy_expr(expr: cst.BaseExpression, ctx) -> bool:
    """A numpy value, or a plain Python literal: something whose ``.item()`` waits for no device."""
    return isinstance(expr, _PLAIN_VALUES) or _is_numpy_array(expr, ctx)


def _is_numpy_array(expr: cst.BaseExpression, ctx) -> bool:
    if isinstance(expr, cst.Name):
        return ctx.names_in_frames(expr.value, "numpy_values")
    if isinstance(expr, cst.Call):
        qual = ctx.qualname(expr.func)
        if qual is not None:
            return qual.startswith("numpy.")
        found = method_call(expr)
        if found is not None:
            receiver, name = found
            return name == "numpy" or (name not in ("item", "tolist") and _is_numpy_array(receiver, ctx))
        return False
    if isinstance(expr, (cst.Subscript, cst.Attribute)):
        return _is_numpy_array(expr.value, ctx)
    if isinstance(expr, cst.BinaryOperation):
        # ``loss / 4`` is whatever ``loss`` is: a literal operand says nothing.
        return _is_numpy_array(expr.left, ctx) or _is_numpy_array(expr.right, ctx)
    return False


# ---- mixed precision, grad mode, version checks (TPL3xx, TPL6xx) --------------------------------
_VERSION_TEST = re.compile(
    r"version|hasattr|getattr|torch_?\d|(?:^|_)(?:pt|th)_?\d|greater|_ge_|(?:^|_)(?:ge|gte|lt|atleast|at_least)_?\d"
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
    import ast

    from .in_memory import classify

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
