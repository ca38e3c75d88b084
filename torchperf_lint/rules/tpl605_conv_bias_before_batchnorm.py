"""TPL605 conv-bias-before-batchnorm: a convolution with a bias whose output goes straight into a
BatchNorm, which subtracts the per-channel mean and so cancels the bias."""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from ..catalog import UNSAFE
from ..fixing.edits import add_keyword, set_keyword
from ..findings import RuleFix
from ..analysis.names import canonical, dotted_name_ast
from ..analysis.syntax import assigned_names, has_splat, is_true, keyword, positional
from ..analysis.edit_reuse import statement_part
from ..analysis.segments import walk_ast, walk_statements
from ..analysis.tree import descendants
from ..analysis.walker import Rule

_CONVS = frozenset(f"torch.nn.Conv{d}d" for d in (1, 2, 3)) | frozenset(
    f"torch.nn.modules.conv.Conv{d}d" for d in (1, 2, 3))
_BATCHNORMS = frozenset(f"torch.nn.BatchNorm{d}d" for d in (1, 2, 3)) | frozenset(
    ("torch.nn.SyncBatchNorm", "torch.nn.modules.batchnorm.SyncBatchNorm"))
_SEQUENTIAL = frozenset(("torch.nn.Sequential", "torch.nn.modules.container.Sequential"))
_ORDERED_DICTS = frozenset(("OrderedDict", "collections.OrderedDict"))
# Conv{1,2,3}d(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, ...)
_BIAS_POSITION = 7

# Per module: (function name, the self attributes the function assigns, conv attribute) of each
# ``self.<conv> = nn.ConvNd(...)`` whose every call in its class feeds a BatchNorm of the class.
ConvKey = Tuple[str, FrozenSet[str], str]


class ConvBiasBeforeBatchnorm(Rule):
    code = "TPL605"
    message = (
        "this convolution's bias is cancelled by the BatchNorm that follows it (batch norm subtracts "
        "the per-channel mean): pass `bias=False` and save the add, the parameters and their optimizer "
        "state (runtime_guard: observed at model construction)"
    )
    prefilter = (("Conv1d", "Conv2d", "Conv3d"),)
    file_prefilter = (("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"),)

    @classmethod
    def ast_may_match(cls, unit) -> bool:
        """A convolution that may keep its bias (every report is of one): most library
        convolutions before a BatchNorm already say ``bias=False``, or pass it on (``bias=bias``)."""
        return any(_may_have_bias(call) for call in unit.calls_to(_CONVS))

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        qual = canonical(ctx.qualname(node.func))
        if qual in _SEQUENTIAL:
            built_from = _splatted_name(node)
            if built_from is None:
                self._check_sequence(_sequence_items(node, ctx))
            else:
                scope = ctx.frame.node if ctx.frame.node is not None else ctx.stack[0]
                for items in _layer_lists(scope, built_from):
                    self._check_sequence(items, _single_assignments(scope))
        elif qual in _CONVS and _has_bias(node):
            self._check_attribute(node)

    def _check_sequence(
        self, items: List[cst.BaseExpression], names: Optional[Dict[str, cst.BaseExpression]] = None
    ) -> None:
        ctx = self.ctx
        if names:
            # ``conv2d = nn.Conv2d(...); layers += [conv2d, nn.BatchNorm2d(v)]`` (torchvision's VGG)
            items = [names.get(i.value, i) if isinstance(i, cst.Name) else i for i in items]
        for first, second in zip(items, items[1:]):
            if (
                isinstance(first, cst.Call) and isinstance(second, cst.Call)
                and canonical(ctx.qualname(first.func)) in _CONVS and _has_bias(first)
                and canonical(ctx.qualname(second.func)) in _BATCHNORMS
            ):
                self._report(first)

    def _check_attribute(self, node: cst.Call) -> None:
        """``self.conv = nn.Conv2d(...)`` in a class whose forward feeds ``self.conv`` into a BatchNorm."""
        ctx = self.ctx
        assign = ctx.parent()
        if not (isinstance(assign, cst.Assign) and assign.value is node and len(assign.targets) == 1):
            return
        attr = _self_attribute(assign.targets[0].target)
        function = ctx.frame.node
        if attr is None or not isinstance(function, cst.FunctionDef):
            return
        key = (function.name.value, frozenset(_assigned_self_attributes_cst(function)), attr)
        if key in ctx.facts.derived("TPL605.convs_into_batchnorm", convs_into_batchnorm):
            self._report(node)

    def _report(self, conv: cst.Call) -> None:
        fix = RuleFix(UNSAFE, "pass bias=False to the convolution", [(conv, _without_bias(conv))])
        self.report(conv, fix=fix)


def _has_bias(conv: cst.Call) -> bool:
    """The convolution has a bias: ``bias`` left out (default True) or written ``True``."""
    if has_splat(conv):
        return False
    arg = keyword(conv, "bias")
    if arg is None:
        args = positional(conv)
        arg = args[_BIAS_POSITION] if len(args) > _BIAS_POSITION else None
    return arg is None or is_true(arg.value)


def _may_have_bias(conv: ast.Call) -> bool:
    """``_has_bias`` on the ast, erring on "maybe"."""
    if any(k.arg is None for k in conv.keywords) or any(isinstance(a, ast.Starred) for a in conv.args):
        return False
    arg = next((k.value for k in conv.keywords if k.arg == "bias"), None)
    if arg is None and len(conv.args) > _BIAS_POSITION:
        arg = conv.args[_BIAS_POSITION]
    return arg is None or (isinstance(arg, ast.Constant) and arg.value is True)


def _without_bias(conv: cst.Call) -> cst.Call:
    if keyword(conv, "bias") is not None:
        return set_keyword(conv, "bias", cst.Name("False"))
    args = positional(conv)
    if len(args) > _BIAS_POSITION:
        old = args[_BIAS_POSITION]
        args = [a.with_changes(value=cst.Name("False")) if a is old else a for a in conv.args]
        return conv.with_changes(args=args)
    return add_keyword(conv, "bias", cst.Name("False"))


def _sequence_items(call: cst.Call, ctx) -> List[cst.BaseExpression]:
    """The layers of ``nn.Sequential(a, b, ...)`` or ``nn.Sequential(OrderedDict([("a", a), ...]))``,
    in order; a starred argument breaks the sequence (what it holds is unknown)."""
    args = list(call.args)
    if len(args) == 1 and not args[0].star and isinstance(args[0].value, cst.Call):
        inner = args[0].value
        name = ctx.qualname(inner.func) or (inner.func.value if isinstance(inner.func, cst.Name) else None)
        pairs = inner.args[0].value if len(inner.args) == 1 else None
        if name in _ORDERED_DICTS and isinstance(pairs, (cst.List, cst.Tuple)):
            items = []
            for element in pairs.elements:
                pair = element.value
                if isinstance(pair, cst.Tuple) and len(pair.elements) == 2:
                    items.append(pair.elements[1].value)
                else:
                    items.append(None)
            return items
    return [None if a.star or a.keyword is not None else a.value for a in args]


def _splatted_name(call: cst.Call) -> Optional[str]:
    """``nn.Sequential(*layers)``: ``layers``."""
    if len(call.args) == 1 and call.args[0].star == "*" and isinstance(call.args[0].value, cst.Name):
        return call.args[0].value.value
    return None


def _layer_lists(scope: cst.CSTNode, name: str) -> Iterator[List[cst.BaseExpression]]:
    """The runs of layers the function adds to the list ``name`` that it builds a Sequential from:
    ``name = [a, b]``, ``name += [a, b]``, ``name.extend([a, b])``, and consecutive
    ``name.append(a)`` / ``name.append(b)`` statements."""
    def elements(value: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        if isinstance(value, (cst.List, cst.Tuple)):
            return [None if isinstance(e, cst.StarredElement) else e.value for e in value.elements]
        return None

    def appended(stmt: cst.CSTNode) -> Optional[cst.BaseExpression]:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
            call = stmt.body[0].value
            if (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                    and call.func.attr.value == "append" and isinstance(call.func.value, cst.Name)
                    and call.func.value.value == name and len(call.args) == 1 and not call.args[0].star):
                return call.args[0].value
        return None

    for node in descendants(scope, prune=lambda n: _nested_definition(n, scope)):
        items = None
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            if node.targets[0].target.value == name:
                items = elements(node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
            if isinstance(node.target, cst.Name) and node.target.value == name:
                items = elements(node.value)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "extend":
            if isinstance(node.func.value, cst.Name) and node.func.value.value == name and len(node.args) == 1:
                items = elements(node.args[0].value)
        elif isinstance(node, cst.IndentedBlock):
            run: List[cst.BaseExpression] = []
            for stmt in node.body:
                layer = appended(stmt)
                if layer is not None:
                    run.append(layer)
                    continue
                if len(run) > 1:
                    yield run
                run = []
            if len(run) > 1:
                yield run
        if items:
            yield items


def _nested_definition(node: cst.CSTNode, scope: cst.CSTNode) -> bool:
    return node is not scope and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _single_assignments(scope: cst.CSTNode) -> Dict[str, cst.BaseExpression]:
    """Names assigned exactly once in the function (``conv2d = nn.Conv2d(...)``), with their value."""
    seen: Dict[str, Optional[cst.BaseExpression]] = {}
    for node in descendants(scope, prune=lambda n: _nested_definition(n, scope)):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    key = target.target.value
                    seen[key] = None if key in seen else node.value
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
            seen[node.target.value] = None
        elif isinstance(node, (cst.For, cst.CompFor)):
            for name in assigned_names(node.target):
                seen[name] = None
    return {k: v for k, v in seen.items() if v is not None}


def _self_attribute(target: cst.BaseExpression) -> Optional[str]:
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return target.attr.value
    return None


def _assigned_self_attributes_cst(function: cst.FunctionDef) -> Set[str]:
    names = set()
    for node in descendants(function.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                attr = _self_attribute(target.target)
                if attr:
                    names.add(attr)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            attr = _self_attribute(node.target)
            if attr:
                names.add(attr)
    return names


# ---- the module-wide half, from the ast: which conv attributes feed a BatchNorm ------------------
def convs_into_batchnorm(tree: ast.Module, table) -> FrozenSet[ConvKey]:
    keys: Set[ConvKey] = set()
    for stmt in tree.body:  # one part per top-level statement (the server keeps those not edited)
        keys |= statement_part("TPL605.convs_into_batchnorm", stmt, table,
                               lambda part: _statement_convs_into_batchnorm(part, table))
    return frozenset(keys)


def _statement_convs_into_batchnorm(stmt: ast.stmt, table) -> FrozenSet[ConvKey]:
    keys: Set[ConvKey] = set()
    for cls, _ in walk_statements([stmt]):
        if isinstance(cls, ast.ClassDef):
            keys |= _class_convs_into_batchnorm(cls, table)
    return frozenset(keys)


def _class_convs_into_batchnorm(cls: ast.ClassDef, table) -> Set[ConvKey]:
    methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    built: Dict[str, Set[str]] = {}  # self attribute -> kinds it is assigned ("conv", "bn", "other")
    where: Dict[str, List[ast.FunctionDef]] = {}
    for method in methods:
        for node in _walk_function(method):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) and node.value is not None else []
            for target in targets:
                attr = _self_attribute_ast(target)
                if attr is None:
                    continue
                built.setdefault(attr, set()).add(_layer_kind(node.value, table) if len(targets) == 1 else "other")
                where.setdefault(attr, []).append(method)
    convs = {a for a, kinds in built.items() if kinds == {"conv"}}
    norms = {a for a, kinds in built.items() if kinds == {"bn"}}
    if not convs or not norms:
        return set()
    fed: Dict[str, bool] = {}  # conv attribute -> every call of it feeds a BatchNorm
    for method in methods:
        for body in _bodies(method):
            for index, stmt in enumerate(body):
                following = body[index + 1] if index + 1 < len(body) else None
                for call in _calls_in_statement(stmt):
                    attr = _called_self_attribute(call)
                    if attr in convs:
                        fed[attr] = fed.get(attr, True) and _feeds_batchnorm(call, stmt, following, norms)
    keys = set()
    assigned_in: Dict[int, FrozenSet[str]] = {}  # method -> its self attributes, walked once per method
    for attr, ok in fed.items():
        if ok:
            for method in where[attr]:
                if id(method) not in assigned_in:
                    assigned_in[id(method)] = frozenset(_assigned_self_attributes_ast(method))
                keys.add((method.name, assigned_in[id(method)], attr))
    return keys


def _walk_function(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function, not looking into nested functions and classes."""
    return walk_ast(function.body, prune=(ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))


def _layer_kind(value: ast.AST, table) -> str:
    if isinstance(value, ast.Call):
        qual = canonical(table.resolve(dotted_name_ast(value.func)))
        if qual in _CONVS:
            return "conv"
        if qual in _BATCHNORMS:
            return "bn"
    return "other"


def _self_attribute_ast(target: ast.AST) -> Optional[str]:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return None


def _assigned_self_attributes_ast(function: ast.AST) -> Set[str]:
    names = set()
    for node in ast.walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        for target in targets:
            attr = _self_attribute_ast(target)
            if attr:
                names.add(attr)
    return names


def _bodies(function: ast.AST) -> Iterator[List[ast.stmt]]:
    """Every statement list in a function (its body, branches, loop bodies), nested functions apart."""
    pending = [function]
    while pending:
        node = pending.pop()
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body
                pending.extend(
                    s for s in body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                )
        for handler in getattr(node, "handlers", ()):
            yield handler.body
            pending.extend(handler.body)
        for case in getattr(node, "cases", ()):
            yield case.body
            pending.extend(case.body)


def _calls_in_statement(stmt: ast.stmt) -> Iterator[ast.Call]:
    """Calls in the statement itself, not in the statements nested in it (those are in other bodies)."""
    pending = [stmt]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Call):
            yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.stmt, ast.Lambda)):
                pending.append(child)


def _called_self_attribute(call: ast.Call) -> Optional[str]:
    return _self_attribute_ast(call.func)


def _feeds_batchnorm(call: ast.Call, stmt: ast.stmt, following: Optional[ast.stmt], norms: Set[str]) -> bool:
    """``self.bn(self.conv(x))``, or ``y = self.conv(x)`` directly followed by ``z = self.bn(y)``."""
    for outer in _calls_in_statement(stmt):
        if _called_self_attribute(outer) in norms and outer.args and outer.args[0] is call:
            return True
    if isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0], ast.Name) and following is not None:
        name = stmt.targets[0].id
        value = following.value if isinstance(following, (ast.Assign, ast.Expr, ast.Return)) else None
        return (
            isinstance(value, ast.Call) and _called_self_attribute(value) in norms
            and len(value.args) == 1 and isinstance(value.args[0], ast.Name) and value.args[0].id == name
        )
    return False


RULE = ConvBiasBeforeBatchnorm
RULE.VALID = (
    """
import torch.nn as nn
a = nn.Sequential(nn.Conv2d(3, 64, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU())
b = nn.Sequential(nn.Conv2d(3, 64, 3), nn.ReLU(), nn.BatchNorm2d(64))       # an activation in between
c = nn.Sequential(nn.Conv2d(3, 64, 3), nn.MaxPool2d(2), nn.BatchNorm2d(64))
d = nn.Sequential(nn.Conv2d(3, 64, 3, bias=use_bias), nn.BatchNorm2d(64))   # a value we cannot see
e = nn.Sequential(nn.Conv2d(3, 64, 3), nn.GroupNorm(8, 64))
def make_layers(cfg, batch_norm):
    layers = []
    for v in cfg:
        conv = nn.Conv2d(3, v, 3, padding=1)
        if batch_norm:
            layers += [conv, nn.BatchNorm2d(v), nn.ReLU()]
        else:
            layers += [conv, nn.ReLU()]
        conv = nn.Conv2d(v, v, 1)           # assigned twice: which one is in the list is unclear
    return nn.Sequential(*layers)
""",
    """
import torch.nn as nn
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)
        self.head = nn.Conv2d(c, 10, 1)
    def forward(self, x):
        x = self.bn(self.conv(x)) + self.conv(x).mean()   # conv output also used without the norm
        return self.head(torch.relu(x))
""",
)
RULE.INVALID = (
    """
import torch.nn as nn
def make_layers(cfg):
    layers = []
    for v in cfg:
        layers += [nn.Conv2d(3, v, kernel_size=3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]  # TPL605
    return nn.Sequential(*layers)
""",
    """
import torch.nn as nn
stem = nn.Sequential(
    nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3),  # TPL605
    nn.BatchNorm2d(64, affine=False),
    nn.ReLU(inplace=True),
)
""",
    """
import torch
from torch import nn
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)  # TPL605
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=True)  # TPL605
        self.bn2 = nn.BatchNorm2d(c)
    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.conv2(out)
        out = self.bn2(out)
        return torch.relu(out + x)
""",
)
RULE.FIXES = (
    (
        """
import torch.nn as nn
stem = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2, padding=3), nn.BatchNorm2d(64), nn.ReLU())
""",
        """
import torch.nn as nn
stem = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64), nn.ReLU())
""",
    ),
    (
        """
import torch.nn as nn
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=True)
        self.bn = nn.BatchNorm2d(c)
    def forward(self, x):
        return self.bn(self.conv(x))
""",
        """
import torch.nn as nn
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c)
    def forward(self, x):
        return self.bn(self.conv(x))
""",
    ),
)
RULE.WHY = """\
BatchNorm subtracts the per-channel mean of its input (the batch mean in training, the running mean
in evaluation), so a per-channel constant added just before it — the convolution's bias — comes
out again: `BN(conv(x) + b) == BN(conv(x))`. The bias still costs an add over the whole output,
memory, a gradient, and optimizer state for nothing; BatchNorm's own `beta` is the bias that
matters. This holds with `affine=False` too. The PyTorch Performance Tuning Guide lists it, and the
profiler's pattern matcher reports it ("Enabling Bias in Conv2d Followed By BatchNorm Pattern")."""
RULE.EXAMPLE = """\
nn.Sequential(nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU())"""
RULE.USE_INSTEAD = """\
nn.Sequential(nn.Conv2d(64, 128, 3, padding=1, bias=False), nn.BatchNorm2d(128), nn.ReLU())"""
RULE.FIX_NOTE = """\
Unsafe (applied with `--unsafe-fixes`): the model's `state_dict` loses the conv's `bias` key, so
loading an existing checkpoint with `strict=True` fails (load it with `strict=False`, or fold the
bias into the BatchNorm's running mean first). Outputs are unchanged."""
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#disable-bias-for-convolutions-directly-followed-by-a-batch-norm",
)
