"""Jupyter notebooks (``.ipynb``): their code cells linted as one module, findings per cell, fixes
written back into the cells they change.

- The notebook is read with the standard library's ``json`` (nbformat is not needed to lint; the
  tests validate what ``--fix`` writes with it). A notebook whose kernel is not Python is skipped.
- The code cells are joined in order into one module, as ruff does, so that facts flow across
  cells: a loader built in one cell and iterated in another, a function defined early and called
  from a later cell's step loop. Between two cells the module has one comment line (a boundary
  that no fix touches); a cell's line N is module line ``start + N - 1``.
- IPython syntax is not Python: a line magic (``%matplotlib inline``), a shell line (``!pip install
  torch``), an assignment from either (``files = !ls``) and a help line (``torch.zeros?``) become a
  ``pass`` at the same indentation, the rest of the cell stays (its ``import torch`` too); a cell
  magic whose body is Python (``%%time``, ``%%timeit``, ``%%capture``) loses its first line only;
  any other cell magic (``%%bash``, ``%%writefile``) leaves its cell out of the module.
- Positions are reported per cell: ``cell N`` is the Nth code cell (markdown and raw cells are not
  counted: after "Run All" it is the cell shown as ``In [N]``), lines and columns within it.
- ``--fix`` rewrites the ``source`` of the cells it changes, in place in the file's text: outputs,
  metadata, every other byte of the JSON (indent, key order, escaping, trailing newline) stay.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..findings import Edit, Finding, Fix
from ..fixing.lines import split_lines

NOTEBOOK_SUFFIX = ".ipynb"
_NOTEBOOK_LINE = re.compile(r"(\S+\.ipynb):(\d+)\b")
# Cell magics whose body is Python: only their first line is skipped.
PYTHON_CELL_MAGICS = frozenset(("time", "timeit", "capture", "prun", "python", "python3", "debug"))
_MAGIC_ASSIGNMENT = re.compile(r"^\s*[\w.\[\], ]+?\s*=\s*[%!]")
_HELP = re.compile(r"^\s*(?:\?{1,2}[\w.]+|[\w.\[\]()]+\?{1,2})\s*$")
_INDENT = re.compile(r"^[ \t]*")


class NotebookError(Exception):
    """The file is not a notebook this tool can read (reported as TPL900)."""


@dataclass
class CodeCell:
    index: int  # position in the notebook's "cells" list
    number: int  # 1-based among the code cells: the "cell N" of reports
    text: str  # the cell's source, joined
    start: int = 0  # module line of its first line (1-based); 0: not in the module (a %%bash cell)
    lines: int = 0  # its lines in the module
    skipped: Dict[str, List[str]] = dataclasses.field(default_factory=dict)  # placeholder -> original lines


@dataclass
class Notebook:
    raw: str
    data: dict
    cells: List[CodeCell]
    source: str  # the module: the code cells joined
    token: str  # makes the boundary and placeholder lines unique in this notebook

    # ---- positions -------------------------------------------------------------------------

    def _in_module(self) -> List[CodeCell]:
        return [c for c in self.cells if c.start]

    def cell_of(self, line: int) -> Tuple[Optional[CodeCell], int]:
        """The cell that holds module line ``line``, and the line within it (1-based)."""
        cells = self._in_module()
        starts = [c.start for c in cells]
        position = bisect.bisect_right(starts, line) - 1
        if position < 0:
            return None, line
        cell = cells[position]
        return cell, min(max(1, line - cell.start + 1), max(1, cell.lines))

    def locate(self, findings: Sequence[Finding], rows: Sequence[int]):
        """(findings, noqa rows, cell numbers) with lines within their cells; the edits of a fix
        too (a fix lies within one cell; one whose edits span cells is dropped)."""
        located, located_rows, numbers = [], [], []
        for finding, row in zip(findings, rows):
            cell, line = self.cell_of(finding.line)
            number = cell.number if cell is not None else 1
            shift = (cell.start - 1) if cell is not None else 0
            end_line = finding.end_line - shift if finding.end_line else 0
            if end_line and cell is not None:
                end_line = min(end_line, cell.lines + 1)
            fix = finding.fix
            if fix is not None and fix.edits is not None:
                edits = []
                for edit in fix.edits:
                    if self.cell_of(edit.line)[0] is not cell or self.cell_of(edit.end_line)[0] is not cell:
                        edits = None
                        break
                    edits.append(Edit(edit.line - shift, edit.col, edit.end_line - shift, edit.end_col, edit.content))
                fix = Fix(fix.applicability, fix.description, tuple(edits)) if edits is not None else None
            message = self._cell_lines_in(finding.message) if finding.code == "TPL900" else finding.message
            # A call chain ("called every step from train.ipynb:20") names module lines of this
            # notebook (a notebook is no module of a project index): the cell's, as reports say.
            message = _NOTEBOOK_LINE.sub(self._cell_position, message)
            related = tuple((path, self.cell_of(row)[1], f"cell {self.cell_of(row)[0].number}: {note}")
                            if path.endswith(NOTEBOOK_SUFFIX) and self.cell_of(row)[0] is not None
                            else (path, row, note) for path, row, note in finding.related)
            located.append(dataclasses.replace(finding, line=line, end_line=max(0, end_line), fix=fix,
                                               message=message, related=related))
            located_rows.append(max(1, row - shift))
            numbers.append(number)
        return located, located_rows, numbers

    def _cell_position(self, match) -> str:
        cell, line = self.cell_of(int(match.group(2)))
        return f"{match.group(1)}:cell {cell.number}:{line}" if cell is not None else match.group(0)

    def _cell_lines_in(self, message: str) -> str:
        """TPL900's reason names module lines ("syntax error at line 12", "lines 4-9"): the cell's."""

        def cell_line(number: str) -> str:
            cell, line = self.cell_of(int(number))
            return f"{line} of cell {cell.number}" if cell is not None else number

        message = re.sub(r"\blines (\d+)-(\d+)", lambda m: "lines " + cell_line(m.group(1)).split(" of ")[0] + "-"
                         + cell_line(m.group(2)), message)
        return re.sub(r"\bline (\d+)", lambda m: "line " + cell_line(m.group(1)), message)

    # ---- writing back ----------------------------------------------------------------------

    def cell_texts(self, module: str) -> List[str]:
        """The text of every code cell in the module ``module`` (a fixed version of ``source``):
        split at the boundaries, IPython lines put back. NotebookError when a fix touched a
        boundary or a placeholder (never expected: they are comment and ``pass`` lines)."""
        parts: List[List[str]] = [[]]
        boundaries = 0
        for line in split_lines(module):
            if line.rstrip("\r\n") == self._boundary(boundaries + 1):
                boundaries += 1
                parts.append([])
            else:
                parts[-1].append(line)
        in_module = self._in_module()
        if boundaries != len(in_module):
            raise NotebookError("a fix changed the cell boundaries; nothing was written")
        texts = []
        by_index = {}
        for cell, lines in zip(in_module, parts[1:]):
            restored = []
            for line in lines:
                original = cell.skipped.get(line.rstrip("\r\n"))
                restored.extend(original if original is not None else [line])
            if sum(1 for line in lines if line.rstrip("\r\n") in cell.skipped) != len(cell.skipped):
                raise NotebookError("a fix changed an IPython line; nothing was written")
            text = "".join(restored)
            if not cell.text.endswith("\n") and text.endswith("\n"):
                text = text[:-1]  # the newline the join added
            by_index[cell.index] = text
        for cell in self.cells:
            texts.append(by_index.get(cell.index, cell.text))
        return texts

    def _boundary(self, number: int) -> str:
        return f"# torchperf-lint cell {number} {self.token}"

    def write(self, module: str) -> Tuple[str, List[int]]:
        """The notebook's text with the sources of the changed cells replaced, and the numbers of
        those cells. Every other byte of the file is kept."""
        texts = self.cell_texts(module)
        spans = source_spans(self.raw)
        changed = [(cell, text) for cell, text in zip(self.cells, texts) if text != cell.text]
        out = self.raw
        for cell, text in sorted(changed, key=lambda pair: -pair[0].index):
            if cell.index not in spans:
                raise NotebookError(f"cannot find the source of cell {cell.number} in the file")
            begin, end = spans[cell.index]
            out = out[:begin] + render_source(out[begin:end], text, self.raw) + out[end:]
        return out, [cell.number for cell, _ in changed]

    def diff(self, module: str, display: str) -> str:
        """A unified diff per changed cell (``nb.ipynb:cell 3``)."""
        import difflib

        out = []
        for cell, text in zip(self.cells, self.cell_texts(module)):
            if text == cell.text:
                continue
            name = f"{display}:cell {cell.number}"
            for line in difflib.unified_diff(split_lines(cell.text), split_lines(text), fromfile=name, tofile=name):
                out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)


# ---- reading --------------------------------------------------------------------------------

def _cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        if not all(isinstance(part, str) for part in source):
            raise NotebookError("a cell's source is not text")
        return "".join(source)
    if not isinstance(source, str):
        raise NotebookError("a cell's source is not text")
    return source


def _is_python(data: dict) -> bool:
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    for key in ("language_info", "kernelspec"):
        info = metadata.get(key)
        if isinstance(info, dict):
            language = info.get("name") if key == "language_info" else info.get("language")
            if isinstance(language, str) and language:
                return language.lower() == "python"
    return True  # no language recorded: Jupyter's default kernel is Python


def read_notebook(raw: bytes) -> Optional[Notebook]:
    """The notebook of a file's bytes; None when its kernel is not Python. NotebookError when it
    is not a notebook (not JSON, no cells)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(f"the notebook is not valid UTF-8: {error.reason}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = json.loads(text)
    except ValueError as error:
        raise NotebookError(f"the notebook is not valid JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("the file has no notebook cells (not an nbformat 4 notebook)")
    if not _is_python(data):
        return None
    token = _token(text)
    cells: List[CodeCell] = []
    for index, cell in enumerate(data["cells"]):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cells.append(CodeCell(index, len(cells) + 1, _cell_source(cell)))
    notebook = Notebook(text, data, cells, "", token)
    module: List[str] = []
    placeholder = 0
    for cell in cells:
        lines = _python_lines(cell, token, placeholder)
        if lines is None:
            continue  # a %%bash cell and the like: not Python
        placeholder += len(cell.skipped)
        module.append(notebook._boundary(sum(1 for c in cells if c.start) + 1) + "\n")
        cell.start = len(module) + 1
        cell.lines = max(1, len(lines))
        module.extend(lines or ["\n"])
    notebook.source = "".join(module)
    return notebook


def _token(text: str) -> str:
    """A word that does not occur in the notebook: its boundary and placeholder lines cannot be
    mistaken for the user's."""
    for number in range(1000):
        token = f"tpl{number:03d}"
        if token not in text:
            return token
    return "tpl-" + str(abs(hash(text)))


def _python_lines(cell: CodeCell, token: str, first_placeholder: int) -> Optional[List[str]]:
    """The cell's lines as Python (each ending with a newline), IPython lines replaced by
    placeholders recorded in ``cell.skipped``; None for a cell magic whose body is not Python."""
    lines = split_lines(cell.text)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    out: List[str] = []
    position = 0
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    while position < len(lines):
        line = lines[position]
        stripped = line.strip()
        cell_magic = position == first and stripped.startswith("%%")
        if cell_magic:
            name = stripped[2:].split(None, 1)[0] if stripped[2:].split() else ""
            if name not in PYTHON_CELL_MAGICS:
                cell.skipped.clear()
                return None
        if cell_magic or _is_ipython_line(line):
            taken = [line]
            while taken[-1].rstrip("\r\n").endswith("\\") and position + len(taken) < len(lines):
                taken.append(lines[position + len(taken)])  # a shell command continued
            indent = _INDENT.match(line).group(0) if not cell_magic else ""
            for original in taken:  # one placeholder per line: the line count stays
                key = f"{indent}pass  # {token} IPython line {first_placeholder + len(cell.skipped) + 1}"
                cell.skipped[key] = [original]
                out.append(key + "\n")
            position += len(taken)
            continue
        out.append(line)
        position += 1
    return out


def _is_ipython_line(line: str) -> bool:
    stripped = line.lstrip()
    if stripped.startswith(("%", "!")):
        return True
    return bool(_MAGIC_ASSIGNMENT.match(line) or _HELP.match(line.rstrip("\r\n")))


# ---- the file's text: where each cell's source is, and how it is written -------------------

_WHITESPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def source_spans(raw: str) -> Dict[int, Tuple[int, int]]:
    """Cell index -> (begin, end) of the text of its ``source`` value in the notebook's JSON."""
    decoder = json.JSONDecoder()
    spans: Dict[int, Tuple[int, int]] = {}

    def skip_ws(at: int) -> int:
        return _WHITESPACE.match(raw, at).end()

    at = skip_ws(0)
    if raw[at:at + 1] != "{":
        return spans
    at = skip_ws(at + 1)
    while at < len(raw) and raw[at] != "}":
        key_match = _STRING.match(raw, at)
        if key_match is None:
            return spans
        key = json.loads(key_match.group(0))
        at = skip_ws(key_match.end())
        at = skip_ws(at + 1)  # the colon
        if key == "cells" and raw[at] == "[":
            at = skip_ws(at + 1)
            index = 0
            while raw[at] != "]":
                if raw[at] == "{":
                    at = _scan_cell(raw, at, index, spans, decoder, skip_ws)
                else:
                    at = decoder.raw_decode(raw, at)[1]
                index += 1
                at = skip_ws(at)
                if raw[at] == ",":
                    at = skip_ws(at + 1)
            at += 1
        else:
            at = decoder.raw_decode(raw, at)[1]
        at = skip_ws(at)
        if at < len(raw) and raw[at] == ",":
            at = skip_ws(at + 1)
    return spans


def _scan_cell(raw: str, at: int, index: int, spans, decoder, skip_ws) -> int:
    at = skip_ws(at + 1)
    while raw[at] != "}":
        key_match = _STRING.match(raw, at)
        key = json.loads(key_match.group(0))
        at = skip_ws(skip_ws(key_match.end()) + 1)
        end = decoder.raw_decode(raw, at)[1]
        if key == "source":
            spans[index] = (at, end)
        at = skip_ws(end)
        if raw[at] == ",":
            at = skip_ws(at + 1)
    return at + 1


def render_source(old_value: str, text: str, raw: str) -> str:
    """The JSON of a cell's new source, in the form of the old value: a list of lines (nbformat's
    form) with the old list's indentation, or one string."""
    ensure_ascii = raw.isascii() and "\\u" in raw  # a file written with escapes keeps them
    if old_value.lstrip().startswith('"'):
        return json.dumps(text, ensure_ascii=ensure_ascii)
    parts = text.splitlines(True)  # as nbformat splits a source into its list
    if not parts:
        return "[]"
    layout = re.match(r"\[(\s*)", old_value)
    inner = layout.group(1) if layout and old_value.strip() != "[]" else ""
    if "\n" not in inner:  # a list on one line: keep it on one line
        return "[" + ", ".join(json.dumps(p, ensure_ascii=ensure_ascii) for p in parts) + "]"
    closing = re.search(r"(\s*)\]\s*$", old_value).group(1)
    return "[" + inner + ("," + inner).join(json.dumps(p, ensure_ascii=ensure_ascii) for p in parts) + closing + "]"
