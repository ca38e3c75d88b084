"""TPL206 legacy-launcher: ``--local_rank`` arguments and ``torch.distributed.launch``."""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.names import dotted_name_ast
from ..analysis.syntax import method_call, string_value
from ..analysis.walker import Rule

LEGACY_FLAGS = frozenset(("--local_rank", "--local-rank"))
LAUNCH = "torch.distributed.launch"


class LegacyLauncher(Rule):
    code = "TPL206"
    message = (
        "`--local_rank` belongs to the deprecated `torch.distributed.launch`; launch with "
        "`torchrun` and read `int(os.environ[\"LOCAL_RANK\"])`"
    )
    launch_message = (
        "`torch.distributed.launch` is deprecated; launch with `torchrun` and read "
        "`int(os.environ[\"LOCAL_RANK\"])`"
    )
    prefilter = (("launch", "rank"), r"local.rank|launch")

    @classmethod
    def ast_may_match(cls, unit) -> bool:
        """An ``add_argument`` call with a legacy flag, or a name that may be the launcher: the text
        prefilter's ``launch`` is mostly another word (``launch_kernel``, "launched"). The launcher
        reaches a name only through a ``.launch`` attribute, an import of it, or a module-level
        name bound to it, so a local alias (ANYTHING) is never enough on its own."""
        table = unit.table
        for node in unit.nodes:
            kind = type(node)
            if kind is ast.Call:
                func = node.func
                # string_value() reads plain string literals only: nothing else can be a flag.
                if type(func) is ast.Attribute and func.attr == "add_argument" and any(
                    type(a) is ast.Constant and a.value in LEGACY_FLAGS for a in node.args
                ):
                    return True
            elif kind is ast.Attribute:
                if node.attr == "launch" or _resolves_to_launch(table, node):
                    return True
            elif kind is ast.Name:
                if _resolves_to_launch(table, node):
                    return True
            elif kind is ast.alias and "launch" in node.name:
                return True
        return False

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] != "add_argument":
            return
        if any(string_value(arg.value) in LEGACY_FLAGS for arg in node.args if arg.keyword is None):
            if self.torch_has("torchrun"):
                self.report(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._check_launch(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._check_launch(node)

    def _check_launch(self, node: cst.BaseExpression) -> None:
        parent = self.ctx.parent()
        if isinstance(parent, (cst.ImportAlias, cst.ImportFrom, cst.Attribute)):
            return  # imports are not uses; an inner part of a longer dotted name is not the use
        if self.ctx.qualname(node) == LAUNCH or (self.ctx.qualname(node) or "").startswith(LAUNCH + "."):
            if self.torch_has("torchrun"):
                self.report(node, self.launch_message)


def _resolves_to_launch(table, node) -> bool:
    qual = table.resolve(dotted_name_ast(node) or "")
    return qual is not None and (qual == LAUNCH or qual.startswith(LAUNCH + "."))


RULE = LegacyLauncher
RULE.VALID = (
    """
import argparse, os
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--local-batch-size", type=int)
local_rank = int(os.environ["LOCAL_RANK"])
cmd = "python -m torch.distributed.launch train.py"      # a string is not a use
""",
)
RULE.INVALID = (
    """
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)  # TPL206
""",
    """
import torch.distributed.launch
import torch
torch.distributed.launch.main()  # TPL206
""",
)
RULE.WHY = """\
`torch.distributed.launch` is deprecated in favour of `torchrun`, which passes the rank in the
`LOCAL_RANK` environment variable instead of a `--local_rank` argument (newer launchers pass
`--local-rank`, so scripts that parse one spelling break), and adds elastic restarts and
failure handling."""
RULE.EXAMPLE = "parser.add_argument(\"--local_rank\", type=int)\n# python -m torch.distributed.launch --nproc_per_node=8 train.py"
RULE.USE_INSTEAD = "local_rank = int(os.environ[\"LOCAL_RANK\"])\n# torchrun --nproc_per_node=8 train.py"
RULE.FIX_NOTE = "No autofix: the launch command lives outside the file."
RULE.REFERENCES = ("https://pytorch.org/docs/stable/elastic/run.html",)
