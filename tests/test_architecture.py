"""The package's rooms import downward only, and no module imports another in a circle.

Layers, top to bottom: front ends → engine → rules → fixing → analysis → the shared vocabulary
(catalog, findings). Imports inside functions count: a late import is still a dependency.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "torchperf_lint"

LAYER = {"frontends": 5, "engine": 4, "rules": 3, "fixing": 2, "analysis": 1, "catalog": 0, "findings": 0,
         "__init__": 0}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path):
    """Every torchperf_lint module ``path`` imports, as dotted names."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("torchperf_lint"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("torchperf_lint"):
                continue
            for alias in node.names:  # `from . import engine` names a module
                candidate = f"{target}.{alias.name}"
                yield candidate if _exists(candidate) else target


def _exists(dotted: str) -> bool:
    relative = Path(*dotted.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").is_file() or (PACKAGE / relative / "__init__.py").is_file()


def _room(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


GRAPH = {_module_name(p): sorted(set(_imports(p))) for p in PACKAGE.rglob("*.py")}


def test_every_module_belongs_to_a_room():
    assert {_room(m) for m in GRAPH} <= set(LAYER), sorted({_room(m) for m in GRAPH} - set(LAYER))


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_go_downward(module):
    upward = [t for t in GRAPH[module] if LAYER[_room(t)] > LAYER[_room(module)]]
    assert not upward, f"{module} imports from a higher room: {upward}"


def test_no_import_cycles():
    state, cycles = {}, []

    def visit(node, stack):
        state[node] = "open"
        for target in GRAPH.get(node, ()):
            target = target if target in GRAPH else target.rpartition(".")[0] or target
            if target == node or target not in GRAPH:
                continue
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target):] + [target] if target in stack else [node, target])
            elif target not in state:
                visit(target, stack + [target])
        state[node] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    # A package's __init__ importing its own submodules (the rule registry) is not a cycle of modules.
    cycles = [c for c in cycles if not any(m == c[0].rpartition(".")[0] for m in c if m != c[0])]
    assert not cycles, cycles
