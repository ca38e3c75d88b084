"""``torchperf-lint check --runtime-report report.json PATHS``: what a run saw, next to the static
findings. Torch-free: it reads the file ``runtime_guard`` wrote (``RUNTIME_GUARD_REPORT``).

- A static finding the run confirmed (same code, the observed line inside the finding's span) keeps
  its place and says so: ``... (confirmed at run time: 1,200 host syncs)``.
- An observation the linter could not see (a sync inside a helper in another module, a value only
  known at run time) becomes a finding of its own at the observed line: same code, the run's
  message, ``(seen at run time: ...)``.

Only files among the checked PATHS get runtime findings, only for the codes selected for that
file, and ``# noqa`` silences them as it silences the static ones. Under torchrun the guard writes
one file per rank (``report.rank0.json``, ...): naming ``report.json`` reads them all, and the
observations of one line are added up over the ranks. JSON (the guard's list of the CLI's JSON
items) and SARIF (``.sarif``; relative URIs resolved against the run's root, or the current
directory when that root does not exist here) are both read. Paths are compared after resolving
symlinks, so a report written with absolute paths matches the CLI's files however they were named.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple
from urllib.parse import unquote, urlparse

from .config import ConfigError
from ..findings import Finding
from .runner import CHECK, FileResult, apply_noqa, decode, file_is_noqa


# The guard's action words (runtime_guard/events.py) that mean "this happened in the run".
CONFIRMING = ("fixed", "observed", "suggested")


@dataclass(frozen=True)
class Observation:
    code: str
    path: str  # absolute, symlinks resolved
    line: int  # 1-based
    count: int
    action: str
    message: str
    rank: int = 0
    steps: Optional[int] = None  # optimizer steps of that rank's run (None: not in the report)


# ---- reading ------------------------------------------------------------------------------------

def report_files(given: str) -> List[Path]:
    """The file named, or when it does not exist the per-rank files written under torchrun."""
    path = Path(given)
    if path.is_file():
        return [path]
    stem, dot, suffix = path.name.rpartition(".")
    if not dot or not stem:
        stem, suffix = path.name, ""
    tail = f".{suffix}" if suffix else ""
    rank_file = re.compile(re.escape(stem) + r"\.rank(\d+)" + re.escape(tail) + "$")
    found = []
    try:
        candidates = list(path.parent.iterdir())
    except OSError:
        candidates = []
    for candidate in candidates:
        match = rank_file.match(candidate.name)
        if match and candidate.is_file():
            found.append((int(match.group(1)), candidate))
    if not found:
        raise ConfigError(f"--runtime-report {given}: no such file (nor per-rank files "
                          f"{stem}.rankN{tail})")
    return [candidate for _, candidate in sorted(found)]


class _BadValue(Exception):
    def __init__(self, literal: str, why: str):
        super().__init__(why)
        self.literal, self.why = literal, why


def _reject_constant(literal: str):
    raise _BadValue(literal, "not a number JSON allows")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value != value or value in (float("inf"), float("-inf")):
        raise _BadValue(literal, "too large a number")
    return value


def _bounded_int(literal: str) -> int:
    if len(literal.lstrip("-")) > 300:  # far past any count or line; int() of thousands of digits raises
        raise _BadValue(literal, "too large a number")
    return int(literal)


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _has_nul(data) -> bool:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\0" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def load_report(path: Path):
    """The parsed JSON of a report; a ConfigError naming the line and the reason when it is not a
    report one can trust (bad UTF-8, bad JSON, numbers past any count, NUL characters)."""
    where = f"--runtime-report {path}"
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{where}: cannot read it: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ConfigError(f"{where}: line {line}: not valid UTF-8 at byte offset {error.start}") from None
    try:
        data = json.loads(text, parse_float=_finite_float, parse_int=_bounded_int,
                          parse_constant=_reject_constant)
    except _BadValue as bad:
        shown = bad.literal if len(bad.literal) <= 24 else bad.literal[:20] + "..."
        raise ConfigError(f"{where}: line {_line_of(text, bad.literal)}: {shown} is {bad.why}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{where}: line {error.lineno}: not valid JSON: {error.msg} "
                          f"(column {error.colno})") from None
    except (ValueError, RecursionError) as error:
        raise ConfigError(f"{where}: not valid JSON: {error}") from None
    if _has_nul(data):
        # A NUL character in a string: no file name or message of a real run holds one.
        raise ConfigError(f"{where}: line {_line_of(text, chr(92) + 'u0000')}: a NUL character (\\u0000) in a string")
    return data


def read(path: Path) -> List[Observation]:
    data = load_report(path)
    if isinstance(data, list):
        return [obs for obs in (_from_json(item) for item in data) if obs is not None]
    if isinstance(data, dict) and isinstance(data.get("runs"), list):
        return _from_sarif(data)
    raise ConfigError(f"--runtime-report {path}: neither runtime_guard's JSON list nor SARIF")


def _int(value, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _observation(code, filename, line, count, action, message, rank, steps) -> Optional[Observation]:
    if not isinstance(code, str) or not isinstance(filename, str) or filename.startswith("<"):
        return None  # no source file to point at ("<string>", "<unknown>")
    line = _int(line)
    if line < 1:
        return None
    steps = None if steps is None else max(_int(steps), 0)
    return Observation(code, os.path.realpath(filename), line, max(_int(count, 1), 1),
                       str(action or "observed"), str(message or ""), _int(rank), steps)


def _from_json(item) -> Optional[Observation]:
    if not isinstance(item, dict):
        return None
    location = item.get("location") if isinstance(item.get("location"), dict) else {}
    return _observation(item.get("code"), item.get("filename"), location.get("row"),
                        item.get("count", 1), item.get("action"), item.get("message"),
                        item.get("rank", 0), item.get("steps"))


def _file_path(uri: str) -> Optional[str]:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    if parsed.scheme:
        return None
    return unquote(uri)


def _from_sarif(document: dict) -> List[Observation]:
    out = []
    for run in document["runs"]:
        if not isinstance(run, dict):
            continue
        bases = {}
        for name, base in (run.get("originalUriBaseIds") or {}).items():
            root = _file_path(base.get("uri", "")) if isinstance(base, dict) else None
            # The run's root when it exists here; else the report moved with the sources (CI):
            # relative paths are then relative to the current directory.
            bases[name] = root if root and os.path.isdir(root) else os.getcwd()
        for result in run.get("results") or []:
            try:
                physical = result["locations"][0]["physicalLocation"]
                artifact = physical["artifactLocation"]
                line = physical["region"]["startLine"]
            except (KeyError, IndexError, TypeError):
                continue
            path = _file_path(str(artifact.get("uri", "")))
            if path is None:
                continue
            if not os.path.isabs(path):
                path = os.path.join(bases.get(artifact.get("uriBaseId"), os.getcwd()), path)
            props = result.get("properties") or {}
            message = props.get("detail") or (result.get("message") or {}).get("text", "")
            obs = _observation(result.get("ruleId"), path, line, props.get("count", 1),
                               props.get("action"), message, props.get("rank", 0),
                               props.get("steps"))
            if obs is not None:
                out.append(obs)
    return out


def load(given: Sequence[str]) -> List[Observation]:
    observations: List[Observation] = []
    for name in given:
        for path in report_files(name):
            observations.extend(read(path))
    return observations


# ---- merging ------------------------------------------------------------------------------------

@dataclass
class _Seen:
    """The observations of one (code, file, line), added up over actions and ranks."""
    code: str
    line: int
    counts: Dict[str, int]  # action -> count, in first-seen order
    ranks: FrozenSet[int]
    message: str  # the lowest rank's
    steps: Dict[int, Optional[int]]  # rank -> optimizer steps of its run

    @property
    def every_step(self) -> bool:
        """A sync on this line more often than every other optimizer step: the per-step stall the
        static rule reports inside loops. One per epoch, every N steps, or once at the end is not
        (as the rule's own silent cases); nor is anything in a run with no optimizer step, where
        a rate cannot be told. Unknown steps (a report without them) leave the count unjudged."""
        if any(steps is None for steps in self.steps.values()):
            return True
        total_steps = sum(self.steps.values())
        return total_steps > 0 and 2 * sum(self.counts.values()) > total_steps

    @property
    def confirms(self) -> bool:
        """The run saw the pitfall happen: the guard fixed it, observed it or suggested a fix
        (not: skipped / left it alone, i.e. it judged there was nothing to do)."""
        return any(action.startswith(CONFIRMING) for action in self.counts)

    def summary(self) -> str:
        ranks = f" over {len(self.ranks)} ranks" if len(self.ranks) > 1 else ""
        if self.code == "TPL102":
            total = sum(self.counts.values())
            return f"{total:,} host sync{'' if total == 1 else 's'}{ranks}"
        return "; ".join(_times(action, count) for action, count in self.counts.items()) + ranks


def _times(action: str, count: int) -> str:
    """``fixed 3 times``; an action with its reason (``left alone: no GPU``) keeps it after."""
    head, sep, reason = action.partition(":")
    text = f"{head.strip()} {count:,} time{'' if count == 1 else 's'}"
    return f"{text} ({reason.strip()})" if sep and reason.strip() else text


def gather(observations: Iterable[Observation]) -> Dict[str, List[_Seen]]:
    """path -> what was seen there, one entry per (code, line)."""
    table: Dict[Tuple[str, str, int], _Seen] = {}
    for obs in sorted(observations, key=lambda o: o.rank):
        key = (obs.path, obs.code, obs.line)
        seen = table.get(key)
        if seen is None:
            table[key] = _Seen(obs.code, obs.line, {obs.action: obs.count}, frozenset([obs.rank]),
                               obs.message, {obs.rank: obs.steps})
            continue
        seen.counts[obs.action] = seen.counts.get(obs.action, 0) + obs.count
        seen.ranks = seen.ranks | {obs.rank}
        seen.steps.setdefault(obs.rank, obs.steps)
    by_path: Dict[str, List[_Seen]] = {}
    for (path, _, _), seen in sorted(table.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1])):
        by_path.setdefault(path, []).append(seen)
    return by_path


def at_finding(finding: Finding, seen: List[_Seen]) -> List[_Seen]:
    last = max(finding.end_line, finding.line)
    return [s for s in seen if s.code == finding.code and finding.line <= s.line <= last]


def note(finding: Finding, matches: List[_Seen]) -> Finding:
    """The static finding with what the run did there."""
    confirming = [s for s in matches if s.confirms]
    notes = []
    if confirming:
        notes.append("confirmed at run time: " + "; ".join(s.summary() for s in confirming))
    # The guard looked and chose not to act (e.g. an in-memory dataset needs no loader workers):
    # its reason is worth reading next to the static advice, but it confirms nothing.
    notes.extend(f"at run time: {s.summary()}: {s.message}" for s in matches if not s.confirms)
    return replace(finding, message=f"{finding.message} ({'; '.join(notes)})")


def merge_file(result: FileResult, seen: List[_Seen], codes: FrozenSet[str]) -> None:
    """Annotate the file's findings the run saw; add the observations none of them covers."""
    seen = [s for s in seen if s.code in codes]
    if not seen:
        return
    used = set()
    findings: List[Finding] = []
    for finding in result.findings:
        matches = at_finding(finding, seen)
        if matches:
            used.update(id(s) for s in matches)
            finding = note(finding, matches)
        findings.append(finding)
    # Only what the run saw happen becomes a finding of its own: a fix the guard skipped or left
    # alone at a line the linter did not flag is the guard agreeing there is nothing to report;
    # a host sync counts only when it happened at (nearly) every step.
    extra = [Finding(s.code, s.line, 0, f"{s.message} (seen at run time: {s.summary()})")
             for s in seen if id(s) not in used and s.confirms
             and (s.code != "TPL102" or s.every_step)]
    rows = list(result.noqa_rows)
    if extra:
        lines = _lines(result.path)
        if lines is not None and file_is_noqa(lines):
            extra = []
        elif lines is not None:
            extra, extra_rows = apply_noqa(extra, lines)
        else:
            extra_rows = [f.line for f in extra]
        if extra:
            findings.extend(extra)
            rows.extend(extra_rows)
    result.findings, result.noqa_rows = findings, rows


def _lines(path: str) -> Optional[List[str]]:
    try:
        with open(path, "rb") as handle:
            source, _ = decode(handle.read())
    except Exception:  # unreadable or undecodable: noqa cannot be honoured, the finding stays
        return None
    return source.splitlines(keepends=True)


def merge(results: Dict[str, FileResult], observations: Iterable[Observation],
          codes_for: Callable[[str], FrozenSet[str]]) -> int:
    """Merge into the CLI's per-file results; the number of observations placed in checked files."""
    by_real = {os.path.realpath(path): path for path in results}
    placed = 0
    for real, seen in gather(observations).items():
        path = by_real.get(real)
        if path is None:
            continue  # not among the checked files (the standard library, site-packages, ...)
        merge_file(results[path], seen, codes_for(path))
        placed += len(seen)
    return placed


def merge_reports(given: Sequence[str], results: Dict[str, FileResult],
                  codes_for: Callable[[str], FrozenSet[str]], mode: str) -> None:
    """The CLI's one call: read the report files named by ``--runtime-report``, merge them."""
    observations = load(given)
    if mode != CHECK:
        # After --fix the lines of the run no longer match the file; --diff shows fixes only.
        print("torchperf-lint: warning: --runtime-report is only used when checking "
              "(not with --fix, --fix-only or --diff)", file=sys.stderr)
        return
    merge(results, observations, codes_for)
