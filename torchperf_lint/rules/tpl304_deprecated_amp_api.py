"""TPL304 deprecated-amp-api: ``torch.cuda.amp.autocast``/``GradScaler`` and ``torch.cpu.amp.*``."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from ..catalog import SAFE
from ..findings import RuleFix
from ..syntax import code_of, dotted_name, has_splat, in_type_position, in_version_fallback, positional
from ..walker import Rule

_DEPRECATED = {
    "torch.cuda.amp.autocast": ("cuda", "autocast"),
    "torch.cuda.amp.GradScaler": ("cuda", "GradScaler"),
    "torch.cpu.amp.autocast": ("cpu", "autocast"),
    "torch.cpu.amp.GradScaler": ("cpu", "GradScaler"),
    "torch.cpu.amp.autocast_mode.autocast": ("cpu", "autocast"),
    "torch.cpu.amp.grad_scaler.GradScaler": ("cpu", "GradScaler"),
}
_MODULES = {"torch.cuda.amp": "cuda", "torch.cpu.amp": "cpu"}


class DeprecatedAmpApi(Rule):
    code = "TPL304"
    message = (
        "`{old}` is deprecated (FutureWarning since torch 2.4); use `torch.amp.{name}(\"{device}\", ...)`"
    )
    message_import = (
        "`from {module} import ...` imports deprecated AMP APIs (FutureWarning since torch 2.4); import "
        "from `torch.amp` and pass the device: `autocast(\"{device}\", ...)`, `GradScaler(\"{device}\", ...)`"
    )
    # The literal first: Python's re finds it fast, and most units stop there.
    prefilter = (r"amp", r"(?:cuda|cpu)\.amp\b|\bamp\.(?:autocast|GradScaler)\b")

    def __init__(self, ctx, sink):
        super().__init__(ctx, sink)
        # Imports reported at the end of the unit, with the bare-name uses seen after them.
        self._imports: List[Tuple[cst.ImportFrom, str, Dict[str, str], bool]] = []
        self._uses: Dict[str, List[Tuple[cst.Name, Optional[cst.Call]]]] = {}

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
        message = self.message.format(old=code_of(node), name=name, device=device)
        parent = ctx.parent()
        if isinstance(parent, cst.Call) and parent.func is node:
            self.report(parent, message, self._fix_dotted(parent, node, device, name))
        else:
            self.report(node, message)

    def _torch_name(self, node: cst.Attribute) -> Optional[str]:
        head = (dotted_name(node) or "").split(".")[0]
        if self.ctx.qualname(cst.Name(head)) == "torch":
            return head
        return next((n for n, q in self.ctx.table.bindings.items() if q == "torch"), None)

    def _fix_dotted(self, call: cst.Call, func: cst.Attribute, device: str, name: str) -> Optional[RuleFix]:
        torch_name = self._torch_name(func)
        if torch_name is None or positional(call) or has_splat(call):
            return None  # positional arguments mean other things in torch.amp's signatures
        new_call = _with_device(call, device).with_changes(func=cst.parse_expression(f"{torch_name}.amp.{name}"))
        return RuleFix(SAFE, f"use torch.amp.{name}(\"{device}\", ...)", [(call, new_call)])

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
            if root == "torch.cuda.amp" and not {"autocast", "GradScaler"} & set(names.values()):
                return  # custom_fwd and friends are not this rule's
        if in_version_fallback(self.ctx):
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
        call = parent if isinstance(parent, cst.Call) and parent.func is node else None
        self._uses.setdefault(node.value, []).append((node, call))

    def leave_Module(self, node: cst.Module) -> None:
        for statement, root, names, module_level in self._imports:
            device = _MODULES[root]
            message = self.message_import.format(module=code_of(statement.module), device=device)
            self.report(statement, message, self._fix_import(statement, root, names, device, module_level))

    def _fix_import(self, statement: cst.ImportFrom, root: str, names: Dict[str, str], device: str,
                    module_level: bool):
        if not names or code_of(statement.module) != root or not set(names.values()) <= {"autocast", "GradScaler"}:
            return None
        replacements = [(statement, statement.with_changes(module=cst.parse_expression("torch.amp")))]
        seen = self.ctx.facts.deprecated_amp_name_uses
        for local in names:
            uses = self._uses.get(local, [])
            if any(call is None or positional(call) or has_splat(call) for _, call in uses):
                return None
            if module_level and seen.get(local, 0) != len(uses):
                return None  # uses in other functions of the file: they would lose their device
            replacements.extend((call, _with_device(call, device)) for _, call in uses)
        return RuleFix(SAFE, "import from torch.amp and pass the device", replacements)


def _with_device(call: cst.Call, device: str) -> cst.Call:
    first = cst.Arg(cst.SimpleString(f'"{device}"'))
    if call.args:
        first = first.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[first, *call.args])


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
from torch.cuda.amp import custom_fwd               # not autocast/GradScaler
""",
)
RULE.INVALID = (
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
)
RULE.WHY = """\
Since torch 2.4 `torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler` and `torch.cpu.amp.*` emit a
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
Safe: `torch.cuda.amp.X(kw=...)` becomes `torch.amp.X("cuda", kw=...)` with the same defaults. Not
offered with positional arguments (their meaning differs between the two signatures). For
`from torch.cuda.amp import autocast` the fix rewrites the import and every call site (`autocast()`
needs its device); it is offered only when all of the file's uses are calls it can rewrite in the
same function or module-level block. In a torch-version fallback branch nothing is reported."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/amp.html",
    "https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler",
)
