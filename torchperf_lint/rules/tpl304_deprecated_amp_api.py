"""TPL304 deprecated-amp-api: ``torch.cuda.amp.autocast``/``GradScaler``/``custom_fwd``/``custom_bwd``
and ``torch.cpu.amp.*``."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

import libcst as cst

from ..catalog import SAFE
from ..findings import Edit, RuleFix
from ..analysis.fix_safety import exported_names
from ..analysis.syntax import code_of, dotted_name, has_splat, in_type_position, in_version_fallback, positional
from ..analysis.walker import Rule

_DEPRECATED = {
    "torch.cuda.amp.autocast": ("cuda", "autocast"),
    "torch.cuda.amp.GradScaler": ("cuda", "GradScaler"),
    "torch.cuda.amp.custom_fwd": ("cuda", "custom_fwd"),
    "torch.cuda.amp.custom_bwd": ("cuda", "custom_bwd"),
    "torch.cpu.amp.autocast": ("cpu", "autocast"),
    "torch.cpu.amp.GradScaler": ("cpu", "GradScaler"),
    "torch.cpu.amp.autocast_mode.autocast": ("cpu", "autocast"),
    "torch.cpu.amp.grad_scaler.GradScaler": ("cpu", "GradScaler"),
}
_MODULES = {"torch.cuda.amp": "cuda", "torch.cpu.amp": "cpu"}
# The names torch.amp has too: an import of these can move there, with the device at each use.
_MOVABLE = frozenset(("autocast", "GradScaler", "custom_fwd", "custom_bwd"))
# Decorators that take the device as the keyword ``device_type`` (their first parameter is the
# decorated function); autocast and GradScaler take it as their first positional argument.
_DECORATORS = frozenset(("custom_fwd", "custom_bwd"))


def _suggestion(name: str, device: str) -> str:
    if name in _DECORATORS:
        return f'torch.amp.{name}(device_type="{device}")'
    return f'torch.amp.{name}("{device}", ...)'


class DeprecatedAmpApi(Rule):
    code = "TPL304"
    message = "`{old}` is deprecated (FutureWarning since torch 2.4); use `{new}`"
    message_import = (
        "`from {module} import ...` imports deprecated AMP APIs (FutureWarning since torch 2.4); import "
        "from `torch.amp` and pass the device at each use: `autocast(\"{device}\", ...)`, "
        "`GradScaler(\"{device}\", ...)`, `@custom_fwd(device_type=\"{device}\")`"
    )
    # The literal first: Python's re finds it fast, and most units stop there.
    prefilter = (("cuda.amp", "cpu.amp", "amp.autocast", "amp.GradScaler", "amp.custom_"),
                 r"(?:cuda|cpu)\.amp\b|\bamp\.(?:autocast|GradScaler|custom_fwd|custom_bwd)\b")

    def __init__(self, ctx, sink):
        super().__init__(ctx, sink)
        # Imports reported at the end of the unit, with the bare-name uses seen after them.
        self._imports: List[Tuple[cst.ImportFrom, str, Dict[str, str], bool]] = []
        self._uses: Dict[str, List[Tuple[cst.Name, Optional[cst.CSTNode]]]] = {}

    # ---- dotted uses -------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        ctx = self.ctx
        qual = ctx.qualname(node)
        if qual not in _DEPRECATED:
            return
        if any(isinstance(n, (cst.Import, cst.ImportFrom)) for n in ctx.stack):
            return
        if in_type_position(ctx) or in_version_fallback(ctx):
            return
        device, name = _DEPRECATED[qual]
        if not self.torch_has(f"torch.amp.{name}"):
            return  # the project's target torch has no torch.amp spelling of it yet
        message = self.message.format(old=code_of(node), new=_suggestion(name, device))
        parent = ctx.parent()
        if isinstance(parent, cst.Call) and parent.func is node:
            self.report(parent, message, self._fix_dotted(parent, node, device, name))
        elif isinstance(parent, cst.Decorator) and name in _DECORATORS:
            self.report(node, message, self._fix_dotted(node, node, device, name))
        else:
            self.report(node, message)

    def _torch_name(self, node: cst.Attribute) -> Optional[str]:
        head = (dotted_name(node) or "").split(".")[0]
        if self.ctx.qualname(cst.Name(head)) == "torch":
            return head
        return next((n for n, q in self.ctx.table.bindings.items() if q == "torch"), None)

    def _fix_dotted(self, site: cst.CSTNode, func: cst.Attribute, device: str, name: str) -> Optional[RuleFix]:
        torch_name = self._torch_name(func)
        if torch_name is None:
            return None
        new_func = cst.parse_expression(f"{torch_name}.amp.{name}")
        if not isinstance(site, cst.Call):  # a bare decorator
            new_site = cst.Call(func=new_func, args=[_device_type_arg(device)])
            return RuleFix(SAFE, f"use {_suggestion(name, device)}", [(site, new_site)])
        if has_splat(site) or (positional(site) and name == "autocast"):
            return None  # positional arguments mean other things in torch.amp.autocast's signature
        new_call = _with_device(site, device, name).with_changes(func=new_func)
        return RuleFix(SAFE, f"use {_suggestion(name, device)}", [(site, new_call)])

    # ---- the ``from torch.cuda.amp import ...`` statement ----------------------------------------------
    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module) or ""
        root = next((m for m in _MODULES if module == m or module.startswith(m + ".")), None)
        if root is None:
            return
        if isinstance(node.names, cst.ImportStar):
            names: Dict[str, str] = {}
        else:
            names = {
                (a.asname.name.value if a.asname is not None else code_of(a.name)): code_of(a.name)
                for a in node.names
            }
            if root == "torch.cuda.amp" and not _MOVABLE & set(names.values()):
                return  # nothing deprecated that torch.amp replaces
        if in_version_fallback(self.ctx):
            return
        # The import moves whole: every name torch.amp would give must exist in the target torch
        # (``from torch.cuda.amp import autocast, GradScaler`` needs 2.3 for GradScaler).
        moving = (_MOVABLE & set(names.values())) if names else _MOVABLE
        if not all(self.torch_has(f"torch.amp.{name}") for name in moving):
            return
        self._imports.append((node, root, names, self.ctx.frame.node is None))

    def visit_Name(self, node: cst.Name) -> None:
        if not self._imports:
            return
        ctx = self.ctx
        parent = ctx.parent()
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if isinstance(parent, (cst.ImportAlias, cst.Arg)) and getattr(parent, "keyword", None) is node:
            return
        if isinstance(parent, cst.ImportAlias):
            return
        qual = ctx.qualname(node)
        if qual not in _DEPRECATED:
            return
        if isinstance(parent, cst.Call) and parent.func is node:
            site = parent
        elif isinstance(parent, cst.Decorator) and _DEPRECATED[qual][1] in _DECORATORS:
            site = node
        else:
            site = None
        self._uses.setdefault(node.value, []).append((node, site))

    def leave_Module(self, node: cst.Module) -> None:
        for statement, root, names, module_level in self._imports:
            device = _MODULES[root]
            message = self.message_import.format(module=code_of(statement.module), device=device)
            self.report(statement, message, self._fix_import(statement, root, names, device, module_level))

    def _fix_import(self, statement: cst.ImportFrom, root: str, names: Dict[str, str], device: str,
                    module_level: bool):
        if not names or code_of(statement.module) != root or not set(names.values()) <= _MOVABLE:
            return None
        if module_level and self._re_exported(statement, names):
            return None
        replacements = [(statement, statement.with_changes(module=cst.parse_expression("torch.amp")))]
        description = "import from torch.amp and pass the device at every use"
        if module_level:
            # The common layout: imported at the top, used in functions all over the file. Every
            # use in the file is rewritten in the same fix, or nothing is.
            edits = self._file_edits(names, device)
            if edits is None:
                return None
            return RuleFix(SAFE, description, replacements, edits)
        for local, imported in names.items():
            for _, site in self._uses.get(local, []):
                new_site = _rewrite_site(site, imported, device)
                if new_site is None:
                    return None
                replacements.append((site, new_site))
        return RuleFix(SAFE, description, replacements)

    def _re_exported(self, statement: cst.ImportFrom, names: Dict[str, str]) -> bool:
        """May other modules import these names from this one? Then the fix would hand them the
        torch.amp versions under the old names, whose signatures differ (``autocast()`` without a
        device fails): a name listed in ``__all__`` (or an ``__all__`` the linter cannot read), one
        imported as itself (``import autocast as autocast``, the re-export idiom), or one the
        module imports without using it anywhere (it is there for others)."""
        facts = self.ctx.facts
        exported = facts.derived("exported_names", exported_names)
        aliases = {} if isinstance(statement.names, cst.ImportStar) else {
            (a.asname.name.value if a.asname is not None else code_of(a.name)): a for a in statement.names}
        for local in names:
            alias = aliases.get(local)
            if exported is None or local in exported:
                return True
            if alias is not None and alias.asname is not None and code_of(alias.name) == local:
                return True
            if not facts.deprecated_amp_name_uses.get(local, 0) and not self._uses.get(local):
                return True
        return False

    def _file_edits(self, names: Dict[str, str], device: str) -> Optional[List[Edit]]:
        facts = self.ctx.facts
        lines = getattr(facts, "source_lines", None)
        if lines is None:
            return None
        edits: List[Edit] = []
        rebound = {name for name, _ in facts.assignments} | facts.defined_names
        for local, imported in names.items():
            if local in rebound:
                return None  # somewhere the name means something else (a parameter, a local)
            sites = facts.deprecated_amp_sites.get(local, [])
            if len(sites) != facts.deprecated_amp_name_uses.get(local, 0):
                return None  # a use that is not a call (``ctx = autocast``): it would lose its device
            if local in facts.deprecated_amp_in_fallback:
                return None  # a torch-version fallback branch uses it: that branch stays as written
            for site in sites:
                edit = _site_edit(site, imported, device, lines)
                if edit is None:
                    return None
                edits.append(edit)
        return edits


def _device_type_arg(device: str) -> cst.Arg:
    return cst.Arg(
        value=cst.SimpleString(f'"{device}"'), keyword=cst.Name("device_type"),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def _with_device(call: cst.Call, device: str, name: str = "autocast") -> cst.Call:
    """``autocast(...)`` -> ``autocast("cuda", ...)``; ``custom_fwd(...)`` -> ``custom_fwd(...,
    device_type="cuda")`` (after the positional arguments, before the keywords)."""
    if name in _DECORATORS:
        args = list(call.args)
        at = len(positional(call))
        new = _device_type_arg(device)
        if at < len(args):
            new = new.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        elif args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.insert(at, new)
        return call.with_changes(args=args)
    first = cst.Arg(cst.SimpleString(f'"{device}"'))
    if call.args:
        first = first.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[first, *call.args])


def _rewrite_site(site: Optional[cst.CSTNode], name: str, device: str) -> Optional[cst.CSTNode]:
    """A use of a name imported from torch.cuda.amp, rewritten for torch.amp; None if impossible."""
    if site is None:
        return None
    if isinstance(site, cst.Name):  # ``@custom_fwd``
        return cst.Call(func=site, args=[_device_type_arg(device)])
    if has_splat(site) or (positional(site) and name == "autocast"):
        return None
    return _with_device(site, device, name)


def _char_col(lines, lineno: int, byte_col: int) -> Optional[int]:
    """ast's UTF-8 byte column -> the character column the fixes use."""
    if not 0 < lineno <= len(lines):
        return None
    try:
        return len(lines[lineno - 1].encode("utf-8")[:byte_col].decode("utf-8"))
    except UnicodeDecodeError:
        return None


def _site_edit(site: ast.AST, name: str, device: str, lines) -> Optional[Edit]:
    """The text insertion that rewrites one use (an ast call or bare decorator) for torch.amp."""
    def insert(lineno: int, byte_col: int, text: str) -> Optional[Edit]:
        col = _char_col(lines, lineno, byte_col)
        return None if col is None else Edit(lineno, col, lineno, col, text)

    if isinstance(site, ast.Name):  # ``@custom_fwd``
        return insert(site.end_lineno, site.end_col_offset, f'(device_type="{device}")')
    if not isinstance(site, ast.Call):
        return None
    if any(isinstance(a, ast.Starred) for a in site.args) or any(k.arg is None for k in site.keywords):
        return None
    close = _char_col(lines, site.end_lineno, site.end_col_offset - 1)
    if close is None or lines[site.end_lineno - 1][close:close + 1] != ")":
        return None
    first_keyword = min(site.keywords, key=lambda k: (k.lineno, k.col_offset), default=None)
    if name in _DECORATORS:
        keyword = f'device_type="{device}"'
        if first_keyword is not None:
            return insert(first_keyword.lineno, first_keyword.col_offset, keyword + ", ")
        if site.args:
            last = site.args[-1]
            return insert(last.end_lineno, last.end_col_offset, ", " + keyword)
        return Edit(site.end_lineno, close, site.end_lineno, close, keyword)
    if site.args and name == "autocast":
        return None  # autocast's positional parameters differ between the two signatures
    starts = [(a.lineno, a.col_offset) for a in site.args]
    if first_keyword is not None:
        starts.append((first_keyword.lineno, first_keyword.col_offset))
    if starts:
        lineno, col = min(starts)
        return insert(lineno, col, f'"{device}", ')
    return Edit(site.end_lineno, close, site.end_lineno, close, f'"{device}"')


RULE = DeprecatedAmpApi
RULE.VALID = (
    """
import torch
from torch.amp import GradScaler, autocast
scaler = torch.amp.GradScaler("cuda")
with torch.autocast("cuda"), torch.amp.autocast("cuda"):
    pass
note = "torch.cuda.amp.autocast is deprecated"
def f(scaler: torch.cuda.amp.GradScaler):
    return isinstance(scaler, torch.cuda.amp.GradScaler)
""",
    """
import torch
from packaging import version
if version.parse(torch.__version__) >= version.parse("2.4"):
    scaler = torch.amp.GradScaler("cuda")
else:
    scaler = torch.cuda.amp.GradScaler()
s2 = torch.amp.GradScaler("cuda") if TORCH_2_4 else torch.cuda.amp.GradScaler()
try:
    from torch.amp import autocast
except ImportError:
    from torch.cuda.amp import autocast
if hasattr(torch, "amp"):
    ctx = torch.amp.autocast("cuda")
else:
    ctx = torch.cuda.amp.autocast()
""",
    """
import torch
try:
    from torch.amp import custom_fwd
except ImportError:
    from torch.cuda.amp import custom_fwd           # the fallback of an older torch
""",
)
RULE.INVALID = (
    """
import torch
def log_img(pl_module, batch):
    if hasattr(pl_module, "log_images"):               # asks about the module, not about torch
        with torch.cuda.amp.autocast():  # TPL304
            return pl_module.log_images(batch)
""",
    """
import torch
scaler = torch.cuda.amp.GradScaler()  # TPL304
with torch.cuda.amp.autocast(dtype=torch.float16):  # TPL304
    pass
with torch.cpu.amp.autocast():  # TPL304
    pass
""",
    """
import torch
from torch.cuda.amp import autocast, GradScaler  # TPL304
scaler = GradScaler()
with autocast():
    pass
""",
    """
from torch.cuda import amp
ctx = amp.autocast(enabled=True)  # TPL304
""",
    """
import torch
from torch.cuda.amp import autocast  # TPL304
ctx = autocast                       # not a call: reported at the import only, with no fix
""",
    """
import torch
from torch.cuda.amp import custom_fwd, custom_bwd  # TPL304
class Op(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)  # TPL304
    def forward(ctx, x):
        return x
""",
)
RULE.FIXES = (
    (
        "import torch\nscaler = torch.cuda.amp.GradScaler(enabled=True)\nwith torch.cuda.amp.autocast():\n    pass\n"
        "with torch.cpu.amp.autocast(dtype=torch.bfloat16):\n    pass\n",
        "import torch\nscaler = torch.amp.GradScaler(\"cuda\", enabled=True)\nwith torch.amp.autocast(\"cuda\"):\n    pass\n"
        "with torch.amp.autocast(\"cpu\", dtype=torch.bfloat16):\n    pass\n",
    ),
    (
        "import torch\nfrom torch.cuda.amp import autocast, GradScaler\nscaler = GradScaler()\n"
        "for x in xs:\n    with autocast(enabled=use_amp):\n        y = model(x)\n",
        "import torch\nfrom torch.amp import autocast, GradScaler\nscaler = GradScaler(\"cuda\")\n"
        "for x in xs:\n    with autocast(\"cuda\", enabled=use_amp):\n        y = model(x)\n",
    ),
    (  # the common layout: imported at the top, used inside functions
        "import torch\nfrom torch.cuda.amp import autocast, GradScaler, custom_fwd\n\n"
        "def train(model, x):\n    scaler = GradScaler()\n    with autocast():\n        return model(x)\n\n"
        "@custom_fwd\ndef op(x):\n    return x\n",
        "import torch\nfrom torch.amp import autocast, GradScaler, custom_fwd\n\n"
        "def train(model, x):\n    scaler = GradScaler(\"cuda\")\n    with autocast(\"cuda\"):\n        return model(x)\n\n"
        "@custom_fwd(device_type=\"cuda\")\ndef op(x):\n    return x\n",
    ),
)
RULE.WHY = """\
Since torch 2.4 `torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler`, the `torch.cuda.amp.custom_fwd`
/ `custom_bwd` decorators and `torch.cpu.amp.*` emit a
FutureWarning on every construction (in a training loop, every step) and are kept only as thin
wrappers of the device-generic `torch.amp` API, which takes the device type as its first argument.
They are slated for removal; code using them breaks on an upgrade."""
RULE.EXAMPLE = """\
scaler = torch.cuda.amp.GradScaler()
with torch.cuda.amp.autocast():
    loss = model(x)"""
RULE.USE_INSTEAD = """\
scaler = torch.amp.GradScaler("cuda")
with torch.amp.autocast("cuda"):
    loss = model(x)"""
RULE.FIX_NOTE = """\
Safe: `torch.cuda.amp.autocast(kw=...)` becomes `torch.amp.autocast("cuda", kw=...)` and
`GradScaler(...)` becomes `torch.amp.GradScaler("cuda", ...)`, with the same defaults (on a machine
without CUDA both scalers disable themselves with the same warning). The decorators become
`torch.amp.custom_fwd(device_type="cuda")` and `torch.amp.custom_bwd(device_type="cuda")`;
`custom_fwd`'s `cast_inputs=` keyword keeps working. Not offered for `autocast` with positional
arguments (`torch.cuda.amp.autocast(True)` is `enabled=True`, `torch.amp.autocast("cuda", True)`
would be `dtype=True`) or with `*args`/`**kwargs`.

For `from torch.cuda.amp import autocast, GradScaler` the fix rewrites the import to
`from torch.amp import ...` and every use in the file, in every function, in one go
(`autocast()` -> `autocast("cuda")`, `@custom_fwd` -> `@custom_fwd(device_type="cuda")`): `autocast()`
needs its device. It is offered only when every use is a call or a decorator it can rewrite; a
use such as `ctx = autocast` leaves the finding without a fix. In a torch-version fallback branch
(`try: from torch.amp import ... except ImportError: from torch.cuda.amp import ...`) nothing is
reported or changed, and an import whose name such a branch uses is reported without a fix.

Not offered for a module that may re-export the names it imports, because the modules that import
them from it would get the `torch.amp` versions under the old names and fail (`autocast()` without
a device): a name listed in `__all__` (or an `__all__` built in a way the linter cannot read), a
name imported as itself (`from torch.cuda.amp import autocast as autocast`, the re-export idiom),
or a name the module imports but never uses. Fixes inside f-strings are written with the quotes
the running Python accepts there (before 3.12, `'cuda'` inside `f"..."`), or not offered."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/amp.html",
    "https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler",
)
