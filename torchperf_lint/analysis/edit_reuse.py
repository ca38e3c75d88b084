"""What the lint of a document's previous text lends to the lint of its next text (the language server).

An editor sends a document's whole text after every change, and most changes touch one line. The
lint of the new text is still a full lint, with every module fact computed from the new text; only
work whose result is a pure function of an input that did not change is taken from the previous
lint, so that findings are those of a fresh ``lint_source`` by construction
(tests/server/test_incremental.py compares them over random edit sequences):

- the ``ast`` of the module: the top-level statements around the changed lines are parsed again
  and the others are the previous tree's (equal to what a full parse gives, line numbers
  included: those below a change that adds or removes lines are moved in place; where the change
  touches a line between statements, everything from the statement above it to the end is parsed
  again; where nothing above can be kept, or the statements around the change do not parse
  alone, the whole text is parsed);
- a module fact's part from one top-level statement (``statement_part``: the collector's facts,
  TPL605's conv-into-BatchNorm map, TPL602's differentiating functions, the fix-safety facts, a
  unit's ast prefilter scan, the kinds of assigned values) and the project index's records of a
  top-level definition (``reuse_definitions``), each kept while its statement is the same object
  and what else it read compares equal (the import table, the loop targets or local names of
  the statements above, whether its loops are step loops...);
- libcst's tree of a unit and its positions, by the unit's exact text (a unit whose text did not
  change is not parsed again; the rules still walk it with the new module's facts);
- the f-strings of the file (for fixes near one): tokenized per top-level statement, each piece
  once per text;
- ``ast.walk(node)`` (the module facts walk the whole module a dozen times per lint, and each class,
  function or statement again): the nodes are listed once per node object, and each walk iterates
  that list (same nodes, same order); the statements a change did not touch keep their lists, and
  the module's list is made from its statements' (level by level, as ``ast.walk`` goes).

A ``DocumentMemo`` belongs to one document; ``reusing(memo)`` makes it the memo of the lints this
thread runs until the block ends, and forgets what that lint did not use (memory stays that of
about one version of the document). Nothing here is used outside ``reusing``: the CLI and flake8
plugin lint as before.
"""

from __future__ import annotations

import ast
import threading
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

_local = threading.local()
_walk_lock = threading.Lock()
_original_walk = ast.walk
_walk_users = 0  # threads inside ``reusing`` (ast.walk is replaced while there are any)


def current() -> Optional["DocumentMemo"]:
    """The memo of the lint this thread is running (None: no reuse, as in the CLI)."""
    return getattr(_local, "memo", None)


class DocumentMemo:
    """The reusable results of one document's last lint."""

    def __init__(self) -> None:
        self._lines: Optional[List[str]] = None  # the text the tree below was made from
        self._tree: Optional[ast.Module] = None
        self._units: Dict[str, list] = {}  # unit code -> [libcst module, positions or None]
        self._used: Dict[str, list] = {}  # ... the entries of the lint running now
        self._walks: Dict[int, Tuple[ast.AST, list]] = {}  # id(node) -> (node, ast.walk's nodes) this lint
        self._kept_walks: Dict[int, Tuple[ast.AST, list]] = {}  # ... of the last lint
        self._fstrings: Dict[str, dict] = {}  # "pieces": text of a piece -> its f-string regions
        # (fact name, id(statement)) -> (statement, its part of the fact), this lint and the last
        self._parts: Dict[Tuple[str, int], tuple] = {}
        self._kept_parts: Dict[Tuple[str, int], tuple] = {}
        self._table: object = None  # the import table the parts were computed with (this lint)
        self._table_value: object = None  # ... its value, compared with the next lint's table
        self.spliced = self.parsed = 0  # counts, for tests and the benchmark
        self.parts_kept = self.parts_made = 0  # ... of statement parts taken from the last lint, and made

    # ---- the module's ast ----------------------------------------------------------------------

    def tree_for(self, source: str) -> ast.Module:
        """``ast.parse(source)``, from the previous tree where the change allows (raises what
        ``ast.parse`` raises)."""
        lines = _lines(source)
        tree = self._spliced(lines) if "\r" not in source else None  # (the engine gives \n only)
        if tree is None:
            tree = ast.parse(source)
            self.parsed += 1
        else:
            self.spliced += 1
        self._lines, self._tree = lines, tree
        return tree

    def _spliced(self, lines: List[str]) -> Optional[ast.Module]:
        old_lines, old_tree = self._lines, self._tree
        if old_tree is None or old_lines is None or not old_tree.body:
            return None
        delta = len(lines) - len(old_lines)  # lines added (removed: negative)
        limit = min(len(lines), len(old_lines))
        first = 0
        while first < limit and lines[first] == old_lines[first]:
            first += 1
        if not delta and first == len(lines):
            return old_tree  # the same text
        suffix = 0
        while suffix < limit - first and lines[-1 - suffix] == old_lines[-1 - suffix]:
            suffix += 1
        # Old lines first_line..last_line (1-based, inclusive) became the new text's lines there.
        first_line, last_line = first + 1, len(old_lines) - suffix
        if last_line < first_line:
            # Lines inserted between old lines ``first`` and ``first + 1``: both must be inside
            # the statements parsed again.
            first_line, last_line = first, first + 1
        body = old_tree.body
        spans = [(_first_line(node), node.end_lineno) for node in body]
        # The statements the changed lines touch; every changed line must lie inside their span
        # (a change on a blank or comment line between statements could start new code there).
        low = next((i for i, (_, end) in enumerate(spans) if end >= first_line), None)
        if low is None or spans[low][0] > first_line:
            return self._spliced_tail(lines) if delta else None
        high = low
        while high + 1 < len(spans) and spans[high + 1][0] <= last_line:
            high += 1
        if spans[high][1] < last_line:
            return self._spliced_tail(lines) if delta else None
        # Statements that share a line with the span (``a = 1; b = 2``) join it.
        while low > 0 and spans[low - 1][1] >= spans[low][0]:
            low -= 1
        while high + 1 < len(spans) and spans[high + 1][0] <= spans[high][1]:
            high += 1
        start, end = spans[low][0], spans[high][1]
        segment = "".join(lines[start - 1:end + delta])
        try:
            part = ast.parse(segment)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # the whole text is parsed, for the error it reports
        for node in part.body:
            ast.increment_lineno(node, start - 1)
        if delta:
            # The statements below keep their text, a line number ``delta`` away: moved in place,
            # so that they stay the objects the last lint's parts are kept by (the parts that
            # hold line numbers are kept by the statement's line too: ``statement_part``).
            for node in body[high + 1:]:
                ast.increment_lineno(node, delta)
        return ast.Module(body=body[:low] + part.body + body[high + 1:], type_ignores=[])

    def _spliced_tail(self, lines: List[str]) -> Optional[ast.Module]:
        """A change that adds or removes lines: the statements above it are the last tree's, and
        everything from the last statement that starts above the first changed line to the end
        is parsed again (its line numbers move). A kept statement ends above a line that starts a
        top-level statement at column 0 in both texts (the text up to that line is the same), so
        it ends there in a full parse of the new text too."""
        old_lines, body = self._lines, self._tree.body
        first = 0
        limit = min(len(lines), len(old_lines))
        while first < limit and lines[first] == old_lines[first]:
            first += 1
        first_line = first + 1  # the first changed line, 1-based
        starts = [_first_line(node) for node in body]
        low = sum(1 for start in starts if start < first_line) - 1  # the last statement starting above it
        # Statements that end on the line where the next one starts (``a = 1; b = 2``) go with it.
        while low > 0 and body[low - 1].end_lineno >= starts[low]:
            low -= 1
        if low <= 0:
            return None  # nothing above the change to keep: the whole text is parsed
        start = starts[low]
        try:
            part = ast.parse("".join(lines[start - 1:]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # the whole text is parsed, for the error it reports
        for node in part.body:
            ast.increment_lineno(node, start - 1)
        return ast.Module(body=body[:low] + part.body, type_ignores=[])

    # ---- f-strings -------------------------------------------------------------------------------

    def fstring_regions(self, lines: Sequence[str], tree: ast.Module,
                        regions_or_none: Callable[[Sequence[str]], Optional[list]],
                        may_hold: Callable[[str], bool]) -> list:
        """``fstring_regions(lines)`` of the file (fixing/fstrings.py), tokenized one top-level
        statement at a time (from its first line to the next one's) and each piece once per text.

        The tokenizer's state where a top-level statement starts is its initial state (no open
        bracket, string or continuation; indentation 0), so the tokens of each piece are the
        file's tokens there, and the file fails to tokenize exactly when a piece does (then there
        are no regions, as for the whole file). ``regions_or_none``: the regions of some lines, None
        where they do not tokenize; ``may_hold(text)``: whether the file's text may hold one."""
        if not may_hold("".join(lines)):
            return []  # nothing tokenized, as fstring_regions
        starts = sorted({1, *(_first_line(node) for node in tree.body)})
        starts.append(len(lines) + 1)
        kept = self._fstrings.get("pieces", {})
        used: Dict[str, Optional[list]] = {}
        regions: list = []
        failed = False
        for begin, end in zip(starts, starts[1:]):
            piece = lines[begin - 1:end - 1]
            key = "".join(piece)
            if key in used:
                found = used[key]
            elif key in kept:
                found = used[key] = kept[key]
            else:
                found = used[key] = regions_or_none(piece)
            if found is None:
                failed = True
                continue
            shift = begin - 1
            regions.extend((r[0] + shift, r[1], r[2] + shift, r[3], r[4]) for r in found)
        self._fstrings = {"pieces": used}
        return [] if failed else regions

    # ---- libcst units ----------------------------------------------------------------------------

    def unit_module(self, code: str, parse: Callable[[str], object]):
        """libcst's module of a unit's code (``parse(code)``, once per distinct code)."""
        entry = self._units.get(code)
        if entry is None:
            entry = self._used.get(code)
        if entry is None:
            entry = [parse(code), None]  # a parse error propagates, and nothing is kept
        self._used[code] = entry
        return entry[0]

    def unit_positions(self, code: str, module, resolve: Callable[[], object]):
        """The positions of ``module`` (the one ``unit_module(code)`` gave): ``resolve()`` once."""
        entry = self._used.get(code)
        if entry is None or entry[0] is not module:
            return resolve()
        if entry[1] is None:
            entry[1] = resolve()
        return entry[1]

    # ---- walks of the whole module -----------------------------------------------------------------

    def walk(self, node: ast.AST) -> Iterator[ast.AST]:
        """``ast.walk(node)``: a list of the nodes, made once per node object and kept while lints
        use it. The statements a change did not touch are the same objects in the next tree
        (``tree_for``), so their walks carry over from one lint to the next."""
        key = id(node)  # (an entry holds its node: no other object can have this id meanwhile)
        cached = self._walks.get(key)
        if cached is None:
            cached = self._kept_walks.get(key)
        if cached is None:
            nodes = self._module_walk(node) if type(node) is ast.Module else list(_original_walk(node))
            cached = (node, nodes)
        self._walks[key] = cached
        return iter(cached[1])

    def _module_walk(self, module: ast.Module) -> list:
        """``list(ast.walk(module))`` from the levels of its statements' walks (kept for the
        statements a change did not touch). ``ast.walk`` goes breadth first: after the module come
        its children (the statements, then ``type_ignores``), and each level below is, statement
        after statement in order, the nodes at that depth in the statement's own walk."""
        statement_levels = [self._levels(stmt) for stmt in module.body]
        nodes: list = [module, *module.body, *module.type_ignores]
        depth = 1
        while True:
            added = False
            for levels in statement_levels:
                if depth < len(levels):
                    nodes.extend(levels[depth])
                    added = True
            if not added:
                return nodes
            depth += 1

    def _levels(self, stmt: ast.AST) -> List[list]:
        """The nodes of ``ast.walk(stmt)`` by depth below ``stmt``."""
        key = ("levels", id(stmt))
        cached = self._parts.get(key)
        if cached is None:
            cached = self._kept_parts.get(key)
            if cached is None:
                levels = [[stmt]]
                while True:
                    below: list = []
                    for node in levels[-1]:
                        below.extend(ast.iter_child_nodes(node))
                    if not below:
                        break
                    levels.append(below)
                cached = (stmt, levels)
            self._parts[key] = cached
        return cached[1]

    # ---- a module fact's part from one top-level statement ---------------------------------------

    def statement_part(self, name: str, stmt: ast.AST, table, compute: Callable[[ast.AST], object],
                       still_valid: Optional[Callable[[object], bool]] = None, positional: bool = False):
        """``compute(stmt)``, kept for the next lint while the statement is the same object (a
        statement the change did not touch, ``tree_for``) and the import table compares equal.
        ``compute`` must be a function of the statement's subtree and the table only, and its
        result is shared: the caller combines parts without changing them. ``still_valid(part)``:
        whether a kept part holds given what else it read (the statements above it).
        ``positional``: the part holds line numbers (not only nodes, whose own numbers move with
        them, ``tree_for``): it is kept only while the statement starts on the same line."""
        if table is not self._table:
            value = _table_value(table)
            if value != self._table_value:
                self._kept_parts = {}
                self._parts = {}
            self._table, self._table_value = table, value
        # (an entry holds its statement: no other object can have this id)
        key = (name, id(stmt), stmt.lineno) if positional else (name, id(stmt))
        cached = self._parts.get(key)
        if cached is None:
            cached = self._kept_parts.get(key)
            if cached is None or (still_valid is not None and not still_valid(cached[1])):
                cached = (stmt, compute(stmt))
                self.parts_made += 1
            else:
                self.parts_kept += 1
            self._parts[key] = cached
        return cached[1]

    # ---- one lint ------------------------------------------------------------------------------

    def _finish(self) -> None:
        self._units, self._used = self._used, {}
        self._kept_walks, self._walks = self._walks, {}
        self._kept_parts, self._parts = self._parts, {}
        self._table = None  # (the value stays, for the next lint's comparison)


def _lines(source: str) -> List[str]:
    """The lines of a text whose line ends are all ``\\n``, with their ends."""
    parts = source.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _table_value(table) -> object:
    """What an import table says, as a value (names.ImportTable: bindings, torch imported,
    instances); None for no table."""
    if table is None:
        return None
    return (dict(table.bindings), table.imports_torch, dict(table.instances))


def statement_part(name: str, stmt: ast.AST, table, compute: Callable[[ast.AST], object],
                   still_valid: Optional[Callable[[object], bool]] = None, positional: bool = False):
    """A module fact's part from one top-level statement: ``compute(stmt)``, from the last lint of
    the document when the language server lints (``reusing``) and the statement did not change
    (and ``still_valid(part)`` holds)."""
    memo = current()
    if memo is None:
        return compute(stmt)
    return memo.statement_part(name, stmt, table, compute, still_valid, positional)


# ---- the project index's summary of the document: its top-level definitions ----------------------

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_MISSING = object()


def reuse_definitions(summariser) -> None:
    """Let a summary of the document's tree (project_index's ``_Summariser``, before ``run``) take
    the records of each top-level function and class from the last lint's summary where the
    definition did not change, and make them otherwise as the summariser would.

    A top-level definition's records (its functions, methods and classes, the roots and framework
    settings it holds, and what its decorators and class body add to the module's record) are
    made by the summariser's own ``_define``/``_define_class`` on a copy of it with empty records,
    so that they are exactly what the summariser makes. What that reads of the rest of the module
    is recorded and compared when the records are reused: whether its loops are step loops, the
    module's local names it looks up, where the module-level names it hands to calls live, which
    names the module binds at module or class level (whose calls' arguments are placed); the
    import table compares equal (``statement_part``). Left to the summariser: a name defined twice
    at module level (the records merge), and a class with an ``if`` in its body (the test reads
    the module's statements)."""
    memo = current()
    tree = getattr(summariser, "tree", None)
    if memo is None or tree is None or tree is not memo._tree:
        return  # not the document the server is linting (another module of its project)
    counts: Dict[str, int] = {}
    for name in _module_scope_names(tree.body):
        counts[name] = counts.get(name, 0) + 1
    own = {id(stmt) for stmt in tree.body if isinstance(stmt, _DEFINITIONS) and counts[stmt.name] == 1
           and not (isinstance(stmt, ast.ClassDef) and _if_in_class_body(stmt))}
    if not own:
        return
    define, define_class = summariser._define, summariser._define_class

    def reused(node, kind: str) -> bool:
        part = memo.statement_part(
            "summary." + kind, node, summariser.table, lambda stmt: _definition_records(summariser, stmt, kind),
            lambda kept: kept.holds_in(summariser), positional=True)
        if any(q in summariser.functions for q, _ in part.functions) or any(
                q in summariser.classes for q, _ in part.classes):
            return False  # (not expected: the names were counted) the summariser merges them
        part.merge_into(summariser)
        return True

    def define_top(node, scope, owner_class):
        if scope or id(node) not in own or not reused(node, "def"):
            define(node, scope, owner_class)

    def define_class_top(node, scope):
        if scope or id(node) not in own or not reused(node, "class"):
            define_class(node, scope)

    summariser._define, summariser._define_class = define_top, define_class_top


def _module_scope_names(body) -> Iterator[str]:
    """The names of the functions and classes defined at module scope: at the top level and in the
    module's blocks (``if``, ``try``, loops...), not inside functions and classes."""
    pending = list(body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, _DEFINITIONS):
            yield stmt.name
            continue
        pending.extend(_inner_statements(stmt))


def _inner_statements(stmt) -> Iterator:
    """The statements of a compound statement's blocks (body, else, finally, handlers, cases)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if isinstance(block, list):
            yield from (s for s in block if isinstance(s, ast.stmt))
    for holder in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
        yield from holder.body


def _if_in_class_body(cls: ast.ClassDef) -> bool:
    pending = list(cls.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, ast.If):
            return True
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        pending.extend(_inner_statements(stmt))
    return False


class _AskedIds:
    """A set the summariser asks about (its step loops' ids; the module-level names a dotted call's
    head may be, ``_Summariser._resolvable``), recording each question and its answer."""

    def __init__(self, ids):
        self.ids = ids
        self.asked: Dict[int, bool] = {}

    def __contains__(self, key) -> bool:
        answer = key in self.ids
        self.asked[key] = answer
        return answer


class _AskedLocals(dict):
    """The module record's local names: what the definition binds (the dict's items) over what the
    statements above bound (``prior``), recording the questions about those."""

    def __init__(self, prior: dict):
        super().__init__()
        self.prior = prior
        self.asked: Dict[str, object] = {}

    def _prior(self, key):
        found = self.prior.get(key, _MISSING)
        self.asked.setdefault(key, found)
        return found

    def get(self, key, default=None):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        found = self._prior(key)
        return default if found is _MISSING else found

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or self._prior(key) is not _MISSING

    def __getitem__(self, key):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        found = self._prior(key)
        if found is _MISSING:
            raise KeyError(key)
        return found


class _AskedPlaces:
    """The module body's host names (argument_places.HostNames), recording each key asked."""

    def __init__(self, places):
        self.places = places
        self.asked: list = []

    def keys(self, node, where: str) -> tuple:
        found = self.places.keys(node, where)
        self.asked.append((node, where, found))
        return found


class _DefinitionRecords:
    """What one top-level definition adds to a summary, and what it read of the rest."""

    def __init__(self, functions, classes, roots, settings, module_calls, module_locals, module_flags,
                 loops, names, places, heads=None):
        self.functions, self.classes, self.roots, self.settings = functions, classes, roots, settings
        self.module_calls, self.module_locals, self.module_flags = module_calls, module_locals, module_flags
        self.loops, self.names, self.places = loops, names, places
        self.heads = heads or {}  # module-level names asked about (the summariser's _resolvable)
        self.loader_groups: Optional[tuple] = None  # loader_groups when a call hands a batch on

    def holds_in(self, summariser) -> bool:
        """Would the definition read the same of this summariser's module?"""
        module = summariser.functions["<module>"]
        places = summariser._places.get(id(module))
        return ((self.loader_groups is None or loader_groups(summariser) == self.loader_groups)
                and all((key in summariser.step_loops) == answer for key, answer in self.loops.items())
                and all(module["locals"].get(key, _MISSING) == found for key, found in self.names.items())
                and all((head in summariser._heads) == answer for head, answer in self.heads.items())
                and (not self.places or (places is not None and all(
                    places.keys(node, where) == found for node, where, found in self.places))))

    def merge_into(self, summariser) -> None:
        """Add the records as the summariser's ``_define``/``_define_class`` would have (copies of
        what it changes later, so that the kept records stay as they were made)."""
        for qualname, record in self.functions:
            summariser.functions[qualname] = dict(record, calls=list(record["calls"]), locals=dict(record["locals"]))
        for qualname, record in self.classes:
            summariser.classes[qualname] = dict(record, attrs=dict(record["attrs"]))
        summariser.roots.extend(self.roots)
        if self.settings:
            summariser.settings = True
        module = summariser.functions["<module>"]
        module["calls"].extend(self.module_calls)
        module["locals"].update(self.module_locals)
        module.update(self.module_flags)


def _definition_records(summariser, node: ast.AST, kind: str) -> _DefinitionRecords:
    """The records the summariser's ``_define`` (``kind`` "def") or ``_define_class`` makes of one
    top-level definition, on a copy of the summariser whose records are empty."""
    import copy

    sub = copy.copy(summariser)
    sub.__dict__.pop("_define", None)  # the summariser's own methods, not reuse_definitions'
    sub.__dict__.pop("_define_class", None)
    sub.functions, sub.classes, sub.roots, sub.settings, sub.imports = {}, {}, [], False, []
    sub._places = {}
    sub._asked_loaders = False
    sub._scope_bodies = [summariser.tree.body]
    loops = sub.step_loops = _AskedIds(summariser.step_loops)
    real_module = summariser.functions["<module>"]
    module = sub._function("<module>", 0, None)
    names = module["locals"] = _AskedLocals(real_module["locals"])
    heads = None
    if summariser._heads is not None:
        heads = sub._heads = _AskedIds(summariser._heads)
    places = None
    if id(real_module) in summariser._places:
        places = sub._places[id(module)] = _AskedPlaces(summariser._places[id(real_module)])
    if kind == "def":
        type(summariser)._define(sub, node, "", None)
    else:
        type(summariser)._define_class(sub, node, "")
    flags = {key: value for key, value in module.items()
             if key not in ("line", "end", "cls", "calls", "locals") and value}
    records = _DefinitionRecords(
        [(q, r) for q, r in sub.functions.items() if q != "<module>"], list(sub.classes.items()),
        list(sub.roots), sub.settings, list(module["calls"]), dict(names.items()), flags,
        loops.asked, names.asked, places.asked if places is not None else [], heads.asked if heads is not None else {})
    if sub._asked_loaders:
        # where a batch it hands on comes from: whether its loader pins memory (R155) or hands out
        # device data is a fact of the whole module, which an edit of another definition may change
        records.loader_groups = loader_groups(summariser)
    return records


def loader_groups(summariser) -> tuple:
    """The module's pinned, unpinned and device-data loader names (step_loops.ModuleSteps), which
    the places of a call's batch arguments read (argument_places: ``hostv:``, ``pinned:``)."""
    summariser._step_loop_ids()  # builds the module's step facts
    steps = summariser._steps
    return (frozenset(steps.pinned_loaders), frozenset(steps.unpinned_loaders), frozenset(steps.device_data_loaders))


def _first_line(node: ast.AST) -> int:
    decorators: Sequence[ast.AST] = getattr(node, "decorator_list", ())
    return min([node.lineno, *(d.lineno for d in decorators)])


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    memo = current()
    if memo is None:  # another thread, outside any ``reusing``
        return _original_walk(node)
    return memo.walk(node)


@contextmanager
def reusing(memo: DocumentMemo):
    """Lints run by this thread inside the block reuse ``memo``'s results and leave theirs in it.

    ``ast.walk`` is replaced for the duration (by a function that gives every caller the nodes
    ``ast.walk`` gives, in its order; outside ``reusing`` it is ``ast.walk`` itself), because the
    module facts call it directly; the analysis never changes a tree, so a list made once per tree
    is what every later walk of it would yield."""
    global _walk_users
    previous = current()
    _local.memo = memo
    with _walk_lock:
        _walk_users += 1
        ast.walk = _walk
    try:
        yield memo
    finally:
        memo._finish()
        _local.memo = previous
        with _walk_lock:
            _walk_users -= 1
            if _walk_users == 0:
                ast.walk = _original_walk
