"""List the lines a labeller of the framework corpus must look at (a reading aid, not a linter).

Labelling method for docs/precision_framework_labels_*.tsv: every line this script prints was read
in context and judged by hand against shared/rules.md; lines it does not print were found by
reading the step methods themselves. The script only finds syntax that may be a TPL101/102/103/
104/301/302/207/401/604 pitfall somewhere, and says where it is (function, class, its bases,
enclosing loops and `if` tests) so the reader can decide whether it runs every step. It knows
nothing of step bodies, value origins or intervals: that judgement is the labeller's.

Usage: python benchmarks/framework_candidates.py /work/corpus/<repo> [more roots...]
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

SYNC_METHODS = {"item", "cpu", "numpy", "tolist", "nonzero"}
SYNC_BUILTINS = {"float", "int", "bool", "print", "max", "min"}
FACTORIES = {
    "tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
    "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like", "Tensor", "FloatTensor",
    "LongTensor", "BoolTensor", "IntTensor", "HalfTensor", "ByteTensor",
}
MARKERS = (
    "empty_cache", "synchronize", "set_to_none", "benchmark", "deterministic", "autocast",
    "GradScaler", "no_sync", "pin_memory", "allclose", "equal(", "is_nonzero",
)


def dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - a reading aid; odd nodes just print nothing
        return ""


class Walker(ast.NodeVisitor):
    def __init__(self, path: str, lines: list[str]):
        self.path = path
        self.lines = lines
        self.stack: list[str] = []
        self.classes: list[str] = []
        self.context: list[str] = []
        self.hits: dict[int, tuple[str, str]] = {}

    def where(self) -> str:
        return "/".join(self.stack) or "<module>"

    def add(self, line: int, why: str) -> None:
        ctx = " | ".join(self.context[-3:])
        if line in self.hits:
            old_why, old_ctx = self.hits[line]
            if why not in old_why:
                self.hits[line] = (old_why + "," + why, old_ctx)
            return
        self.hits[line] = (why, f"{self.where()} [{ctx}]")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = ",".join(dotted(b) for b in node.bases)
        self.stack.append(f"{node.name}({bases})")
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        deco = ",".join(dotted(d) for d in node.decorator_list)
        self.stack.append(node.name + (f"@{deco}" if deco else ""))
        saved = self.context
        self.context = []
        self.generic_visit(node)
        self.context = saved
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def _block(self, label: str, node: ast.AST) -> None:
        self.context.append(label[:70])
        self.generic_visit(node)
        self.context.pop()

    def visit_For(self, node: ast.For) -> None:
        self._block(f"for {dotted(node.target)} in {dotted(node.iter)}", node)

    def visit_While(self, node: ast.While) -> None:
        self._block(f"while {dotted(node.test)}", node)

    def visit_If(self, node: ast.If) -> None:
        self._block(f"if {dotted(node.test)}", node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr in SYNC_METHODS:
                self.add(node.lineno, "." + func.attr)
            if func.attr in FACTORIES and dotted(func.value) in {"torch", "T", "th"}:
                kws = {k.arg for k in node.keywords}
                if "device" not in kws:
                    self.add(node.lineno, "factory:" + func.attr)
            if func.attr in {"to", "cuda"} and self._moves_factory(func.value):
                self.add(node.lineno, "factory-moved")
        elif isinstance(func, ast.Name) and func.id in SYNC_BUILTINS and self._hot():
            self.add(node.lineno, func.id + "()")
        self.generic_visit(node)

    def _moves_factory(self, node: ast.AST) -> bool:
        return any(
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in FACTORIES
            for sub in ast.walk(node)
        )

    def _hot(self) -> bool:
        """Inside a loop, or in a function whose name says it runs per step."""
        names = "/".join(self.stack)
        return any(c.startswith(("for ", "while ")) for c in self.context) or bool(
            re.search(r"step|loss|batch|forward|__call__|update|train|log", names)
        )

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        if self._hot():
            self.add(node.lineno, "f-string")
        self.generic_visit(node)


def scan(root: Path) -> None:
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        if "torch" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            print(f"{rel}: syntax error")
            continue
        lines = text.splitlines()
        walker = Walker(rel, lines)
        walker.visit(tree)
        for number, line in enumerate(lines, 1):
            if any(marker in line for marker in MARKERS):
                walker.hits.setdefault(number, ("marker", ""))
        for number in sorted(walker.hits):
            why, where = walker.hits[number]
            print(f"{rel}:{number}: {why:14s} {where}\n    {lines[number - 1].strip()[:150]}")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(f"### {arg}")
        scan(Path(arg))
