"""TPL601 matmul-chain: three or more matrices multiplied in one expression, in an order fixed by the code."""

from __future__ import annotations

import re
from typing import List, Optional

import libcst as cst

from ..catalog import UNSAFE
from ..findings import RuleFix
from ..analysis.syntax import code_of, positional
from ..analysis.walker import Rule

_PRODUCTS = frozenset(("torch.mm", "torch.matmul", "torch.linalg.matmul"))
# Batched operands: multi_dot takes 2-D matrices only, so its advice does not apply.
_BATCHED = re.compile(r"\.m[TH]\b|transpose\(\s*-|None\s*\]|\.\.\.|unsqueeze|permute\([^()]*,[^()]*,|\bbmm\b|einsum")
# A product with a diagonal matrix is better written as broadcasting than reordered.
_DIAGONAL = re.compile(r"diag", re.I)
# Compositions of small square transforms (affine, rotation, projection...): any order costs the same.
_TRANSFORM = re.compile(
    r"(?i:mat(rix)?|affine|transform|xform|rot|shift|scale|homograph|proj|inv|pose|trans|intrinsic|extrinsic)"
    r"|^[KRH]\d*(_?inv)?$"
)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_SKIP_HEAD = frozenset(("self", "torch", "linalg", "inverse", "inv", "t", "T"))


class MatmulChain(Rule):
    code = "TPL601"
    message = (
        "a product of {n} matrices is evaluated left to right whatever the shapes; "
        "`torch.linalg.multi_dot([...])` picks the cheapest order (it can be many times fewer FLOPs)"
    )
    # Two products on one line: ``@`` between operands or ``mm(``/``matmul(``.
    # (A chain split over lines inside parentheses is not looked at: rare, and parsing every unit
    # with a single ``q @ k`` would cost more than it finds.)
    # (Both patterns start with ``@`` or ``m`` so that the regex engine can skip ahead quickly.)
    prefilter = (
        ("@", "mm(", "matmul("),
        r"@ *[\w(]|m(?:m|atmul)\(",
        r"@ *[\w(][^\n@]*(?:@ *[\w(]|m(?:m|atmul)\()|m(?:m|atmul)\([^\n]*(?:@ *[\w(]|m(?:m|atmul)\()",
    )

    def _is_product_call(self, node: cst.CSTNode) -> bool:
        return (
            isinstance(node, cst.Call)
            and len(node.args) == 2
            and len(positional(node)) == 2
            and self.ctx.qualname(node.func) in _PRODUCTS
        )

    @staticmethod
    def _is_matmul(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply)

    def _operands(self, expr: cst.BaseExpression) -> List[cst.BaseExpression]:
        """The factors of a chain, however it is grouped: ``(a @ b) @ c``, ``a @ (b @ c)`` and
        ``mm(a, mm(b, c))`` are all one expression multiplying three matrices in a fixed order."""
        if self._is_matmul(expr):
            return self._operands(expr.left) + self._operands(expr.right)
        if self._is_product_call(expr):
            return self._operands(expr.args[0].value) + self._operands(expr.args[1].value)
        return [expr]

    def _in_chain(self) -> bool:
        """Is the current node an inner link of a larger chain?"""
        parent = self.ctx.parent()
        if self._is_matmul(parent):
            return True
        return isinstance(parent, cst.Arg) and self._is_product_call(self.ctx.parent(2))

    def _check(self, node: cst.BaseExpression) -> None:
        if self._in_chain():
            return
        operands = self._operands(node)
        if len(operands) < 3 or any(self.ctx.is_numpy(o) for o in operands):
            return
        texts = [code_of(o) for o in operands]
        if any(_BATCHED.search(t) or _DIAGONAL.search(t) for t in texts):
            return
        names = [_base_name(t) for t in texts]
        if names[0] is not None and names[0] == names[-1]:
            return  # A @ X @ A.T: both orders cost the same
        if sum(1 for n in names if n and _TRANSFORM.search(n)) >= 2:
            return
        self.report(node, self.message.format(n=len(operands)), self._fix(node, operands))

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self._is_matmul(node):
            self._check(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self._is_product_call(node):
            self._check(node)

    def _fix(self, node: cst.BaseExpression, operands) -> Optional[RuleFix]:
        torch_name = next((n for n, q in self.ctx.table.bindings.items() if q == "torch"), None)
        if torch_name is None or self.ctx.qualname(cst.Name(torch_name)) != "torch":
            return None
        listed = ", ".join(code_of(o) for o in operands)
        call = cst.parse_expression(f"{torch_name}.linalg.multi_dot([{listed}])")
        call = call.with_changes(lpar=node.lpar, rpar=node.rpar)
        return RuleFix(UNSAFE, "use torch.linalg.multi_dot", [(node, call)])


def _base_name(text: str) -> Optional[str]:
    """``self.U_high.transpose(0, 1)`` -> ``U_high``; ``torch.linalg.inv(t2)`` -> ``t2``."""
    if _IDENTIFIER.fullmatch(text):
        return text
    for word in _IDENTIFIER.findall(text):
        if word not in _SKIP_HEAD:
            return word
    return None


RULE = MatmulChain
RULE.VALID = (
    """
import torch
import numpy as np
y = a @ b
z = torch.matmul(a, b)
w = torch.linalg.multi_dot([a, b, c])
arr = np.ones((3, 3))
v = arr @ arr @ arr                      # numpy arrays
r = R @ cov @ R.T                        # a sandwich: both orders cost the same
m = shift @ rotation @ shift_inv         # composed small transforms
u = U @ torch.diag_embed(s) @ V.mH       # batched, and better as broadcasting
p = k2.transpose(-2, -1) @ f @ k1        # batched: multi_dot takes 2-D matrices
""",
)
RULE.INVALID = (
    """
import torch
y = x @ w1 @ w2  # TPL601
g = a @ (b @ c)  # TPL601
h = torch.matmul(a, torch.matmul(b, c))  # TPL601
k = (a @ b) @ (c @ d)  # TPL601
z = torch.mm(torch.mm(a, b), c)  # TPL601
t = torch.matmul(torch.matmul(x, w1), w2) @ w3  # TPL601
""",
)
RULE.FIXES = (
    (
        "import torch\ny = x @ w1 @ w2\nz = torch.mm(torch.mm(a, b), c.T)\n",
        "import torch\ny = torch.linalg.multi_dot([x, w1, w2])\nz = torch.linalg.multi_dot([a, b, c.T])\n",
    ),
)
RULE.WHY = """\
Matrix multiplication is associative but its cost is not: for A (1000x10), B (10x1000) and
C (1000x10), `(A @ B) @ C` costs 20 million multiply-adds and a 1000x1000 temporary, while
`A @ (B @ C)` costs 200 thousand. Python evaluates `A @ B @ C` left to right whatever the shapes.
`torch.linalg.multi_dot` looks at the shapes at run time and picks the cheapest order.
Parentheses or nested `torch.matmul` calls fix one order too, chosen without the shapes at hand:
they are flagged as well. Not flagged, because `multi_dot` would not help: batched operands
(`.mT`, `transpose(-2, -1)`, `unsqueeze`, `...`: it takes 2-D matrices only), diagonal factors
(better as broadcasting), sandwiches `A @ X @ A.T` (both orders cost the same) and compositions of
small square transforms (`rotation @ shift @ scale`)."""
RULE.EXAMPLE = "out = x @ w_down @ w_up"
RULE.USE_INSTEAD = "out = torch.linalg.multi_dot([x, w_down, w_up])"
RULE.FIX_NOTE = """\
Opt-in (enable it with `--extend-select TPL601`, or `extend-select = TPL601` for flake8): the order
only matters when the inner dimension is much smaller than the outer ones, and on real model code
the shapes that decide it are rarely visible in the source (they come from configs and data), so
most chains the rule could flag are harmless; turn it on where you write explicit linear algebra.

Unsafe: `multi_dot` takes 2-D matrices (the first and last may be 1-D) and does not broadcast batch
dimensions, which the linter cannot see; a different order also rounds differently."""
RULE.REFERENCES = ("https://pytorch.org/docs/stable/generated/torch.linalg.multi_dot.html",)
