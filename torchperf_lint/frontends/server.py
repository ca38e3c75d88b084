"""``torchperf-lint server``: a Language Server over stdio (pygls + lsprotocol), as ``ruff server``.

What it does:
- diagnostics for open Python files, pushed on open, change and save (``textDocument/publishDiagnostics``)
  and answered on pull (``textDocument/diagnostic``); each carries ``source`` "torchperf-lint", the
  rule's code and a ``codeDescription`` that links the rule's docs page;
- code actions: the rule's fix (safe fixes as preferred quick fixes; unsafe ones only when the
  project's ``unsafe-fixes`` or the client's ``unsafeFixes`` setting says so), "add ``# noqa:
  TPLnnn``" (merged into an existing ``# noqa: ...``), and the source action "fix all"
  (``source.fixAll.torchperf-lint``);
- configuration as the CLI reads it for the document's project (``[tool.torchperf-lint]``, else
  flake8's files), re-read when a configuration file is saved;
- a change to one document re-lints the other open documents of its project (debounced): facts
  cross files (which functions run every step), and ``ProjectState.analyse`` is the one place
  where a project index meets the editor's unsaved texts.

The pure parts (positions, noqa comments, the lint of one text) import no pygls, so that the
linter installs and runs without the ``server`` extra; ``main`` says how to install it.

Documents are synchronised whole (``TextDocumentSyncKind.Full``): applying incremental changes
needs the client's notion of a line, and pygls splits lines as ``str.splitlines`` does (at form
feeds and Unicode separators too), which would put an edit in the wrong place of such a file.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from ..catalog import SAFE, UNSAFE
from ..findings import Edit, Finding, applicable
from ..fixing.lines import split_lines
from .config import Config, ConfigError, file_codes, load_config, resolve_codes
from .output import TOOL_NAME, docs_url

INSTALL_HINT = ('the language server needs pygls and lsprotocol: pip install "torchperf-lint[server]" '
                '(from a clone of the repository: pip install -e ".[server]")')
FIX_ALL_KIND = "source.fixAll.torchperf-lint"
# Files whose change changes the configuration of the projects below them.
CONFIG_FILES = frozenset(("pyproject.toml", "setup.cfg", "tox.ini", ".flake8"))
# Other open documents of a project wait this long after the last change before they are
# re-linted: typing in one file should not re-lint five others per keystroke.
DEFAULT_PROJECT_DEBOUNCE_S = 0.3


# ---- positions: our (line 1-based, column in code points) <-> the client's units ---------------

def to_client_column(line_text: str, column: int, encoding: str) -> int:
    """A code-point column of ``line_text`` in the client's position encoding."""
    prefix = line_text[:column]
    if encoding == "utf-32" or prefix.isascii():
        return column
    if encoding == "utf-8":
        return len(prefix.encode("utf-8"))
    return len(prefix.encode("utf-16-le")) // 2


def from_client_column(line_text: str, units: int, encoding: str) -> int:
    """The code-point column of a column in the client's units (clamped to the line)."""
    if encoding == "utf-32" or line_text.isascii():
        return min(units, len(line_text))
    counted = 0
    for index, char in enumerate(line_text):
        if counted >= units:
            return index
        counted += len(char.encode("utf-8")) if encoding == "utf-8" else (2 if ord(char) > 0xFFFF else 1)
    return len(line_text)


def _line_body(lines: Sequence[str], number: int) -> str:
    """Line ``number`` (1-based) without its line end; '' past the end."""
    if not 0 < number <= len(lines):
        return ""
    return lines[number - 1].rstrip("\r\n")


def client_position(lines: Sequence[str], line: int, column: int, encoding: str) -> Tuple[int, int]:
    """(0-based line, client column) of a 1-based line and code-point column."""
    if line > len(lines):  # the end of a text that ends with a line end
        return len(lines), 0
    return line - 1, to_client_column(_line_body(lines, line), column, encoding)


# ---- noqa ---------------------------------------------------------------------------------------

def noqa_edit(lines: Sequence[str], row: int, code: str) -> Optional[Edit]:
    """The edit that silences ``code`` on line ``row``: a new ``  # noqa: CODE`` at the end of the
    line, or ``CODE`` added to the line's ``# noqa: ...`` list. None where no comment can go (a
    line that continues with a backslash) or the code is already listed."""
    from .runner import NOQA_INLINE, _SPLIT_CODES

    text = _line_body(lines, row)
    if not text.strip() or text.endswith("\\"):
        return None
    match = NOQA_INLINE.search(text) if "#" in text else None
    if match is not None:
        codes_text = match.group("codes")
        if codes_text is None:
            return None  # a bare ``# noqa`` silences everything already
        if code in {part for part in _SPLIT_CODES.split(codes_text) if part}:
            return None
        # After the last code of the list (the group can end with the separator before a comment).
        end = match.start("codes") + len(codes_text.rstrip(", \t"))
        return Edit(row, end, row, end, f", {code}")
    content_end = len(text.rstrip(" \t"))
    return Edit(row, content_end, row, len(text), f"  # noqa: {code}")


# ---- one document -------------------------------------------------------------------------------

@dataclass
class LintResult:
    """The findings of one version of a document, with their noqa rows; fixes stay lazy (computed
    when a code action asks for them)."""

    version: Optional[int]
    text: str
    findings: List[Finding] = field(default_factory=list)
    noqa_rows: List[int] = field(default_factory=list)
    codes: FrozenSet[str] = frozenset()
    unsafe: bool = False
    line_length: int = 88
    path: str = "<untitled>"
    generation: int = 0  # the server's count of changes when this lint started
    _lines: Optional[List[str]] = None

    @property
    def lines(self) -> List[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines


class ProjectState:
    """One project (the root the CLI's configuration search finds): its configuration and the
    texts of its open documents."""

    def __init__(self, root: Path, config: Optional[Config], error: Optional[str] = None):
        self.root = root
        self.config = config
        self.error = error  # a configuration error: nothing is linted until it is fixed
        self.open_texts: Dict[str, str] = {}  # path -> the editor's text (unsaved edits included)
        self.codes = resolve_codes(config.select, config.extend_select, config.ignore) if config else frozenset()
        self._line_lengths: Dict[str, int] = {}
        self._targets: dict = {}  # project root -> target torch, read once (target_torch.resolve's memo)
        self._memos: dict = {}  # path -> what the document's last lint lends to its next (edit_reuse)

    def target_torch(self, path: str):
        """The file's target torch, as the CLI resolves it: the setting, else the project's torch
        requirement (rules.md "Target torch")."""
        from .target_torch import resolve

        setting = self.config.target_torch if self.config is not None else None
        return resolve(setting, path, self._targets, str(self.root))

    def codes_for(self, path: Optional[Path]) -> FrozenSet[str]:
        """The codes on for the file: per-file-ignores, test files and ``exclude`` as the CLI applies
        them to a file it is handed with ``--force-exclude`` (an editor names every file it opens)."""
        if self.config is None:
            return frozenset()
        if path is None:
            return self.codes
        from .config import _excluded_with_parents

        if _excluded_with_parents([*self.config.exclude, *self.config.extend_exclude], path, self.config.root):
            return frozenset()
        return file_codes(self.config, self.codes, path)

    def line_length(self, path: Optional[Path]) -> int:
        from .line_length import configured_line_length

        if self.config is not None and self.config.line_length:
            return self.config.line_length
        where = str(path.parent) if path is not None else str(self.root)
        if where not in self._line_lengths:
            self._line_lengths[where] = configured_line_length(path if path is not None else self.root)
        return self._line_lengths[where]

    def analyse(self, path: str, text: str, codes: FrozenSet[str], line_length: int):
        """The findings (and noqa rows) of one text of the project: the one place where the
        project's cross-file facts meet the editor. ``self.open_texts`` holds the unsaved texts of
        the project's open documents; a project index reads them instead of the files on disk."""
        from ..analysis.edit_reuse import DocumentMemo, reusing
        from ..analysis.project_index import project_for
        from .runner import analyse

        project = project_for(path)
        if project is not None:  # the index reads the unsaved texts, not the files on disk
            project.set_overlays(self.open_texts)
        memo = self._memos.get(path)
        if memo is None:
            memo = self._memos[path] = DocumentMemo()
        with reusing(memo):  # a full lint of the text, reusing what the last one parsed
            return analyse(text, path, codes, line_length, self.target_torch(path))

    def forget(self, path: str) -> None:
        """The document was closed: its unsaved text and its memo go."""
        self.open_texts.pop(path, None)
        self._memos.pop(path, None)


class Projects:
    """The projects of the open documents, by root; configuration is read once per directory and
    again after a configuration file changes."""

    def __init__(self):
        self._by_directory: Dict[str, ProjectState] = {}
        self._by_root: Dict[str, ProjectState] = {}
        self._lock = threading.Lock()

    def for_path(self, path: Optional[Path]) -> ProjectState:
        directory = str(path.parent) if path is not None else os.getcwd()
        with self._lock:
            project = self._by_directory.get(directory)
            if project is None:
                try:
                    config = load_config(Path(directory))
                    root, error = config.root, None
                except ConfigError as problem:
                    config, error = None, str(problem)
                    from .config import find_config

                    root = find_config(Path(directory))[2]
                project = self._by_root.get(str(root))
                if project is None or (project.config is None) != (config is None) or (
                        config is not None and project.config is not None and config.path != project.config.path):
                    project = ProjectState(root, config, error)
                    self._by_root[str(root)] = project
                self._by_directory[directory] = project
            return project

    def forget_configuration(self) -> List[ProjectState]:
        """After a configuration file changed: every project reads its configuration again. Returns
        the old projects (their open documents need a new lint)."""
        with self._lock:
            old = list(self._by_root.values())
            self._by_directory.clear()
            self._by_root.clear()
            return old

    def all(self) -> List[ProjectState]:
        with self._lock:
            return list(self._by_root.values())


def lint_text(projects: Projects, path: Optional[Path], text: str, version: Optional[int],
              unsafe_override: Optional[bool]) -> Tuple[LintResult, Optional[str]]:
    """Lint one document's text: (result, configuration error to show or None)."""
    project = projects.for_path(path)
    filename = str(path) if path is not None else "<untitled>"
    if path is not None:
        project.open_texts[filename] = text
    codes = project.codes_for(path)
    unsafe = unsafe_override if unsafe_override is not None else bool(project.config and project.config.unsafe_fixes)
    line_length = project.line_length(path)
    result = LintResult(version, text, codes=codes, unsafe=unsafe, line_length=line_length, path=filename)
    if codes:
        result.findings, result.noqa_rows = project.analyse(filename, text, codes, line_length)
    return result, project.error


def documents_to_relint(projects: Projects, open_documents: Dict[str, Optional[Path]], changed: Optional[str],
                        roots: Optional[set] = None) -> List[str]:
    """The open documents (uri -> path) whose diagnostics a change of the document ``changed`` (or
    of any file of the projects ``roots``) may change.

    Facts cross files: a helper module's function runs every step when a training loop of another
    file calls it. Today that is every other open document of the project; a project index that
    knows which files import which narrows it here, and nowhere else."""
    if roots is None:
        path = open_documents.get(changed) if changed is not None else None
        roots = {str(projects.for_path(path).root)}
    return [uri for uri, path in open_documents.items()
            if uri != changed and path is not None and str(projects.for_path(path).root) in roots]


# ---- what the client sees -----------------------------------------------------------------------

def diagnostic_range(result: LintResult, finding: Finding, encoding: str):
    """((line, character), (line, character)) in the client's units, 0-based lines."""
    lines = result.lines
    start = client_position(lines, finding.line, finding.col, encoding)
    if finding.end_line:
        end = client_position(lines, finding.end_line, finding.end_col, encoding)
    else:  # no end known (TPL900): to the end of the line, so that editors can show it
        body = _line_body(lines, finding.line)
        end = client_position(lines, finding.line, max(finding.col, len(body)), encoding)
    return start, end


def edit_range(result: LintResult, edit: Edit, encoding: str):
    lines = result.lines
    return (client_position(lines, edit.line, edit.col, encoding),
            client_position(lines, edit.end_line, edit.end_col, encoding))


def fix_all(result: LintResult) -> Optional[Tuple[Edit, int]]:
    """The whole fix run of the document as one edit over the span that changes (fixes that earlier
    fixes make possible included), and the number of fixes; None when nothing changes or the fixed
    text would not parse."""
    from .runner import fix_text

    if not any(applicable(f, result.unsafe) for f in result.findings):
        return None
    new_text, total, _, _, error, _ = fix_text(result.text, result.path, result.codes, result.unsafe,
                                               result.line_length, (result.findings, result.noqa_rows))
    if error or new_text == result.text:
        return None
    return changed_span(result.text, new_text), total


def changed_span(old: str, new: str) -> Edit:
    """One edit that turns ``old`` into ``new``: the differing middle, in line and column terms of
    ``old`` (whole lines, so that a \\r\\n is never split)."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (tail < min(len(old_lines), len(new_lines)) - head
           and old_lines[len(old_lines) - 1 - tail] == new_lines[len(new_lines) - 1 - tail]):
        tail += 1
    content = "".join(new_lines[head:len(new_lines) - tail])
    end = len(old_lines) - tail  # first unchanged line at the end (0-based), or the end of the text
    return Edit(head + 1, 0, end + 1, 0, content)


# ---- the server ---------------------------------------------------------------------------------

def _path_of(uri: str) -> Optional[Path]:
    if not uri.startswith("file:"):
        return None
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return Path(path)


def lintable(uri: str, language_id: str) -> bool:
    """Python files and unsaved Python buffers. Not a notebook's cells (``vscode-notebook-cell:``):
    one cell alone lacks the facts of the others (a sampler made in one cell, its ``set_epoch`` in
    the next) and would get findings the whole notebook does not; the CLI lints notebooks whole.
    Not a notebook's JSON either."""
    if not uri.startswith(("file:", "untitled:")):
        return False
    path = _path_of(uri)
    if path is not None and path.suffix in (".py", ".pyi"):
        return True
    return language_id == "python" and (path is None or path.suffix != ".ipynb")


@dataclass
class Settings:
    """What the client may set (initializationOptions, or ``workspace/didChangeConfiguration``'s
    settings, flat or under "torchperf-lint"): ``unsafeFixes`` (true/false; default: the project's
    ``unsafe-fixes``), ``diagnosticMode`` ("push", "pull" or "auto": push unless the client says
    it pulls) and ``projectDebounceMs`` (the wait before other open files of a project are
    re-linted)."""

    unsafe_fixes: Optional[bool] = None
    diagnostic_mode: str = "auto"
    project_debounce_s: float = DEFAULT_PROJECT_DEBOUNCE_S

    def update(self, raw) -> None:
        if not isinstance(raw, dict):
            return
        for key in (TOOL_NAME, "torchperfLint", "torchperf_lint"):
            if isinstance(raw.get(key), dict):
                raw = raw[key]
                break
        if "unsafeFixes" in raw and (raw["unsafeFixes"] is None or isinstance(raw["unsafeFixes"], bool)):
            self.unsafe_fixes = raw["unsafeFixes"]  # null: the project's setting again
        if raw.get("diagnosticMode") in ("push", "pull", "auto"):
            self.diagnostic_mode = raw["diagnosticMode"]
        debounce = raw.get("projectDebounceMs")
        if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and debounce >= 0:
            self.project_debounce_s = debounce / 1000


def build_server():
    """The pygls server with every handler registered (pygls imported here, not at module level)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

    from .. import __version__

    server = LanguageServer(TOOL_NAME, __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
    projects = Projects()
    settings = Settings()
    results: Dict[str, LintResult] = {}  # uri -> the last lint of the document
    timers: Dict[str, asyncio.TimerHandle] = {}
    # One lint at a time, off the event loop: messages keep being read while a file is linted.
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchperf-lint")
    # "generation" counts the changes that can change any document's findings (a text, a file on
    # disk, the configuration): a lint is reused only within the generation it was made in.
    state = {"pull": False, "refresh": False, "watch": False, "shown_errors": set(), "generation": 0}

    def encoding() -> str:
        value = server.workspace.position_encoding
        return str(getattr(value, "value", value) or "utf-16")

    def push() -> bool:
        if settings.diagnostic_mode == "auto":
            return not state["pull"]
        return settings.diagnostic_mode == "push"

    def to_range(pair) -> "lsp.Range":
        (line, char), (end_line, end_char) = pair
        return lsp.Range(lsp.Position(line, char), lsp.Position(end_line, end_char))

    def to_diagnostic(result: LintResult, finding: Finding) -> "lsp.Diagnostic":
        data = None
        if finding.fix is not None:
            data = {"fix": finding.fix.applicability}
        return lsp.Diagnostic(
            range=to_range(diagnostic_range(result, finding, encoding())),
            message=finding.message,
            severity=lsp.DiagnosticSeverity.Error if finding.code == "TPL900" else lsp.DiagnosticSeverity.Warning,
            code=finding.code,
            code_description=lsp.CodeDescription(href=docs_url(finding.code)),
            source=TOOL_NAME,
            data=data,
        )

    def current(uri: str):
        """(version, text) of an open document, or None."""
        try:
            document = server.workspace.get_text_document(uri)
        except Exception:
            return None
        if document is None or uri not in open_uris:
            return None
        return document.version, document.source

    open_uris: Dict[str, Optional[Path]] = {}

    def show_error(message: str) -> None:
        if message in state["shown_errors"]:
            return
        state["shown_errors"].add(message)
        server.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, f"{TOOL_NAME}: {message}"))

    def lint_latest(uri: str):
        """In the worker thread: lint the document's newest text, read when the worker gets to it
        (changes that came while this waited in the queue are included), unless that text was
        linted already. So a burst of changes costs one lint per change still waiting, not one
        per change sent. (result or None when the document was closed, configuration error)."""
        snapshot = current(uri)
        if snapshot is None:
            return None, None
        version, text = snapshot
        generation = state["generation"]
        cached = results.get(uri)
        if cached is not None and (cached.version, cached.text, cached.generation) == (version, text, generation):
            return cached, None
        try:
            result, error = lint_text(projects, open_uris.get(uri), text, version, settings.unsafe_fixes)
        except Exception as problem:  # a bug of ours: say so, keep serving the other documents
            return None, f"internal error {type(problem).__name__}: {problem} (please report it)"
        result.generation = generation
        if current(uri) == (version, text):
            results[uri] = result
        return result, error

    async def lint(uri: str) -> Optional[LintResult]:
        """The lint of the document's newest text (see lint_latest); None when it was closed."""
        if current(uri) is None:
            return None
        result, error = await asyncio.get_running_loop().run_in_executor(executor, lint_latest, uri)
        if error:
            show_error(error)
        return result

    async def lint_and_publish(uri: str) -> None:
        timers.pop(uri, None)
        snapshot = current(uri)
        if snapshot is None:
            return
        result = await lint(uri)
        if result is None or current(uri) != (result.version, result.text):
            return  # a newer text is on its way; its own lint publishes
        if push():
            server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, version=result.version, diagnostics=[to_diagnostic(result, f) for f in result.findings]))

    def schedule(uri: str, delay: float) -> None:
        old = timers.pop(uri, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        timers[uri] = loop.call_later(delay, lambda: loop.create_task(lint_and_publish(uri)))

    def relint_project_of(changed: Optional[str], project_roots: Optional[set] = None) -> None:
        """The other open documents of the changed document's project (or of ``project_roots``),
        after the debounce: a change in one file can change what another's step bodies do."""
        state["generation"] += 1  # what was linted before this change may be stale now
        others = documents_to_relint(projects, open_uris, changed, project_roots)
        for uri in others:
            schedule(uri, settings.project_debounce_s)
        if others and not push() and state["refresh"]:
            loop = asyncio.get_running_loop()
            loop.call_later(settings.project_debounce_s, lambda: server.workspace_diagnostic_refresh(None))

    def configuration_changed() -> None:
        old = projects.forget_configuration()
        results.clear()
        state["shown_errors"].clear()
        relint_project_of(None, {str(p.root) for p in old} | {str(projects.for_path(p).root) for p in open_uris.values()})

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        settings.update(params.initialization_options)
        text_caps = params.capabilities.text_document
        state["pull"] = bool(text_caps is not None and text_caps.diagnostic is not None)
        workspace_caps = params.capabilities.workspace
        state["refresh"] = bool(workspace_caps is not None and workspace_caps.diagnostics is not None
                                and workspace_caps.diagnostics.refresh_support)
        state["watch"] = bool(workspace_caps is not None and workspace_caps.did_change_watched_files is not None
                              and workspace_caps.did_change_watched_files.dynamic_registration)

    @server.feature(lsp.INITIALIZED)
    def initialized(params: lsp.InitializedParams) -> None:
        """Ask the client to report changes on disk: a helper module changed by a checkout or
        another editor changes what the open files' step bodies do, and a configuration file the
        rules that are on."""
        if not state["watch"]:
            return
        watchers = [lsp.FileSystemWatcher(glob_pattern=f"**/{name}")
                    for name in ("*.py", "*.pyi", *sorted(CONFIG_FILES))]
        server.client_register_capability(lsp.RegistrationParams(registrations=[lsp.Registration(
            id="torchperf-lint-watched-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: lsp.DidChangeConfigurationParams) -> None:
        settings.update(params.settings)
        results.clear()
        relint_project_of(None, {str(projects.for_path(p).root) for p in open_uris.values()})

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        if not lintable(uri, params.text_document.language_id):
            return
        open_uris[uri] = _path_of(uri)
        await lint_and_publish(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri not in open_uris:
            return  # a document this server does not lint (a notebook cell)
        relint_project_of(uri)
        await lint_and_publish(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = _path_of(uri)
        if path is not None and path.name in CONFIG_FILES:
            configuration_changed()
            return
        if uri in open_uris:
            await lint_and_publish(uri)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: lsp.DidChangeWatchedFilesParams) -> None:
        paths = [_path_of(change.uri) for change in params.changes]
        if any(p is not None and p.name in CONFIG_FILES for p in paths):
            configuration_changed()
            return
        sources = [p for p in paths if p is not None and p.suffix in (".py", ".pyi")]
        roots = {str(projects.for_path(p).root) for p in sources}
        if roots:
            from ..analysis.project_index import project_for

            for source in sources:
                try:
                    index = project_for(str(source))
                except (OSError, ValueError):  # (as the engine asks for it: no index, no facts from it)
                    continue
                if index is not None:
                    index.files_changed()  # who imports whom is read from the disk again
            results.clear()  # a file on disk changed: what depends on it may change too
            relint_project_of(None, roots)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = open_uris.pop(uri, None)
        timer = timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        results.pop(uri, None)
        if path is not None:
            project = projects.for_path(path)
            project.forget(str(path))
            relint_project_of(None, {str(project.root)})  # its saved text is what counts now
        if push():
            server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC,
                    lsp.DiagnosticOptions(identifier=TOOL_NAME, inter_file_dependencies=True,
                                          workspace_diagnostics=False))
    async def pull_diagnostics(params: lsp.DocumentDiagnosticParams):
        uri = params.text_document.uri
        result = await lint(uri)
        if result is None:
            return lsp.RelatedFullDocumentDiagnosticReport(items=[])
        result_id = f"{result.version}:{hash(result.text)}:{result.unsafe}"
        if params.previous_result_id == result_id:
            return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return lsp.RelatedFullDocumentDiagnosticReport(
            items=[to_diagnostic(result, f) for f in result.findings], result_id=result_id)

    def wants(only: Optional[Sequence[str]], kind: str) -> bool:
        if not only:  # no filter: every kind
            return True
        return any(kind == k or kind.startswith(k + ".") for k in only)

    def text_edit(result: LintResult, edit: Edit) -> "lsp.TextEdit":
        return lsp.TextEdit(range=to_range(edit_range(result, edit, encoding())), new_text=edit.content)

    def workspace_edit(uri: str, result: LintResult, edits) -> "lsp.WorkspaceEdit":
        document = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=result.version)
        return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
            text_document=document, edits=[text_edit(result, e) for e in edits])])

    def quick_fixes(uri: str, result: LintResult, first_line: int, last_line: int):
        actions = []
        noqa_actions = []
        for finding, row in zip(result.findings, result.noqa_rows):
            end_line = finding.end_line or finding.line
            if end_line < first_line or finding.line > last_line:
                continue
            diagnostic = to_diagnostic(result, finding)
            fix = finding.fix
            if fix is not None and (fix.applicability == SAFE or (result.unsafe and fix.applicability == UNSAFE)):
                edits = fix.edits
                if edits:
                    title = f"{finding.code}: {fix.description[:1].upper()}{fix.description[1:]}"
                    if fix.applicability == UNSAFE:
                        title += " (unsafe)"
                    actions.append(lsp.CodeAction(
                        title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                        is_preferred=fix.applicability == SAFE, edit=workspace_edit(uri, result, edits)))
            edit = noqa_edit(result.lines, row, finding.code)
            if edit is not None:
                noqa_actions.append(lsp.CodeAction(
                    title=f"{finding.code}: Add `# noqa: {finding.code}`", kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic], edit=workspace_edit(uri, result, [edit])))
        return actions + noqa_actions  # the fixes first: editors list them in this order

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix,
                                                             lsp.CodeActionKind.SourceFixAll, FIX_ALL_KIND]))
    async def code_action(params: lsp.CodeActionParams):
        uri = params.text_document.uri
        result = await lint(uri)
        if result is None:
            return None
        only = params.context.only
        actions = []
        if wants(only, lsp.CodeActionKind.QuickFix):
            first_line, last_line = params.range.start.line + 1, params.range.end.line + 1
            loop = asyncio.get_running_loop()
            # Computing a fix renders the finding's unit: in the worker, as the lint.
            actions.extend(await loop.run_in_executor(executor, quick_fixes, uri, result, first_line, last_line))
        if wants(only, FIX_ALL_KIND):
            loop = asyncio.get_running_loop()
            try:
                whole = await loop.run_in_executor(executor, fix_all, result)
            except Exception as problem:  # as in lint_latest: no action rather than a failed request
                show_error(f"internal error {type(problem).__name__}: {problem} (please report it)")
                whole = None
            if whole is not None:
                edit, count = whole
                actions.append(lsp.CodeAction(
                    title=f"{TOOL_NAME}: Fix all auto-fixable problems ({count})", kind=FIX_ALL_KIND,
                    edit=workspace_edit(uri, result, [edit])))
        return actions or None

    @server.feature(lsp.SHUTDOWN)
    def shutdown(*_args) -> None:
        for timer in timers.values():
            timer.cancel()
        timers.clear()
        executor.shutdown(wait=False, cancel_futures=True)

    return server


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the server on stdin/stdout until the client says ``exit``."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        print(f"torchperf-lint: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    server = build_server()
    server.start_io()
    # As the protocol says: 0 after shutdown then exit, 1 after an exit without shutdown.
    return 0 if getattr(server.protocol, "_shutdown", False) else 1
