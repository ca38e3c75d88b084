"""What the engine reports: findings, and fixes as text edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Tuple

from .catalog import SAFE, UNSAFE

if TYPE_CHECKING:  # the CLI reads cached findings without importing libcst
    import libcst as cst

ANALYSIS_FAILED = "TPL900"


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, col) to (end_line, end_col) with ``content``.
    Lines are 1-based, columns 0-based, as in the findings."""

    line: int
    col: int
    end_line: int
    end_col: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: str  # catalog.SAFE or catalog.UNSAFE
    description: str
    edits: Tuple[Edit, ...]


@dataclass(frozen=True)
class Finding:
    code: str
    line: int  # 1-based
    col: int  # 0-based, as flake8 expects
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional[Fix] = None

    @property
    def text(self) -> str:
        return f"{self.code} {self.message}"


@dataclass
class RuleFix:
    """What a rule proposes: replace nodes of the unit's tree (applied by the engine)."""

    applicability: str
    description: str
    replacements: List[Tuple["cst.CSTNode", "cst.CSTNode"]] = field(default_factory=list)
    # Text edits in file coordinates outside the unit (TPL304 rewrites call sites in every
    # function of the file together with the module-level import they depend on).
    file_edits: List[Edit] = field(default_factory=list)


def analysis_failed(reason: str) -> Finding:
    """The one finding of a file that could not be analysed (reported at line 1)."""
    return Finding(ANALYSIS_FAILED, 1, 0, f"could not analyse this file: {reason}")


def applicable(finding: Finding, unsafe: bool) -> bool:
    """Is the finding's fix applied: safe fixes always, unsafe ones with ``unsafe``."""
    if finding.fix is None:
        return False
    return finding.fix.applicability == SAFE or (unsafe and finding.fix.applicability == UNSAFE)
