"""Imports of a script's own folder (rules.md "The project": the project's own imports resolved as
Python resolves them).

A script run as ``python tools/train.py`` has its own folder first on ``sys.path``: ``from models
import build`` imports ``tools/models.py``, ``import utils`` imports ``tools/utils.py`` (GPT-SoVITS,
CodeT5 and many research repositories keep their scripts and helpers side by side in a folder that
is not a package). Scripts also add folders themselves: ``sys.path.append(os.path.dirname(__file__))``,
``sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))``, ``sys.path.append("GPT_SoVITS")``.

The summary records the folders a module adds to ``sys.path`` at module level (``sys_path_folders``:
the argument evaluated when it is a literal, ``os.getcwd()``, or built from ``__file__`` by
``os.path.dirname``/``join``/``abspath``/``realpath``/``normpath``, ``pathlib.Path(...).parent``/
``resolve()``/``/``, ``str(...)``, ``+``/``%``/f-string with a literal tail, or a module-level name
bound to one of these). A project index module then binds an absolute import to a project file of
one of these folders, in Python's order, where the file exists there (a name nothing in the
folders holds keeps the root's resolution, or none: an installed package):

1. the script's own folder, when it is not a package (no ``__init__.py``);
2. folders inserted at the front (``sys.path.insert(0, ...)``);
3. the project root and ``src/`` (the existing resolution);
4. the module's own folder when it is a package (its module is imported by its dotted name, where
   Python 3 has no implicit relative import: the sibling is only what running it as a script
   finds), then folders appended (``sys.path.append(...)``); never for a name of the standard
   library, which these cannot shadow.

5. where none of these holds the module, the one project file named like it that defines the
   imported name (``from loss import cal_performance`` with ``src/transformer/loss.py`` defining
   ``cal_performance``): a folder the run script puts on ``PYTHONPATH`` (Speech-Transformer's
   ``path.sh``), which no Python file shows. Only ``from x import y``, only
   when exactly one such file defines ``y`` (a ``def``, ``class`` or assignment at module level, or
   a submodule file ``x/y.py``), also of a dotted ``x`` (``from core.evaluate import accuracy``
   with ``lib/core/evaluate.py``: the folder above ``core``), and only within the importer's own
   top-level folder (``src/``: the component the run script runs; a script in ``scripts/``
   importing ``utils`` does not reach ``tools/utils.py``, and may mean the package of that name);
   never a name of the standard library.

A literal relative path counts from the project root (scripts are run from there). Folders outside
the project are not followed.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from typing import Dict, List, Optional, Tuple

from .names import STAR_IMPORT_PATTERN

# How a recorded folder is anchored: to the file's own folder, or to the working directory (the root).
FILE, CWD = "file", "cwd"
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
_SAME_PATH = frozenset(("abspath", "realpath", "normpath", "expanduser", "resolve", "absolute", "str"))
_MAX_STATEMENTS = 2000  # module-level statements looked at (a generated file may hold many)
_MAX_READ_BYTES = 2 * 1024 * 1024  # what _text_may_define reads of a candidate module (the index's own limit)
_MAX_DEPTH = 24  # nested expressions of one path looked into


def _path_value(node, names: Dict[str, Tuple[str, str]], depth: int = 0) -> Optional[Tuple[str, str]]:
    """(anchor, relative path) of an expression that names a folder, or None. ``depth``: nested
    expressions looked into so far (a long module-level concatenation is no path, and must not
    exhaust the stack)."""
    if depth > _MAX_DEPTH:
        return None
    depth += 1
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (CWD, node.value) if not os.path.isabs(node.value) else None
    if isinstance(node, ast.Name):
        if node.id == "__file__":
            return FILE, "__file__"
        return names.get(node.id)
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        inner = _path_value(node.value, names, depth)
        return _dirname(inner)
    if isinstance(node, ast.BinOp):
        left = _path_value(node.left, names, depth)
        if isinstance(node.op, ast.Div) and left is not None:  # Path(...) / "sub"
            return _joined(left, node.right, names)
        if isinstance(node.op, ast.Add) and left is not None:  # now_dir + "/GPT_SoVITS"
            if isinstance(node.right, ast.Constant) and isinstance(node.right.value, str):
                return _joined(left, ast.Constant(node.right.value.lstrip("/\\") or "."), names)
            return None
        if (isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant)
                and isinstance(node.left.value, str) and node.left.value.startswith("%s")):  # "%s/GPT_SoVITS" % now_dir
            base = _path_value(node.right.elts[0] if isinstance(node.right, ast.Tuple) and len(node.right.elts) == 1
                               else node.right, names, depth)
            return _joined(base, ast.Constant(node.left.value[2:].lstrip("/\\") or "."), names) if base else None
        return None
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.FormattedValue):
        base = _path_value(node.values[0].value, names, depth)
        rest = node.values[1:]
        if base is None or not all(isinstance(v, ast.Constant) for v in rest):
            return None
        tail = "".join(v.value for v in rest).lstrip("/\\")
        return _joined(base, ast.Constant(tail or "."), names)
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name == "getcwd" and not node.args:
        return CWD, "."
    if name in ("Path", "PurePath") and len(node.args) == 1:
        return _path_value(node.args[0], names, depth)
    if name in _SAME_PATH:
        if isinstance(func, ast.Attribute) and not node.args and name in ("resolve", "absolute"):
            return _path_value(func.value, names, depth)
        return _path_value(node.args[0], names, depth) if len(node.args) == 1 else None
    if name == "dirname" and len(node.args) == 1:
        return _dirname(_path_value(node.args[0], names, depth))
    if name == "join" and node.args:
        found = _path_value(node.args[0], names, depth)
        for part in node.args[1:]:
            found = _joined(found, part, names) if found is not None else None
        return found
    return None


def _dirname(value: Optional[Tuple[str, str]]) -> Optional[Tuple[str, str]]:
    if value is None:
        return None
    anchor, path = value
    if path == "__file__":
        return anchor, "."
    return anchor, os.path.normpath(os.path.join(path, ".."))


def _joined(value: Optional[Tuple[str, str]], part, names) -> Optional[Tuple[str, str]]:
    if value is None or value[1] == "__file__":
        return None
    if not (isinstance(part, ast.Constant) and isinstance(part.value, str)) or os.path.isabs(part.value):
        return None
    return value[0], os.path.normpath(os.path.join(value[1], part.value))


def _sys_path_call(node) -> Optional[Tuple[str, ast.AST]]:
    """("insert"|"append", the folder argument) of ``sys.path.insert(0, x)``/``sys.path.append(x)``."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return None
    call = node.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "path"
            and isinstance(func.value.value, ast.Name) and func.value.value.id == "sys"):
        return None
    if func.attr == "append" and len(call.args) == 1:
        return "append", call.args[0]
    if (func.attr == "insert" and len(call.args) == 2 and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == 0):
        return "insert", call.args[1]
    return None


def sys_path_folders(tree: ast.Module) -> List[List[str]]:
    """[how ("insert"|"append"), anchor, relative folder] of each folder the module adds to
    ``sys.path`` in its module-level code (top-level statements and those of top-level ``if``/
    ``try``/``with`` blocks), in order."""
    names: Dict[str, Tuple[str, str]] = {}
    found: List[List[str]] = []
    pending = list(tree.body)
    pending.reverse()
    seen = 0
    while pending and seen < _MAX_STATEMENTS:
        stmt = pending.pop()
        seen += 1
        if isinstance(stmt, (ast.If, ast.Try, ast.With)):
            inner = list(stmt.body) + list(getattr(stmt, "orelse", ())) + [
                s for handler in getattr(stmt, "handlers", ()) for s in handler.body] + list(
                getattr(stmt, "finalbody", ()))
            pending.extend(reversed(inner))
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _path_value(stmt.value, names)
            if value is not None:
                names[stmt.targets[0].id] = value
            else:
                names.pop(stmt.targets[0].id, None)
            continue
        added = _sys_path_call(stmt)
        if added is not None:
            value = _path_value(added[1], names)
            if value is not None and value[1] != "__file__":
                found.append([added[0], value[0], value[1]])
    return found


def _folder(root: str, path: str, anchor: str, relative: str) -> Optional[str]:
    base = os.path.dirname(path) if anchor == FILE else root
    folder = os.path.normpath(os.path.join(base, relative))
    inside = os.path.relpath(folder, root)
    return folder if inside == "." or not inside.startswith("..") else None


def _holds(project, folder: str, module: str, imported: Optional[str]) -> bool:
    """Does ``folder`` hold the module ``module`` (a file or a package, or a folder holding the
    imported submodule: ``from module import commons`` with ``module/commons.py``)? Kept per
    project (``memo``): the modules of one folder import the same names."""
    key = ("script_folder_holds", folder, module, imported)
    known = project.memo.get(key)
    if known is None:
        known = project.memo[key] = _file_holds(folder, module, imported)
    return known


def _may_define(project, folder: str, module: str, imported: Optional[str]) -> bool:
    """Can ``from module import imported`` bind ``imported`` from ``folder``'s file of ``module``?
    False only when that file's text never names it (no definition, import or assignment could
    bind it) and it has no star import nor such a submodule: Python would raise there, so the
    import is another folder's (VRP-DACT's ``agent/ppo.py``, in a folder without ``__init__.py``,
    imports ``clip_grad_norms`` from the root's ``utils`` package beside its own ``agent/utils.py``,
    which lacks it: holdout161; R144). Kept per project (``memo``)."""
    if imported is None:
        return True
    key = ("script_folder_defines", folder, module, imported)
    known = project.memo.get(key)
    if known is None:
        known = project.memo[key] = _text_may_define(os.path.join(folder, *module.split(".")), imported)
    return known


def _text_may_define(base: str, imported: str) -> bool:
    if os.path.isfile(os.path.join(base, imported + ".py")) or os.path.isdir(os.path.join(base, imported)):
        return True
    path = base + ".py" if os.path.isfile(base + ".py") else os.path.join(base, "__init__.py")
    try:
        with open(path, "rb") as handle:
            text = handle.read(_MAX_READ_BYTES)
    except OSError:
        return True
    return (_STAR_IMPORT_BYTES.search(text) is not None
            or re.search(rb"\b" + re.escape(imported.encode()) + rb"\b", text) is not None)


def _file_holds(folder: str, module: str, imported: Optional[str]) -> bool:
    base = os.path.join(folder, *module.split("."))
    if os.path.isfile(base + ".py") or os.path.isfile(os.path.join(base, "__init__.py")):
        return True
    return imported is not None and os.path.isfile(os.path.join(base, imported + ".py"))


def script_folder_bindings(project, module) -> None:
    """Rebind ``module``'s absolute imports that a folder of its ``sys.path`` holds before the
    root does (the module docstring's order), to that folder's project module names."""
    data = module.data
    added = data.get("sys_path") or ()
    folder = os.path.dirname(module.path)
    root = project.root
    package = os.path.isfile(os.path.join(folder, "__init__.py"))
    own = [folder] if folder != root else []
    front = ([] if package else own) + [f for how, anchor, rel in reversed(added) if how == "insert"
                                        for f in (_folder(root, module.path, anchor, rel),) if f is not None]
    back = (own if package else []) + [f for how, anchor, rel in added if how == "append"
                                       for f in (_folder(root, module.path, anchor, rel),) if f is not None]
    for local, level, name, imported in data["imports"]:
        if level or not name:
            continue
        if imported == "*":
            _rebind_star(project, module, name, front, back)
            continue
        if not front and not back and imported is None:
            continue  # nothing but the fallback (5.) could rebind it
        if module.bindings.get(local) != (f"{name}.{imported}" if imported is not None else name):
            continue  # a later import binds the name (``try: from .configs ... except: from configs ...``)
        chosen = next((f for f in front if _holds(project, f, name, imported)
                       and _may_define(project, f, name, imported)), None)
        if chosen is None:
            if project.path_of(name) is not None or (imported and project.path_of(f"{name}.{imported}")):
                continue  # the root's own resolution
            if name.split(".", 1)[0] in _STDLIB:
                continue
            chosen = next((f for f in back if _holds(project, f, name, imported)), None)
            if chosen is None and imported is not None:
                chosen = _only_folder_defining(project, module.path, name, imported)
        if chosen is None:
            continue
        prefix = project.module_name(os.path.join(chosen, "__init__.py"))
        if prefix:  # (none: the root or src/, the root's own resolution)
            module.bindings[local] = f"{prefix}.{name}.{imported}" if imported is not None else f"{prefix}.{name}"


def _rebind_star(project, module, name: str, front, back) -> None:
    """``from model.embedder import *`` (volsdf's ``code/model/network.py``, run from ``code/``):
    the module a star import names, found as a ``from x import y`` is (the folders of the path in
    order, then the one project file at the end of the name's folders), so that what it binds
    (``torch``: R25) is read from there."""
    if name not in module.star_imports:
        return
    chosen = next((f for f in front if _holds(project, f, name, None)), None)
    if chosen is None:
        if project.path_of(name) is not None or name.split(".", 1)[0] in _STDLIB:
            return  # the root's own resolution
        chosen = next((f for f in back if _holds(project, f, name, None)), None)
        if chosen is None:
            chosen = _only_folder_defining(project, module.path, name, None)
    if chosen is None:
        return
    prefix = project.module_name(os.path.join(chosen, "__init__.py"))
    if prefix:
        module.star_imports = tuple(f"{prefix}.{name}" if star == name else star for star in module.star_imports)


def _only_folder_defining(project, importer: str, name: str, imported: Optional[str]) -> Optional[str]:
    """The folder holding the one project file ``name.py`` (or package ``name/``) that defines
    ``imported``, other than ``importer`` itself; None when no file or several do (module
    docstring, 5.). A dotted ``name`` (``core.evaluate``) is a file at the end of its folders
    (``lib/core/evaluate.py``, found from ``lib``: HRNet's ``_init_paths`` puts ``lib`` on the
    path through a helper function)."""
    key = ("only_folder_defining", name, imported, project.listing)
    if key in project.memo:
        found = project.memo[key]
    else:
        *packages, stem = name.split(".")
        folders = []
        for path in project.files_named(stem):
            if path.endswith("__init__.py"):
                package = os.path.dirname(path)
                if imported is None or _defines(project, path, imported) or os.path.isfile(
                        os.path.join(package, imported + ".py")):
                    folders.append((path, os.path.dirname(package)))
            elif imported is None or _defines(project, path, imported):
                folders.append((path, os.path.dirname(path)))
        if packages:
            folders = [(path, _above(folder, packages)) for path, folder in folders]
            folders = [(path, folder) for path, folder in folders if folder is not None]
        found = project.memo[key] = folders[0] if len(folders) == 1 else None
    if found is None or found[0] == os.path.abspath(importer):
        return None
    if _top_folder(project.root, found[0]) != _top_folder(project.root, importer):
        return None
    return found[1]


def _above(folder: str, packages: List[str]) -> Optional[str]:
    """The folder above ``folder``'s last folders when they are named ``packages`` (``lib`` for
    ``lib/core`` and ``["core"]``), else None."""
    for package in reversed(packages):
        folder, last = os.path.split(folder)
        if last != package:
            return None
    return folder


def _top_folder(root: str, path: str) -> Optional[str]:
    """The first folder of ``path`` below the root (None: a file of the root itself)."""
    parts = os.path.relpath(os.path.abspath(path), root).split(os.sep)
    return parts[0] if len(parts) > 1 else None


def _defines(project, path: str, name: str) -> bool:
    """``path`` binds ``name`` at module level: ``def``/``class``, an assignment, or an import."""
    text = project.current_text(path)
    if text is None:
        return False
    # Only the lines where the name occurs are read, with one pattern for every name (a pattern
    # per name cost more to compile than the search itself, hundreds of times a run).
    start = text.find(name)
    while start >= 0:
        line = text.rfind("\n", 0, start) + 1
        found = _MODULE_LEVEL_BINDING.match(text, line)
        if found is not None:
            defined, imported = found.group(1) or found.group(2) or found.group(3), found.group(4)
            if defined == name or (imported is not None and name in _WORD.findall(imported)):
                return True
        end = text.find("\n", start)
        if end < 0:
            return False
        start = text.find(name, end)
    return False


_STAR_IMPORT_BYTES = re.compile(STAR_IMPORT_PATTERN.encode())  # ``import *``, also ``import*``
_MODULE_LEVEL_BINDING = re.compile(r"(?:async\s+)?def\s+(\w+)|class\s+(\w+)|(\w+)\s*(?::[^=\n]*)?=(?!=)"
                                   r"|(?:from\s+\S+\s+)?import\s([^\n]*)")
_WORD = re.compile(r"\w+")
