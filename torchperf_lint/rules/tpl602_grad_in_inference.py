"""TPL602 grad-in-inference: a model evaluated in a loop after ``.eval()`` with autograd recording."""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.edit_reuse import statement_part
from ..analysis.names import canonical, dotted_name_ast
from ..analysis.syntax import dotted_name, find_calls, is_grad_off, is_true, method_call
from ..analysis.tree import descendants
from ..analysis.walker import Rule

# What a function that needs gradients does: then the autograd graph is wanted.
_NEEDS_GRAD = frozenset(("backward", "step", "requires_grad_", "grad", "retain_grad", "zero_grad"))
# torch functions that differentiate (a gradient penalty, a saliency map, an attack): the graph is
# wanted, however they are imported (``from torch.autograd import grad``).
_DIFFERENTIATES = frozenset((
    "torch.autograd.grad", "torch.autograd.backward", "torch.func.grad", "torch.func.grad_and_value",
    "torch.func.vjp", "torch.func.jvp", "torch.func.jacrev", "torch.func.jacfwd", "torch.func.hessian",
))
_DIFFERENTIATING_MODULES = ("torch.autograd.functional.",)


class GradInInference(Rule):
    code = "TPL602"
    message = (
        "`{model}` is evaluated in a loop after `{model}.eval()` with autograd on: every call records "
        "the graph and keeps activations alive; wrap the loop in `with torch.inference_mode():` "
        "(or `torch.no_grad()`)"
    )
    prefilter = ((".eval()",), ("for", "while"), r"\b(?:for|while)\b")
    needs_loop = True  # reports only in a loop (innermost_loop / current_step_loop)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        model = dotted_name(node.func)
        if model is None or ctx.innermost_loop() is None:
            return
        scope = ctx.frame.node if ctx.frame.node is not None else ctx.stack[0]
        calls = find_calls(scope, lambda c: c is node or method_call(c) is not None)
        if node not in calls:
            return
        here = calls.index(node)
        state = None
        built = self._bound_by_assignment(scope)
        for call in calls[:here]:
            receiver, name = method_call(call)
            # ``model.eval()``, or ``net = nn.DataParallel(model).to(device).eval()``
            if name in ("eval", "train") and (dotted_name(receiver) == model or built.get(id(call)) == model):
                if name == "eval":
                    state = "eval"
                elif not call.args or _literal_arg(call) is True:
                    state = "train"
                else:  # train(False) is eval(); train(mode) we cannot see
                    state = "eval" if _literal_arg(call) is False else None
        if state != "eval":
            return
        if any(method_call(c)[1] in _NEEDS_GRAD for c in calls if c is not node) or self._differentiates(scope):
            return  # a training or attack function: the graph is wanted
        if self._grad_off(scope):
            return
        self.report(node, self.message.format(model=model))

    def _bound_by_assignment(self, scope: cst.CSTNode) -> dict:
        """id of a call that is the whole value of a one-target assignment -> the target's dotted
        name, for the assignments in ``scope`` (computed once per scope)."""
        cache = self.__dict__.setdefault("_assignments", {})
        found = cache.get(id(scope))
        if found is None:
            body = scope.body if isinstance(scope, cst.FunctionDef) else scope
            found = cache[id(scope)] = {
                id(n.value): dotted_name(n.targets[0].target)
                for n in descendants(body, prune=lambda x: isinstance(x, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))
                if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.value, cst.Call)
            }
        return found

    def _differentiates(self, scope: cst.CSTNode) -> bool:
        """The function asks autograd for gradients without ``.backward()``: ``torch.autograd.grad``
        (a gradient penalty), ``torch.func.grad``..., ``x.requires_grad = True``, or a call of a
        function of the module that does (``gp = compute_gradient_penalty(D, real, fake)``)."""
        ctx = self.ctx
        helpers = ctx.facts.derived("TPL602.differentiating_functions", differentiating_functions)

        def differentiates(call: cst.Call) -> bool:
            if _is_differentiation(ctx.qualname(call.func)):
                return True
            func = call.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in (
                    "self", "cls"):
                return func.attr.value in helpers
            return isinstance(func, cst.Name) and func.value in helpers and ctx.qualname(func) is None

        if find_calls(scope, differentiates):
            return True
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        return any(
            isinstance(n, cst.Assign) and is_true(n.value) and any(
                isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad" for t in n.targets)
            for n in descendants(body, prune=lambda x: isinstance(x, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))
        )

    def _grad_off(self, scope: cst.CSTNode) -> bool:
        ctx = self.ctx
        if ctx.under_grad_off():
            return True
        frame = ctx.frame
        while frame is not None:
            if isinstance(frame.node, cst.FunctionDef) and frame.node.name.value in ctx.facts.grad_free_callees:
                return True  # called only under no_grad/inference_mode in this module
            frame = frame.parent
        # torch.set_grad_enabled(False) as a statement, or a grad mode we cannot follow.
        return bool(find_calls(scope, lambda c: is_grad_off(c, ctx)))


def _is_differentiation(qual) -> bool:
    return bool(qual) and (qual in _DIFFERENTIATES or qual.startswith(_DIFFERENTIATING_MODULES))


def differentiating_functions(tree: ast.Module, table) -> frozenset:
    """Names of the module's functions and methods that differentiate (call ``torch.autograd.grad``
    and the like), directly or through other such functions of the module, nested definitions
    apart."""
    calls = {}  # function name -> (differentiates itself?, names it calls)
    for stmt in tree.body:  # one part per top-level statement (the server keeps those not edited)
        for name, own, called in statement_part("TPL602.differentiating_functions", stmt, table,
                                                lambda part: _functions_calls(part, table)):
            before = calls.get(name, (False, frozenset()))
            calls[name] = (before[0] or own, before[1] | called)
    found = {name for name, (own, _) in calls.items() if own}
    changed = True
    while changed:
        changed = False
        for name, (_, called) in calls.items():
            if name not in found and not called.isdisjoint(found):
                found.add(name)
                changed = True
    return frozenset(found)


def _functions_calls(stmt: ast.stmt, table) -> tuple:
    """(name, differentiates itself?, names it calls) for each function or method in ``stmt``."""
    parts = []
    for node in ast.walk(stmt):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own, called = False, set()
        pending = list(node.body)
        while pending:
            child = pending.pop()
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Call):
                if _is_differentiation(canonical(table.resolve(dotted_name_ast(child.func)))):
                    own = True
                func = child.func
                if isinstance(func, ast.Name):
                    called.add(func.id)
                elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in (
                        "self", "cls"):
                    called.add(func.attr)
            pending.extend(ast.iter_child_nodes(child))
        parts.append((node.name, own, frozenset(called)))
    return tuple(parts)


def _literal_arg(call: cst.Call):
    if len(call.args) == 1 and isinstance(call.args[0].value, cst.Name):
        return {"True": True, "False": False}.get(call.args[0].value.value)
    return None


RULE = GradInInference
RULE.VALID = (
    """
import torch
from .utils import smart_inference_mode
@smart_inference_mode()                    # a project's own inference_mode wrapper
def validate(model, loader):
    model.eval()
    for x in loader:
        model(x)
""",
    """
import torch
def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
@torch.inference_mode()
def predict(model, loader):
    model.eval()
    return [model(x) for x in loader] + [model(x) for x in loader for _ in range(1)]
def train(model, loader, opt):
    model.eval()
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        opt.step()
""",
    """
import torch
def run_eval(model, loader):
    model.eval()
    for x in loader:
        model(x)
def main(model, loader):
    with torch.no_grad():
        run_eval(model, loader)          # the only caller runs it without autograd
def other(model, loader):
    model.eval()
    model.train()
    for x in loader:
        model(x)                         # back in training mode
""",
    """
import torch
from torch.autograd import grad
from torch import autograd
def gradient_penalty(critic, real, fake):
    mixed = (real + fake) / 2
    scores = critic(mixed)
    return autograd.grad(scores.sum(), mixed, create_graph=True)[0].norm()
def train_critic(generator, critic, loader):
    generator.eval()                         # a frozen generator, while the critic trains
    for real in loader:
        fake = generator(real)
        penalty = gradient_penalty(critic, real, fake)   # a helper that differentiates
def input_gradients(model, loader):
    model.eval()
    for x in loader:
        x.requires_grad = True
        out = model(x)
        g, = grad(out.sum(), x)              # saliency: the graph is wanted
""",
)
RULE.INVALID = (
    """
import torch
import torch.nn as nn
def save_features(model, loader, device):
    net = nn.DataParallel(model).to(device).eval()     # eval mode set where the model is built
    out = []
    for data in loader:
        out.append(net(data.to(device)).detach())  # TPL602
    return out
""",
    """
import torch
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x)  # TPL602
        correct += (out.argmax(1) == y).sum()
    return correct
""",
    """
import torch
class Runner:
    def validate(self, loader):
        self.net.eval()
        for batch in loader:
            pred = self.net(batch)  # TPL602
""",
    """
import torch
def summarize(out):
    return out.mean()
def evaluate(model, loader):
    model.eval()
    for x in loader:
        out = model(x)  # TPL602
        grad = summarize(out)                # a local name, not torch.autograd.grad
""",
)
RULE.WHY = """\
`model.eval()` switches dropout and BatchNorm to inference behaviour but leaves autograd on: every
forward pass still records the graph and keeps each layer's activations alive for a backward pass
that never comes. Evaluation then uses several times the memory it needs (limiting the batch size)
and spends time on bookkeeping. `torch.inference_mode()` (or `torch.no_grad()`) turns the recording
off; inference mode also skips version counting."""
RULE.EXAMPLE = """\
model.eval()
for x, y in val_loader:
    preds = model(x)"""
RULE.USE_INSTEAD = """\
model.eval()
with torch.inference_mode():
    for x, y in val_loader:
        preds = model(x)"""
RULE.FIX_NOTE = "No autofix: tensors made under inference mode cannot be used later in autograd."
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.inference_mode.html",
    "https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation",
)
