"""The engine: decide what can match, parse that once with libcst, walk once, collect findings.

The flake8 plugin and the CLI are thin layers over ``lint_source``. Nothing here raises for bad
input: a file that cannot be analysed gets one TPL900 finding that names the reason.
"""

from __future__ import annotations

import ast
import gc
import sys
from bisect import bisect_left, bisect_right
from typing import Collection, Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .catalog import CATALOG
from .findings import Edit, Finding, Fix, LazyFix, RuleFix, analysis_failed
from .rules import RULES
from .fixing.edits import DEFAULT_LINE_LENGTH, pushes_past, to_fix
from .fixing import fstrings
from .fixing.fixer import fix_loop
from .fixing.lines import newline_of, normalise_newlines, split_lines
from .analysis import edit_reuse
from .analysis.ast_scan import UnitAst
from .analysis.dead_code import dead_line_ranges, in_dead_block
from .analysis.facts import ModuleFacts
from .analysis.names import ImportTable, text_has_star_import, text_mentions_torch_import
from .analysis.project_index import parsed_module, record_summary, star_imported_bindings
from .analysis.segments import Unit, split_units
from .analysis.step_bodies import dependency_stamps, step_bodies_for
from .analysis.walker import Context, walk

# Bigger files are almost always generated code; libcst would take minutes on them.
MAX_FILE_BYTES = 8 * 1024 * 1024
# libcst's visitors recurse several Python frames per tree level, so a 190-deep call or a long
# ``a + b + c + ...`` chain exceeds Python's default limit of 1000. Raised for the analysis only.
RECURSION_LIMIT = 12000
# Deeper units (in ast levels) are not given to libcst, whose native parser can crash on them.
MAX_NESTING = 1000
# Nor units with a longer ``and``/``or`` chain: ast keeps its operands flat, libcst's native parser
# nests them and dies of a stack overflow (a segfault, not an exception) at about 7,000 operands
# (libcst 1.9, 8 MB stack; benchmarks/libcst_limits.py measures it). Comparison chains, literals,
# calls and implicit string concatenation stay flat in libcst and parse at 100,000+ items.
MAX_WIDTH = 2500


def _skip_validation(node) -> None:
    pass


def parse_unvalidated(code: str) -> cst.Module:
    """``libcst.parse_module`` without re-validating every node the native parser builds.

    libcst's dataclass nodes check their fields in ``__post_init__`` (CSTNode._validate), which is
    about a quarter of parsing; a tree fresh from the parser is valid by construction (libcst's
    own comment says as much). Validation is off only while the parser builds the tree: nodes
    that fixes make later are checked as usual (a thread building nodes during the parse would
    skip their checks too, which changes no result: validation only rejects malformed nodes)."""
    validate = cst.CSTNode.__dict__.get("__post_init__")
    if validate is None:  # a libcst that validates elsewhere: leave it alone
        return cst.parse_module(code)
    cst.CSTNode.__post_init__ = _skip_validation
    try:
        return cst.parse_module(code)
    finally:
        cst.CSTNode.__post_init__ = validate


def default_codes() -> List[str]:
    return [code for code, entry in CATALOG.items() if entry.default_on]


def lint_source(
    source: str,
    filename: str = "<string>",
    tree: Optional[ast.Module] = None,
    codes: Optional[Collection[str]] = None,
    lines: Optional[Sequence[str]] = None,
    max_line_length: int = DEFAULT_LINE_LENGTH,
    target_torch: Optional[Tuple[int, int]] = None,
) -> List[Finding]:
    """All findings of the rules in ``codes`` (default: the rules on by default) for one file.
    ``max_line_length``: the project's line length, which fixes do not push a line past.
    ``target_torch``: the oldest torch the project must run on ((major, minor); None: no limit):
    a finding whose remedy needs a newer torch is not reported (catalog.API_FLOORS)."""
    try:
        if source.startswith("\ufeff"):
            # A BOM the caller left in (flake8 and the CLI take it out): Python's parser rejects
            # it in a str. Line numbers are unchanged; line 1's columns count from after it.
            source, lines = source[1:], None
        if "\r" in source:
            # \r\n and \r ends as \n (flake8 hands its plugins such lines): same line numbers and
            # columns, and every line-anchored regex sees the lines Python sees. Fixes insert the
            # file's own line end.
            newline = newline_of(source)
            source, lines = normalise_newlines(source), None
        else:
            newline = "\n"
        with _collector_paused():
            return _lint(source, tree, set(default_codes() if codes is None else codes), lines, newline,
                         max_line_length, target_torch, filename)
    except RecursionError:
        return [analysis_failed("the code is nested too deeply for the parser (recursion limit)")]
    except MemoryError:
        return [analysis_failed("out of memory while parsing")]
    except Exception as error:  # never abort the host (flake8, pre-commit, CI) for one file
        return [analysis_failed(f"internal error {type(error).__name__}: {error} (please report it)")]


def _lint(source: str, tree, codes, lines, newline: str = "\n",
          max_line_length: int = DEFAULT_LINE_LENGTH, target_torch=None,
          filename: str = "<string>") -> List[Finding]:
    _DEPENDENCIES.pop(filename, None)
    torch_file = text_mentions_torch_import(source)
    star_bound: Dict[str, str] = {}
    if not torch_file and filename != "<string>" and text_has_star_import(source) and _may_use_torch(source):
        star_bound = star_imported_bindings(filename)  # torch through ``from .utils import *``
        torch_file = any(b == "torch" or b.startswith("torch.") for b in star_bound.values())
    if not torch_file:
        return []  # the common case for non-torch files: a substring search or two (rules.md: a file
        # that never imports torch gets no finding at all)
    if len(source) > MAX_FILE_BYTES:
        return [analysis_failed(f"file larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")]
    nul = source.find("\x00")
    if nul != -1:
        line = source.count("\n", 0, nul) + 1
        return [analysis_failed("the file contains NUL bytes", line, nul - (source.rfind("\n", 0, nul) + 1))]
    parsed = None
    if tree is None:
        parsed = parsed_module(filename, source)  # the project index may have parsed this text already
        if parsed is not None:
            tree = parsed[0]
    if tree is None:
        # At Python's own recursion limit: ast raises RecursionError on absurd nesting instead of
        # overflowing the C stack, which it could do under the raised limit below.
        memo = edit_reuse.current()  # the language server's memo of the document's last lint
        try:
            tree = memo.tree_for(source) if memo is not None else ast.parse(source)
        except SyntaxError as error:
            return [analysis_failed(f"syntax error at line {error.lineno}: {error.msg}",
                                    error.lineno or 1, (error.offset or 1) - 1)]
    table = parsed[1] if parsed is not None and parsed[1] is not None else ImportTable.from_ast(tree)
    if not star_bound and filename != "<string>" and text_has_star_import(source):
        # a torch file whose own imports do not bind ``torch`` itself (pytorch-YOLOv4's ``import
        # torch.nn as nn`` beside ``from tool.torch_utils import *``, then ``torch.linspace(...)``),
        # or numpy (KGAT's ``np`` from ``from utils.log_helper import *``)
        star_bound = star_imported_bindings(filename)
    if star_bound:
        table = table.with_star_bindings(star_bound)
        parsed = (parsed[0], table, None) if parsed is not None else None  # (step loops read the new table)
    if not table.imports_torch:
        return []
    # Module-level conditions (TPL104's pinned loader) on the whole file. The unit prefilters run
    # on the units only: testing the file first as well cost more than it saved (every torch file
    # of any size passes most of them), and a unit's text also holds the torch names its aliases
    # stand for (``DP`` -> ``torch.nn.DataParallel``), which the file's text may not spell out.
    rule_classes = [RULES[c] for c in sorted(codes) if c in RULES and RULES[c].file_may_match(source)]
    if not rule_classes:
        return []
    if lines is None:
        lines = split_lines(source)
    facts = ModuleFacts(tree, table)
    if parsed is not None and parsed[2] is not None:
        facts.__dict__["_steps"] = parsed[2]  # the step loops the index's summary of this tree built
    facts.source_lines = lines  # for fixes that edit other units of the file (TPL304's call sites)
    facts.target_torch = target_torch
    # The module's step loops only if its summary must be made (not when the index has it).
    bodies = _StepBodiesOnDemand(filename, source, tree, table, facts)
    findings: List[Finding] = []
    failures: List[Tuple[str, int, int]] = []  # (reason, line, col)
    aliases = _aliases(table)
    with _recursion_limit():
        _lint_units(tree, lines, rule_classes, table, facts, aliases, findings, failures, newline, max_line_length,
                    bodies)
    if bodies.made is None:
        record_summary(filename, source, tree, table, lambda: facts.steps)
    _DEPENDENCIES[filename] = dependency_stamps(bodies.made)
    dead = dead_line_ranges(source, tree)  # ``if False:`` debug blocks never run (R47.1)
    findings = [f for f in findings if not _run_by_framework(f, facts)
                and not (dead and f.code in _EVERY_ITERATION and in_dead_block(f.line, dead))]
    if failures:
        _, line, col = failures[0]
        findings.append(analysis_failed("; ".join(reason for reason, _, _ in failures[:3]), line, col))
    return _dedupe(findings)


# Texts a module that gets torch through a star import shows where a rule could match (a package's
# ``__init__.py`` of star imports alone shows none, and is not summarised to find out).
_TORCH_USE_TEXTS = ("torch.", ".cuda(", ".item()", ".backward(", ".cpu()", ".to(")


def _may_use_torch(source: str) -> bool:
    return any(text in source for text in _TORCH_USE_TEXTS)


class _StepBodiesOnDemand:
    """The file's step bodies (step_bodies_for), made when the first unit that could hold a rule's
    finding asks for them: most files of a library have none (in torch's nn/ and utils/, 135 of
    241), and for those the walk over the modules that import the file was most of the project
    index's cost. ``facts.step_bodies`` is set when they are made; every reader of it runs on a
    unit that asked first (the walk, the rules, ``_run_by_framework`` on its findings)."""

    def __init__(self, filename: str, source: str, tree, table, facts):
        self.filename, self.source, self.tree, self.table, self.facts = filename, source, tree, table, facts
        self.made = None
        self.lines: List[int] = []  # the ``def`` lines of the step bodies, sorted

    def make(self):
        if self.made is None:
            facts = self.facts
            facts.step_bodies = self.made = step_bodies_for(self.filename, self.source, self.tree, self.table,
                                                            lambda: facts.steps)
            self.lines = sorted(self.made.body_lines())
            self._parameter_loaders()
        return self.made

    def _parameter_loaders(self) -> None:
        """The parameters this module's loops iterate (the index's "iterp") that every visible call,
        in any file, hands a ``DataLoader``: loaders of the module."""
        found = [param for qualname, record in self.made.module.functions.items()
                 for param in record.get("iterp", ()) if self.made.loader_parameter(qualname, param)]
        if found:
            self.facts.steps.add_loaders(found)


class _collector_paused:
    """Python's cyclic garbage collector off for the duration (restored as it was).

    Parsing a file builds hundreds of thousands of ast and libcst nodes at once, and the collector,
    triggered every 700 allocations, would walk them again and again while they are alive: a fifth
    of the CLI's time. The analysis makes no reference cycles (a test checks it), so its trees are
    freed by reference counting as soon as the file is done, collector or not."""

    def __enter__(self):
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was_enabled:
            gc.enable()


class _recursion_limit:
    """Python's recursion limit raised to RECURSION_LIMIT (never lowered) for the duration."""

    def __enter__(self):
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.old, RECURSION_LIMIT))

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.old)


def _lint_units(tree, lines, rule_classes, table, facts, aliases, findings, failures, newline="\n",
                max_line_length: int = DEFAULT_LINE_LENGTH, bodies: Optional[_StepBodiesOnDemand] = None) -> None:
    for unit in split_units(tree):
        plain = unit.text(lines)
        if bodies is not None and bodies.made is None:
            # Are the step bodies needed at all? Only for a unit that passes some prefilter when
            # read as holding one (below). The prefilters only look for text (an ``in`` test, a
            # regex search), so a unit that fails them all with the loop words and more aliases
            # added fails them without too: it is skipped before the bodies are made.
            text = _with_aliases(plain + "\nfor while", aliases)
            if not any(rule.may_match_in_step_body(text) for rule in rule_classes):
                continue
            bodies.make()
        body_lines = bodies.lines if bodies is not None else ()
        # A unit that holds a step body (a framework step method, a per-step helper) is read by the
        # rules of a step loop as if it held one: their loop-word prefilters stand for "a step loop
        # may be here", which is true of it without a loop.
        holds_body = bool(body_lines) and _holds_line(body_lines, unit.start, unit.end)
        if holds_body:
            text = _with_aliases(plain + "\nfor while", aliases)
            candidates = [rule for rule in rule_classes if rule.may_match_in_step_body(text)]
        else:
            text = _with_aliases(plain, aliases)
            candidates = [rule for rule in rule_classes if rule.may_match(text)]
        if not candidates:
            continue
        # The ast prefilters, before the unit's survey: most units stop here.
        unit_ast = UnitAst(unit.nodes, table)
        if any(rule.needs_loop or rule.needs_step_loop for rule in candidates):
            if holds_body:
                candidates = [rule for rule in candidates
                              if unit_ast.has_loop or rule.needs_step_loop or not rule.needs_loop]
            elif not unit_ast.has_loop:
                # Their prefilter's ``for``/``while`` was a word in a docstring or comment (about
                # half the bytes parsed on library code): no loop, nothing they can report.
                candidates = [rule for rule in candidates if not (rule.needs_loop or rule.needs_step_loop)]
            elif any(rule.needs_step_loop for rule in candidates) and not facts.steps.may_hold_step_loop(unit.nodes):
                # Loops, but none that runs every step (report, conversion, library loops): the
                # largest share of what library code would otherwise give libcst.
                candidates = [rule for rule in candidates if not rule.needs_step_loop]
        candidates = [rule for rule in candidates if rule.ast_may_match(unit_ast)]
        if not candidates:
            continue
        depth, width, _ = unit.survey()
        if depth > MAX_NESTING or width > MAX_WIDTH:
            depth, deep_line, width, wide_line = unit.shape()  # the lines, for the message
        if depth > MAX_NESTING:
            # libcst's native parser overflows the C stack (a crash, not an exception) on
            # nesting a few thousand deep; ast has already measured it for us.
            failures.append((f"lines {unit.start}-{unit.end} are nested {depth} levels deep "
                             f"(more than {MAX_NESTING}, too deep for libcst)", deep_line, 0))
            continue
        if width > MAX_WIDTH:
            failures.append((f"line {wide_line} holds an `and`/`or` chain of {width} operands "
                             f"(more than {MAX_WIDTH}, too long for libcst)", wide_line, 0))
            continue
        findings.extend(_lint_unit(unit, lines, candidates, table, facts, failures, newline, max_line_length))


def _with_aliases(text: str, aliases) -> str:
    """``from torch.nn import DataParallel as DP``: a unit that says ``DP(m)`` must pass the
    prefilters that look for ``DataParallel``."""
    if aliases:
        text += "\n" + " ".join(full for local, full in aliases if local in text)
    return text


def _holds_line(sorted_lines: Sequence[int], start: int, end: int) -> bool:
    index = bisect_left(sorted_lines, start)
    return index < len(sorted_lines) and sorted_lines[index] <= end


# Codes a framework answers when it runs AMP, DDP or accumulation for the user (rules.md "A step body").
_FRAMEWORK_ANSWERS = frozenset(("TPL301", "TPL302", "TPL207"))
# Rules whose findings say the code costs something every iteration (a wait, a re-allocation): in a
# block that never runs that is false (R47.1). The others describe the code as written (a CPU
# factory moved at once), which their fixes improve whether it runs or not.
_EVERY_ITERATION = frozenset(("TPL102", "TPL103"))
# The project facts each linted file's findings read: (path, size, mtime_ns, digest) of the other
# modules, for the finding cache (frontends/cache.py), by the name the file was linted under.
_DEPENDENCIES: Dict[str, frozenset] = {}


def dependencies_of(filename: str) -> frozenset:
    """The other modules whose summaries the last lint of ``filename`` read."""
    return _DEPENDENCIES.get(filename, frozenset())


def _run_by_framework(finding: Finding, facts) -> bool:
    """TPL301/302/207 in code a framework runs with the backward and step around it (Lightning and
    HF step bodies; not an Ignite Engine function, which trains by itself), or in a module that tells a
    framework to run AMP, DDP or accumulation (``Accelerator(mixed_precision="fp16")``)."""
    if finding.code not in _FRAMEWORK_ANSWERS:
        return False
    bodies = facts.step_bodies
    if bodies.module.data.get("settings"):
        return True
    return bodies.framework_trains_line(finding.line)


def _aliases(table: ImportTable) -> List[Tuple[str, str]]:
    """Module-level names that do not spell the torch object they stand for, with its full name."""
    return [
        (local, full)
        for local, full in table.bindings.items()
        if full is not None and full.startswith("torch") and full.rsplit(".", 1)[-1] != local
    ]


def _strip_indent_form_feeds(code: str, line_offset: int) -> Tuple[str, Dict[int, int]]:
    """The code without the form feeds in its lines' indentation, and per file line how many went.

    Python's tokenizer resets the indentation count at a form feed (``^L`` page breaks): what
    stands before the last one in the indentation, spaces and tabs included, counts for nothing.
    libcst's tokenizer rejects form feeds, so the indentation up to and including the last one
    goes. Columns after the indentation move left by that count, which positions add back."""
    shifted: Dict[int, int] = {}
    out = []
    for number, line in enumerate(split_lines(code), start=1):
        indent = len(line) - len(line.lstrip(" \t\x0c"))
        removed = line.rfind("\x0c", 0, indent) + 1
        if removed:
            shifted[number + line_offset] = removed
            line = line[removed:]
        out.append(line)
    return "".join(out), shifted


def _expand_indent_tabs(code: str, line_offset: int, shifted: Dict[int, int]):
    """(the code with the tabs of its lines' indentation expanded to Python's tab stops of eight,
    the per-line column shifts with those of ``shifted``), or None when no indentation holds a tab.

    Python measures indentation with tab stops of eight (``\\t    `` is column 12) and accepts a mix
    that is consistent; libcst's tokenizer rejects some such mixes ("no matching outer block for
    dedent": FastestDet's ``test.py``, holdout131). Columns after the indentation move right by the
    spaces a line gained, which positions take back."""
    out, moved = [], dict(shifted)
    changed = False
    for number, line in enumerate(split_lines(code), start=1):
        indent = len(line) - len(line.lstrip(" \t"))
        if "\t" in line[:indent]:
            wide = line[:indent].expandtabs(8)
            moved[number + line_offset] = moved.get(number + line_offset, 0) - (len(wide) - indent)
            line = wide + line[indent:]
            changed = True
        out.append(line)
    return ("".join(out), moved) if changed else None


def _lint_unit(unit: Unit, lines, rule_classes, table, facts, failures, newline="\n",
               max_line_length: int = DEFAULT_LINE_LENGTH) -> List[Finding]:
    code, line_offset = unit.parse_source(lines)
    shifted: Dict[int, int] = {}
    if "\x0c" in code:
        code, shifted = _strip_indent_form_feeds(code, line_offset)
    memo = edit_reuse.current()
    tabs_expanded = False
    try:
        module = memo.unit_module(code, parse_unvalidated) if memo is not None else parse_unvalidated(code)
    except cst.ParserSyntaxError as error:
        expanded = _expand_indent_tabs(code, line_offset, shifted)
        module = None
        if expanded is not None:
            try:
                module = parse_unvalidated(expanded[0])
                code, shifted, tabs_expanded = expanded[0], expanded[1], True
            except cst.ParserSyntaxError:
                module = None
        if module is None:
            failures.append((f"libcst cannot parse lines {unit.start}-{unit.end}: {str(error).splitlines()[0]}",
                             error.raw_line + line_offset if error.raw_line else unit.start,
                             error.raw_column if error.raw_line else 0))
            return []
    raw: list = []
    ctx = Context(table, facts)
    # A method's unit is parsed without its class: the step bodies name it by its full path.
    ctx.scope_prefix = facts.step_bodies.scope_prefix(unit.nodes[0]) if unit.nodes else ""
    rules = [rule_class(ctx, raw) for rule_class in rule_classes]
    walk(module, ctx, rules)
    if not raw:
        return []
    resolve = lambda: _PositionsOnly(module, unsafe_skip_copy=True).resolve(PositionProvider)  # noqa: E731
    positions = memo.unit_positions(code, module, resolve) if memo is not None else resolve()
    unit_state: Dict[str, object] = {}  # filled by the first fix computed, shared by the unit's fixes
    result = []
    for rule_code, node, message, rule_fix, related in raw:
        where = positions[node]
        fix = None
        line, end_line = where.start.line + line_offset, where.end.line + line_offset
        if rule_fix is not None and (rule_fix.replacements or rule_fix.file_edits) and not tabs_expanded:
            # (no fix where tabs were expanded: a line it writes would be indented with spaces
            # among the file's tabs, which Python may reject)
            fix = LazyFix(rule_fix.applicability, rule_fix.description,
                          _fix_computer(module, code, line_offset, rule_fix, newline, shifted, positions,
                                        unit_state, max_line_length))
            fix = _fitted_to_fstrings(fix, facts, lines, rule_fix.file_edits,
                                      (line, where.start.column + shifted.get(line, 0),
                                       end_line, where.end.column + shifted.get(end_line, 0)))
        result.append(
            Finding(
                rule_code,
                line,
                where.start.column + shifted.get(line, 0),
                message,
                end_line,
                where.end.column + shifted.get(end_line, 0),
                fix,
                related,
            )
        )
    return result


def _fitted_to_fstrings(fix: LazyFix, facts, lines, file_edits, span: Tuple[int, int, int, int]):
    """A fix in or around an f-string, its edits written as the running Python accepts them
    inside one (fixing/fstrings.py); None when they cannot be. Decided now, not when the edits are
    first asked for, so that a check never counts a fix that --fix would then not apply."""
    regions = facts.__dict__.get("_fstring_regions")
    if regions is None:
        memo = edit_reuse.current()
        regions = facts.__dict__["_fstring_regions"] = (
            memo.fstring_regions(lines, facts._tree, fstrings.fstring_regions_or_none, fstrings.may_hold_fstrings)
            if memo is not None
            else fstrings.fstring_regions(lines))
    if not regions:
        return fix
    spans = [span, *((e.line, e.col, e.end_line, e.end_col) for e in file_edits)]
    if not any(fstrings.touches_fstring(regions, *each) for each in spans):
        return fix
    edits = fstrings.fit_edits(fix.edits, regions, lines)
    if not edits:
        return None
    return Fix(fix.applicability, fix.description, edits)


class _PositionsOnly(MetadataWrapper):
    """libcst resolves a provider that is not batchable (PositionProvider renders the module) and
    then still runs a batched visit over the whole tree with no visitor in the batch: about a third
    of the cost of positions, for nothing. With no visitor there is nothing to visit."""

    def visit_batched(self, visitors, before_visit=None, after_leave=None):
        visitors = list(visitors)
        if not visitors:
            return self.module
        return super().visit_batched(visitors, before_visit, after_leave)


def _fix_computer(module: cst.Module, code: str, line_offset: int, rule_fix: RuleFix, newline: str,
                  shifted: Dict[int, int], positions, unit_state: Dict[str, object], max_line_length: int):
    """The edits of a fix, computed when a caller first asks (see findings.LazyFix)."""

    def compute() -> Tuple[Edit, ...]:
        with _recursion_limit():
            if "starts" not in unit_state:
                # The fast path below reads the node's text at its position, which is right only
                # where libcst reproduces the unit; edits.to_fix copes with a lossy rendering.
                unit_state["reproduced"] = module.code == code
                unit_state["starts"] = _line_starts(code)
            edits: Tuple[Edit, ...] = ()
            edit = None
            if unit_state["reproduced"] and not rule_fix.file_edits:
                edit = _local_edit(module, code, line_offset, rule_fix, positions, unit_state["starts"],
                                   max_line_length)
            if edit is not None:
                edits = (edit,)
            else:
                fix = to_fix(module, code, line_offset, rule_fix, positions, max_line_length)
                edits = fix.edits if fix is not None else ()
        unit_edits = [e for e in edits if e not in rule_fix.file_edits]
        if shifted:
            unit_edits = [Edit(e.line, e.col + shifted.get(e.line, 0), e.end_line,
                               e.end_col + shifted.get(e.end_line, 0), e.content) for e in unit_edits]
        edits = tuple(unit_edits) + tuple(e for e in edits if e in rule_fix.file_edits)
        if newline != "\n":
            edits = tuple(Edit(e.line, e.col, e.end_line, e.end_col, e.content.replace("\n", newline))
                          for e in edits)
        return edits

    return compute


def _local_edit(module: cst.Module, code: str, line_offset: int, rule_fix: RuleFix, positions,
                starts: List[int], max_line_length: int) -> Optional[Edit]:
    """The edit of a one-node replacement, from that node's text alone (None: use _to_edit).

    Rendering the whole unit per fix made fixing a unit with n findings cost n renders of it. A
    node whose own rendering is exactly the text at its position (an expression: it owns no
    indentation) can be replaced in place; anything else takes the whole-unit path."""
    if len(rule_fix.replacements) != 1:
        return None  # a fix of several parts must stay one edit, applied whole or not at all
    old, new = rule_fix.replacements[0]
    if isinstance(old, (cst.BaseStatement, cst.BaseSmallStatement, cst.Module)) or isinstance(new, cst.FlattenSentinel):
        return None
    try:
        where = positions[old]
    except KeyError:
        return None
    if where.end.line > len(starts):
        return None
    begin = starts[where.start.line - 1] + where.start.column
    end = starts[where.end.line - 1] + where.end.column
    old_text = module.code_for_node(old)
    if code[begin:end] != old_text:
        return None
    new_text = module.code_for_node(new)
    if new_text == old_text:
        return None
    # A replacement that pushes its lines past the project's line length is wrapped by to_fix.
    line_begin = starts[where.start.line - 1]
    line_end = starts[where.end.line] - 1 if where.end.line < len(starts) else len(code)
    old_lines = code[line_begin:line_end]
    new_lines = code[line_begin:begin] + new_text + code[end:line_end]
    if pushes_past(old_lines, new_lines, max_line_length):
        return None
    return _minimal_edit(code, begin, end, new_text, line_offset, starts)


def _line_starts(code: str) -> List[int]:
    starts, total = [], 0
    for line in code.split("\n"):  # the unit's code has \n line ends only (see lint_source)
        starts.append(total)
        total += len(line) + 1
    return starts


def _minimal_edit(code: str, begin: int, end: int, new_text: str, line_offset: int, starts: List[int]) -> Edit:
    """Replace code[begin:end] by new_text, trimmed to what differs, in file coordinates."""
    old_text = code[begin:end]
    head = 0
    limit = min(len(old_text), len(new_text))
    while head < limit and old_text[head] == new_text[head]:
        head += 1
    tail = 0
    while tail < limit - head and old_text[len(old_text) - 1 - tail] == new_text[len(new_text) - 1 - tail]:
        tail += 1
    start, stop = begin + head, end - tail

    def position(offset: int) -> Tuple[int, int]:
        line = bisect_right(starts, offset)  # 1-based: starts[line - 1] <= offset
        return line + line_offset, offset - starts[line - 1]

    line, col = position(start)
    end_line, end_col = position(stop)
    return Edit(line, col, end_line, end_col, new_text[head:len(new_text) - tail])


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


def fix_source(
    source: str,
    codes: Optional[Collection[str]] = None,
    unsafe: bool = False,
    filename: str = "<string>",
    max_line_length: int = DEFAULT_LINE_LENGTH,
    target_torch: Optional[Tuple[int, int]] = None,
) -> Tuple[str, int]:
    """The source with every applicable fix applied, and the number of fixes applied."""
    fixed, total, _, error = fix_loop(
        source,
        lambda text: (lint_source(text, filename, codes=codes, max_line_length=max_line_length,
                                  target_torch=target_torch),),
        unsafe,
    )
    if error:
        raise ValueError(error)
    return fixed, total
