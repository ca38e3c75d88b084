"""What the engine reports: findings, and fixes as text edits."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

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
    # None: the fix exists but its text was not computed (a check run only counts fixes).
    edits: Optional[Tuple[Edit, ...]]


class LazyFix:
    """A fix whose edits are computed on first use of ``edits``.

    Computing a fix renders the unit's whole tree, so doing it for every finding made fix generation
    quadratic in the findings of a unit (and flake8 never uses fixes). The engine hands these out;
    ``edits`` is ``()`` when the rule's replacement turns out to change nothing."""

    __slots__ = ("applicability", "description", "_compute", "_edits")

    def __init__(self, applicability: str, description: str, compute: Callable[[], Tuple[Edit, ...]]):
        self.applicability = applicability
        self.description = description
        self._compute = compute
        self._edits: Optional[Tuple[Edit, ...]] = None

    @property
    def edits(self) -> Tuple[Edit, ...]:
        if self._edits is None:
            try:
                self._edits = tuple(self._compute())
            except Exception:  # a fix that cannot be rendered is no fix; the finding stays
                self._edits = ()
            self._compute = None  # let the unit's tree go
        return self._edits

    def resolve(self) -> Optional[Fix]:
        """A plain (picklable) Fix with its edits, or None when it changes nothing."""
        edits = self.edits
        return Fix(self.applicability, self.description, edits) if edits else None

    def summary(self) -> Fix:
        """A plain Fix that only says the fix exists and how safe it is (edits not computed)."""
        return Fix(self.applicability, self.description, None)

    def __repr__(self) -> str:
        return f"LazyFix({self.applicability!r}, {self.description!r})"

    # Compared, hashed and pickled as the plain Fix it stands for (edits computed when needed).
    def __eq__(self, other) -> bool:
        if not isinstance(other, (Fix, LazyFix)):
            return NotImplemented
        return (self.applicability, self.description, self.edits) == (
            other.applicability, other.description, other.edits)

    def __hash__(self) -> int:
        return hash((self.applicability, self.description))

    def __reduce__(self):
        return (Fix, (self.applicability, self.description, self.edits))


@dataclass(frozen=True)
class Finding:
    code: str
    line: int  # 1-based
    col: int  # 0-based, as flake8 expects
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: "Optional[Fix | LazyFix]" = None
    # Why the finding's code runs every step when others call it: (path, line, note) per call on
    # the way from a step body (rules.md "A step body"); JSON and SARIF show them.
    related: Tuple[Tuple[str, int, str], ...] = ()

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


def analysis_failed(reason: str, line: int = 1, col: int = 0) -> Finding:
    """The one finding of a file that could not be analysed: at the error's position where one is
    known (a syntax error, a bad byte), else at line 1."""
    return Finding(ANALYSIS_FAILED, max(1, line), max(0, col), f"could not analyse this file: {reason}")


def materialise(finding: Finding, with_edits: bool) -> Finding:
    """The finding with a plain Fix: its edits computed (``with_edits``) or only its existence."""
    fix = finding.fix
    if not isinstance(fix, LazyFix):
        return finding
    plain = fix.resolve() if with_edits else fix.summary()
    return dataclasses.replace(finding, fix=plain)


def applicable(finding: Finding, unsafe: bool) -> bool:
    """Is the finding's fix applied: safe fixes always, unsafe ones with ``unsafe``."""
    if finding.fix is None:
        return False
    return finding.fix.applicability == SAFE or (unsafe and finding.fix.applicability == UNSAFE)
