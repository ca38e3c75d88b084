"""The CLI's work on one file: read and decode, lint, apply ``# noqa``, fix. Runs in worker processes.

Nothing here raises for bad input: an unreadable or undecodable file gets one TPL900 finding.
A fix that would leave code that does not parse is not written; the file gets an internal error.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import re
import tokenize
from stat import S_ISREG
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from ..findings import ANALYSIS_FAILED, Edit, Finding, Fix, analysis_failed, applicable, materialise
from .line_length import DEFAULT_LINE_LENGTH
from ..fixing.lines import normalise_newlines, split_lines
from .atomic_write import WriteFailed, write_atomic


CHECK, FIX, DIFF = "check", "fix", "diff"

# flake8's own expressions (flake8/defaults.py), so that ``# noqa`` means the same in both.
NOQA_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
# ``# flake8: noqa: E501`` names the codes it turns off for the file. flake8 7.5 skips the whole file
# on it all the same (NOQA_FILE matches its start), a trap its documentation warns of; the CLI reads
# the codes, as ruff reads this spelling and its own ``# ruff: noqa: E501``: a file that turns off
# line lengths keeps its TPL findings (tiramisu-brulee's, detoxify's and opacus's training steps were
# hidden so). Anything else after the colon is no list of codes: the whole file, as in flake8.
NOQA_FILE_CODES = re.compile(
    r"\s*# flake8[:=]\s*noqa\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)[,\s]*(?:#.*)?$", re.IGNORECASE)
_SPLIT_CODES = re.compile(r"[,\s]")


@dataclass
class Task:
    path: str  # absolute
    codes: Tuple[str, ...]
    mode: str = CHECK
    unsafe: bool = False
    max_line_length: int = DEFAULT_LINE_LENGTH
    count_fixes: bool = False  # CHECK: count what --fix would apply (for the text summary)
    # Whether the report shows the fixes' edits (JSON): else a check computes only which findings
    # have a fix and how safe it is, which costs nothing (see findings.LazyFix).
    fix_edits: bool = False
    # The project's target torch, (major, minor) or None (target_torch.py): findings whose remedy
    # needs a newer torch are not reported.
    target_torch: Optional[Tuple[int, int]] = None


@dataclass
class FileResult:
    path: str
    findings: List[Finding] = field(default_factory=list)
    noqa_rows: List[int] = field(default_factory=list)
    fixed: int = 0  # fixes applied (FIX) or that --fix would apply (DIFF, CHECK), later rounds included
    applied: List[Tuple[str, str, int]] = field(default_factory=list)  # (code, fix, round) of each
    diff: str = ""
    error: Optional[str] = None  # an internal error of the tool (exit status 2)
    skipped: Optional[str] = None  # why the file was not read (not a regular file): a warning
    output: Optional[bytes] = None  # standard input's fixed text (--fix of ``-``)
    # (size, mtime_ns, digest) of the content the findings belong to; None: do not cache.
    stamp: Optional[Tuple[int, int, str]] = None
    from_cache: bool = False
    cells: Optional[List[int]] = None  # a notebook's: the code cell of each finding (lines are the cell's)
    # The other modules whose project facts the findings used (engine.dependencies_of): the cache
    # re-checks the file when one of them changes.
    dependencies: frozenset = frozenset()


def digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class BadInput(Exception):
    def __init__(self, reason: str, line: int = 1, col: int = 0):
        super().__init__(reason)
        self.line, self.col = line, col

    def finding(self) -> Finding:
        return analysis_failed(str(self), self.line, self.col)


def _position(raw: bytes, offset: int, encoding: str = "latin-1") -> Tuple[int, int]:
    """(line, column) of a byte offset, lines ending as Python's (\n, \r\n, \r)."""
    before = raw[:offset]
    line = before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1
    start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
    return line, len(before[start:].decode(encoding, errors="replace"))


def decode(raw: bytes) -> Tuple[str, str]:
    """The text of a Python file and its encoding, as the interpreter would read it (PEP 263)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        raise BadInput(f"cannot detect the encoding: {error}") from None
    try:
        return raw.decode(encoding), encoding
    except UnicodeDecodeError as error:
        line, col = _position(raw, error.start, encoding)
        raise BadInput(f"the file is not valid {encoding}: {error.reason} (line {line})", line, col) from None
    except LookupError as error:
        raise BadInput(f"the file is not valid {encoding}: {error}") from None


def file_noqa(lines: List[str]) -> Optional[FrozenSet[str]]:
    """What the file-level ``# flake8: noqa`` comments of a file turn off: None (there is none), an
    empty set (every check: the bare comment, on a line of its own, as in flake8), or the codes
    (and code prefixes) they name (``# flake8: noqa: E501, TPL102``)."""
    found: Optional[Set[str]] = None
    for line in lines:
        if not NOQA_FILE.match(line):
            continue
        named = NOQA_FILE_CODES.match(line.rstrip("\r\n"))
        if named is None:
            return frozenset()
        found = (found or set()) | {part.upper() for part in _SPLIT_CODES.split(named.group("codes")) if part}
    return None if found is None else frozenset(found)


def file_is_noqa(lines: List[str]) -> bool:
    """Does a bare ``# flake8: noqa`` on a line of its own turn off every check of the file?"""
    return file_noqa(lines) == frozenset()


def noqa_ranges(lines: List[str]) -> Dict[int, Tuple[int, int]]:
    """flake8's mapping: line -> (first, last) line of the token run it belongs to. Lines joined by a
    multi-line string or a backslash continuation share one range; a bracketed statement does not
    (each of its lines ends with an NL token)."""
    ranges: Dict[int, Tuple[int, int]] = {}
    low, high = len(lines) + 2, -1
    # The lines themselves feed the tokenizer (io.StringIO would split only at \n), with \n ends:
    # the tokenize module sees no line end in a bare \r.
    readline = iter([normalise_newlines(line) for line in lines]).__next__
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            low, high = min(low, tok.start[0]), max(high, tok.end[0])
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                for line in range(low, high + 1):
                    ranges[line] = (low, high)
                low, high = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError, IndentationError, StopIteration):
        return {}
    return ranges


def apply_noqa(findings: List[Finding], lines: List[str]) -> Tuple[List[Finding], List[int]]:
    """The findings no ``# noqa`` comment silences, and for each the row a noqa comment belongs on."""
    if not findings:
        return [], []
    exempt = file_noqa(lines)
    if exempt:  # ``# flake8: noqa: TPL102``: those codes, everywhere in the file
        findings = [f for f in findings if not _names(f.code, exempt)]
        if not findings:
            return [], []
    if not any("noqa" in line.lower() for line in lines) and not any(_joined(lines, f.line) for f in findings):
        # Nothing to silence, and every finding's line stands alone: skip tokenizing the file.
        return list(findings), [f.line for f in findings]
    ranges = noqa_ranges(lines)
    kept, rows = [], []
    for finding in findings:
        low, high = ranges.get(finding.line, (finding.line, finding.line))
        if finding.line not in ranges:
            # flake8 falls back to the physical line when the file does not tokenize.
            text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        else:
            text = "".join(lines[low - 1:high])
        if not _silenced(finding.code, text):
            kept.append(finding)
            rows.append(high)
    return kept, rows


def _joined(lines: List[str], line: int) -> bool:
    """Whether a line may share its noqa range with others (a backslash continuation or a
    triple-quoted string touches it): then the exact tokenize-based mapping is needed."""
    if not 0 < line <= len(lines):
        return False
    text = lines[line - 1]
    if '"""' in text or "'''" in text or text.rstrip("\r\n").endswith("\\"):
        return True
    return line > 1 and lines[line - 2].rstrip("\r\n").endswith("\\")


def _silenced(code: str, text: str) -> bool:
    if "#" not in text:
        return False
    match = NOQA_INLINE.search(text)
    if match is None:
        return False
    codes_text = match.group("codes")
    if codes_text is None:
        return True  # a bare ``# noqa``
    return _names(code, {part.strip() for part in _SPLIT_CODES.split(codes_text) if part.strip()})


def _names(code: str, codes) -> bool:
    """Is ``code`` one of ``codes`` or under one of them as a prefix (``TPL1``)?"""
    return code in codes or code.startswith(tuple(codes))


# ---- one file -----------------------------------------------------------------------------------

def analyse(
    source: str, filename: str, codes: FrozenSet[str], max_line_length: int = DEFAULT_LINE_LENGTH,
    target_torch: Optional[Tuple[int, int]] = None,
) -> Tuple[List[Finding], List[int]]:
    from ..engine import lint_source

    findings = lint_source(source, filename, codes=codes, max_line_length=max_line_length,
                           target_torch=target_torch)
    findings = [f for f in findings if f.code in codes]
    if not findings:
        return [], []  # most files: their lines are never needed (the engine splits its own)
    lines = split_lines(source)
    if file_is_noqa(lines):
        return [], []
    return apply_noqa(findings, lines)


def fix_text(source: str, filename: str, codes: FrozenSet[str], unsafe: bool,
             max_line_length: int = DEFAULT_LINE_LENGTH, first=None, applied=None, target_torch=None):
    """(new source, fixes applied, findings left, their noqa rows, error, findings of the original
    source with their rows). Silenced findings are not fixed. On an error (a fix that does not
    parse) the source comes back unchanged. ``applied`` receives (code, fix, round) per fix."""
    from ..fixing.fixer import fix_loop

    if first is None:
        first = analyse(source, filename, codes, max_line_length, target_torch)
    fixed, total, (findings, rows), error = fix_loop(
        source, lambda text: analyse(text, filename, codes, max_line_length, target_torch), unsafe, first, applied
    )
    return fixed, total, findings, rows, error, first


def unified_diff(old: str, new: str, display: str) -> str:
    diff = difflib.unified_diff(
        split_lines(old), split_lines(new), fromfile=display, tofile=display
    )
    out = []
    for line in diff:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def process(task: Task, display: Optional[str] = None, given: Optional[bytes] = None) -> FileResult:
    """Everything for one file; never raises. Its findings carry plain fixes (picklable, cacheable):
    with their edits when ``task.fix_edits``, else only whether a fix exists and how safe it is.

    With ``given`` (standard input), those bytes are checked as the file ``task.path``, nothing is
    read or written, and a fixed text comes back in ``FileResult.output``."""
    result = _process(task, display, given)
    result.findings = [materialise(f, task.fix_edits) for f in result.findings]
    if result.stamp is not None:
        from ..engine import dependencies_of

        result.dependencies = dependencies_of(task.path)
    return result


def _read(path: str, result: FileResult, codes: FrozenSet[str]):
    """(bytes, stat) of the file, or (None, None) with ``result`` saying why not."""
    import os

    try:
        # O_NONBLOCK: opening a FIFO named *.py must not wait for a writer; it is skipped below.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if not S_ISREG(stat.st_mode):
                result.skipped = "not a regular file, skipped"
                return None, None
            return handle.read(), stat
    except OSError as error:
        result.findings = [analysis_failed(f"cannot read it: {error.strerror or error}")] if ANALYSIS_FAILED in codes else []
        result.noqa_rows = [1] * len(result.findings)
        return None, None


def _process(task: Task, display: Optional[str], given: Optional[bytes]) -> FileResult:
    import os

    result = FileResult(task.path)
    codes = frozenset(task.codes)
    if stop_requested():
        result.error = "interrupted; not checked"
        return result
    if given is not None:
        raw, stat = given, None
    else:
        raw, stat = _read(task.path, result, codes)
        if raw is None:
            return result
    try:
        if task.path.endswith(".ipynb"):
            return _process_notebook(task, display, raw, result, codes, given)
        # standard input is never cached: no stamp
        stamp = (stat.st_size, stat.st_mtime_ns, digest(raw)) if stat is not None else None
        try:
            source, encoding = decode(raw)
        except BadInput as error:
            result.findings = [error.finding()] if ANALYSIS_FAILED in codes else []
            result.noqa_rows = [f.line for f in result.findings]
            result.stamp = stamp
            return result
        if task.mode == CHECK:
            result.findings, result.noqa_rows = analyse(source, task.path, codes, task.max_line_length,
                                                        task.target_torch)
            result.stamp = stamp
            result.fixed = fixable = sum(applicable(f, task.unsafe) for f in result.findings)
            if fixable and task.count_fixes:
                # What --fix would apply, fixes that the first ones make possible included, so that
                # check, --diff and --fix give one count.
                result.fixed = fix_text(source, task.path, codes, task.unsafe, task.max_line_length,
                                        (result.findings, result.noqa_rows), result.applied,
                                        task.target_torch)[1]
            return result
        new_source, fixed, findings, rows, error, first = fix_text(
            source, task.path, codes, task.unsafe, task.max_line_length, applied=result.applied,
            target_torch=task.target_torch)
        result.findings, result.noqa_rows, result.error = findings, rows, error
        if new_source == source:
            result.stamp = stamp if error is None else None
            result.applied = []
            return result
        result.fixed = fixed
        if task.mode == DIFF:
            result.diff = unified_diff(source, new_source, display or task.path)
            # the file is unchanged: cache (and report) the findings of its text
            result.findings, result.noqa_rows = first
            result.stamp = stamp
            return result
        try:
            new_raw = new_source.encode(encoding)
        except UnicodeEncodeError as error:
            result.error = f"the fixed text cannot be encoded as {encoding}: {error.reason}; nothing was written"
            result.fixed = 0
            result.applied = []
            result.findings, result.noqa_rows = first
            return result
        if given is not None:
            result.output = new_raw
            return result
        if stop_requested():
            result.error = "interrupted; nothing was written"
            return _unfixed(result, first)
        try:
            # Atomic, and only over the bytes the fixes were computed from (atomic_write.py).
            write_atomic(task.path, new_raw, expected=raw, must_exist=True)
        except WriteFailed as failure:
            result.error = f"could not write the fixes: {failure}; the file is unchanged"
            return _unfixed(result, first)
        result.stamp = (len(new_raw), os.stat(task.path).st_mtime_ns, digest(new_raw))
        return result
    except Exception as error:  # a bug of ours: report it for this file, go on with the others
        result.error = f"internal error {type(error).__name__}: {error} (please report it)"
        result.stamp = None
        return result


def _process_notebook(task: Task, display: Optional[str], raw: bytes, result: FileResult, codes: FrozenSet[str],
                      given: Optional[bytes]) -> FileResult:
    """A Jupyter notebook: its code cells as one module (frontends/notebook.py), findings placed in
    their cells, fixes written into the cells they change. Not cached (no stamp)."""
    from .notebook import NotebookError, read_notebook

    try:
        notebook = read_notebook(raw)
    except NotebookError as error:
        result.findings = [analysis_failed(str(error))] if ANALYSIS_FAILED in codes else []
        result.noqa_rows = [1] * len(result.findings)  # about the file, not a cell
        return result
    if notebook is None:  # not a Python notebook
        return result
    source, path, length = notebook.source, task.path, task.max_line_length
    if task.mode == CHECK:
        findings, rows = analyse(source, path, codes, length, task.target_torch)
        result.fixed = fixable = sum(applicable(f, task.unsafe) for f in findings)
        if fixable and task.count_fixes:
            result.fixed = fix_text(source, path, codes, task.unsafe, length, (findings, rows), result.applied,
                                    target_torch=task.target_torch)[1]
        result.findings, result.noqa_rows, result.cells = notebook.locate(findings, rows)
        return result
    new_source, fixed, findings, rows, error, first = fix_text(source, path, codes, task.unsafe, length,
                                                               applied=result.applied, target_torch=task.target_torch)
    result.error = error
    if new_source == source or task.mode == DIFF:
        if new_source != source:
            result.diff, result.fixed = notebook.diff(new_source, display or task.path), fixed
        else:
            result.applied = []
        result.findings, result.noqa_rows, result.cells = notebook.locate(*first)
        return result
    try:
        new_text, _ = notebook.write(new_source)
        written = read_notebook(new_text.encode("utf-8"))
    except NotebookError as problem:
        result.error, result.fixed, result.applied = str(problem), 0, []
        result.findings, result.noqa_rows, result.cells = notebook.locate(*first)
        return result
    # The cells as written, read again: where the findings left now are.
    located = written.locate(findings, rows) if written is not None else notebook.locate(findings, rows)
    result.findings, result.noqa_rows, result.cells = located
    result.fixed = fixed
    new_raw = new_text.encode("utf-8")
    if raw.startswith(b"\xef\xbb\xbf"):
        new_raw = b"\xef\xbb\xbf" + new_raw
    if given is not None:
        result.output = new_raw
        return result
    try:
        # Atomic, and only over the bytes the fixes were computed from (atomic_write.py).
        write_atomic(task.path, new_raw, expected=raw, must_exist=True)
    except WriteFailed as failure:
        result.error = f"could not write the fixes: {failure}; the file is unchanged"
        result.fixed, result.applied = 0, []
        result.findings, result.noqa_rows, result.cells = notebook.locate(*first)
    return result


def _unfixed(result: FileResult, first) -> FileResult:
    """A fix run whose text was not written: nothing counts as fixed, the findings of the file as
    it is stay in the report, and nothing is cached (the error says why)."""
    result.fixed = 0
    result.applied = []
    result.findings, result.noqa_rows = first
    result.stamp = None
    return result


# ---- stopping (SIGINT, SIGTERM) -----------------------------------------------------------

# Set by the parent process when the run is interrupted; worker processes share it (fork).
_stop_event = None


def stop_requested() -> bool:
    return _stop_event is not None and _stop_event.is_set()


def init_worker(stop_event) -> None:
    """In a worker process: Ctrl-C (sent to the whole process group) and SIGTERM are the parent's
    to handle; the parent sets ``stop_event``, and a worker finishes or drops the file in hand
    (never half-written) and starts no other."""
    import signal

    global _stop_event
    _stop_event = stop_event
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


# ---- (de)serialisation, for the cache -------------------------------------------------------

def finding_to_tuple(finding: Finding) -> tuple:
    fix = finding.fix
    fix_t = None
    if fix is not None:
        edits = None if fix.edits is None else tuple(
            (e.line, e.col, e.end_line, e.end_col, e.content) for e in fix.edits)
        fix_t = (fix.applicability, fix.description, edits)
    return (finding.code, finding.line, finding.col, finding.message, finding.end_line, finding.end_col, fix_t,
            tuple(finding.related))


def finding_from_tuple(data: tuple) -> Finding:
    code, line, col, message, end_line, end_col, fix_t, related = data
    fix = None
    if fix_t is not None:
        applicability, description, edits = fix_t
        fix = Fix(applicability, description, None if edits is None else tuple(Edit(*edit) for edit in edits))
    return Finding(code, line, col, message, end_line, end_col, fix,
                   tuple((str(path), int(row), str(note)) for path, row, note in related))
