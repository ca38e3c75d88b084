"""The engine: decide what can match, parse that once with libcst, walk once, collect findings.

The flake8 plugin and the CLI are thin layers over ``lint_source``. Nothing here raises for bad
input: a file that cannot be analysed gets one TPL900 finding that names the reason.
"""

from __future__ import annotations

import ast
import sys
from typing import Collection, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .catalog import CATALOG
from .edits import to_fix
from .facts import ModuleFacts
from .findings import Finding, analysis_failed
from .line_length import DEFAULT_LINE_LENGTH
from .names import ImportTable, text_mentions_torch_import
from .rules import RULES
from .segments import Unit, split_units
from .walker import Context, walk

# Bigger files are almost always generated code; libcst would take minutes on them.
MAX_FILE_BYTES = 8 * 1024 * 1024
# libcst's visitors recurse several Python frames per tree level, so a 190-deep call or a long
# ``a + b + c + ...`` chain exceeds Python's default limit of 1000. Raised for the analysis only.
RECURSION_LIMIT = 12000
# Deeper units (in ast levels) are not given to libcst, whose native parser can crash on them.
MAX_NESTING = 1000


def default_codes() -> List[str]:
    return [code for code, entry in CATALOG.items() if entry.default_on]


def lint_source(
    source: str,
    filename: str = "<string>",
    tree: Optional[ast.Module] = None,
    codes: Optional[Collection[str]] = None,
    lines: Optional[Sequence[str]] = None,
    max_line_length: int = DEFAULT_LINE_LENGTH,
) -> List[Finding]:
    """All findings of the rules in ``codes`` (default: the rules on by default) for one file.
    ``max_line_length``: the project's line length, which fixes do not push a line past."""
    try:
        return _lint(source, tree, set(default_codes() if codes is None else codes), lines, max_line_length)
    except RecursionError:
        return [analysis_failed("the code is nested too deeply for the parser (recursion limit)")]
    except MemoryError:
        return [analysis_failed("out of memory while parsing")]
    except Exception as error:  # never abort the host (flake8, pre-commit, CI) for one file
        return [analysis_failed(f"internal error {type(error).__name__}: {error} (please report it)")]


def _lint(source: str, tree, codes, lines, max_line_length) -> List[Finding]:
    if not text_mentions_torch_import(source):
        return []  # the common case for non-torch files: one substring search
    if len(source) > MAX_FILE_BYTES:
        return [analysis_failed(f"file larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")]
    if "\x00" in source:
        return [analysis_failed("the file contains NUL bytes")]
    if tree is None:
        # At Python's own recursion limit: ast raises RecursionError on absurd nesting instead of
        # overflowing the C stack, which it could do under the raised limit below.
        try:
            tree = ast.parse(source)
        except SyntaxError as error:
            return [analysis_failed(f"syntax error at line {error.lineno}: {error.msg}")]
    table = ImportTable.from_ast(tree)
    if not table.imports_torch:
        return []
    # A rule whose unit prefilter fails on the whole file cannot match any of its units.
    rule_classes = [
        RULES[c] for c in sorted(codes)
        if c in RULES and RULES[c].file_may_match(source) and RULES[c].may_match(source)
    ]
    if not rule_classes:
        return []
    if lines is None:
        lines = source.splitlines(keepends=True)
    facts = ModuleFacts(tree, table)
    facts.source_lines = lines  # for fixes that edit other units of the file (TPL304's call sites)
    findings: List[Finding] = []
    failures: List[str] = []
    aliases = _aliases(table)
    old_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        _lint_units(tree, lines, rule_classes, table, facts, aliases, findings, failures, max_line_length)
    finally:
        sys.setrecursionlimit(old_limit)
    if failures:
        findings.append(analysis_failed("; ".join(failures[:3])))
    return _dedupe(findings)


def _lint_units(tree, lines, rule_classes, table, facts, aliases, findings, failures, max_line_length) -> None:
    for unit in split_units(tree):
        text = unit.text(lines)
        if aliases:
            # ``from torch.nn import DataParallel as DP``: a unit that says ``DP(m)`` must pass the
            # prefilters that look for ``DataParallel``.
            text += "\n" + " ".join(full for local, full in aliases if local in text)
        candidates = [rule for rule in rule_classes if rule.may_match(text)]
        if candidates:
            depth = unit.nesting_depth()
            if depth > MAX_NESTING:
                # libcst's native parser overflows the C stack (a crash, not an exception) on
                # nesting a few thousand deep; ast has already measured it for us.
                failures.append(f"lines {unit.start}-{unit.end} are nested {depth} levels deep "
                                f"(more than {MAX_NESTING}, too deep for libcst)")
                continue
            findings.extend(_lint_unit(unit, lines, candidates, table, facts, failures, max_line_length))


def _aliases(table: ImportTable) -> List[Tuple[str, str]]:
    """Module-level names that do not spell the torch object they stand for, with its full name."""
    return [
        (local, full)
        for local, full in table.bindings.items()
        if full is not None and full.startswith("torch") and full.rsplit(".", 1)[-1] != local
    ]


def _lint_unit(unit: Unit, lines, rule_classes, table, facts, failures: List[str],
               max_line_length: int) -> List[Finding]:
    code, line_offset = unit.parse_source(lines)
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError as error:
        failures.append(f"libcst cannot parse lines {unit.start}-{unit.end}: {str(error).splitlines()[0]}")
        return []
    raw: list = []
    ctx = Context(table, facts)
    rules = [rule_class(ctx, raw) for rule_class in rule_classes]
    walk(module, ctx, rules)
    if not raw:
        return []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    result = []
    for rule_code, node, message, rule_fix in raw:
        where = positions[node]
        fix = None
        if rule_fix is not None:
            fix = to_fix(module, code, line_offset, rule_fix, positions, max_line_length)
        result.append(
            Finding(
                rule_code,
                where.start.line + line_offset,
                where.start.column,
                message,
                where.end.line + line_offset,
                where.end.column,
                fix,
            )
        )
    return result


def _dedupe(findings: List[Finding]) -> List[Finding]:
    """``x.cpu().numpy()`` is one sync site: one finding per code and position."""
    seen = set()
    unique = []
    for finding in sorted(findings, key=lambda f: (f.line, f.col, f.code)):
        key = (finding.code, finding.line, finding.col)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique
