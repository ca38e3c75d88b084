"""The result cache: a re-run over an unchanged tree reads no file and runs no rule.

One cache file per (tool version, hash of the package's source, Python version, selected codes, the
other settings that change findings or fixes: line length, include-tests, target versions) in
``.torchperf_lint_cache/`` at the project root. An entry maps a file's absolute path to the size,
mtime and content digest it had, the codes it was checked for (after per-file-ignores) and its
findings after ``# noqa`` (fixes included), and how many fixes ``--fix`` would apply to it (with or
without the unsafe ones), when that was counted. A file whose size and mtime are unchanged is a hit
without being read, as in ruff; otherwise its content digest decides. Stored with ``marshal`` (plain
tuples and strings: loading it runs no code).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from .. import __version__
from ..findings import Finding
from .atomic_write import WriteFailed, write_atomic
from .runner import finding_from_tuple, finding_to_tuple

CACHE_DIR_NAME = ".torchperf_lint_cache"
FORMAT = 4  # 2: a fix may be stored without its edits; 3: the count of fixes --fix would apply;
# 4: the project facts' dependencies (other modules) and findings' related locations
_package_digest: Optional[str] = None


def package_digest() -> str:
    """A hash of the package's own source, so that editing a rule during development invalidates."""
    global _package_digest
    if _package_digest is None:
        package = Path(__file__).resolve().parent.parent  # the whole package, not only frontends/
        h = hashlib.blake2b(digest_size=16)
        for path in sorted(package.rglob("*.py")):
            h.update(path.relative_to(package).as_posix().encode())
            try:
                h.update(path.read_bytes())
            except OSError:
                pass
        _package_digest = h.hexdigest()
    return _package_digest


def cache_key(codes: Iterable[str], settings: Optional[Dict[str, object]] = None) -> str:
    """``settings``: every other setting that changes findings or fixes (the line length fixes keep
    to, include-tests, target versions): a run with other settings reads another cache file."""
    h = hashlib.blake2b(digest_size=12)
    shown = ";".join(f"{name}={settings[name]!r}" for name in sorted(settings or {}))
    for part in (str(FORMAT), __version__, package_digest(), sys.version, ",".join(sorted(codes)), shown):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


# size, mtime_ns, digest, codes, findings, rows, (unsafe, fixes --fix would apply) or None,
# dependencies: (path, size, mtime_ns, index digest) of the other modules whose facts were used
Entry = Tuple[int, int, str, Tuple[str, ...], tuple, tuple, Optional[Tuple[bool, int]], tuple]


class Cache:
    def __init__(self, directory: Path, codes: Iterable[str], settings: Optional[Dict[str, object]] = None):
        self.directory = directory
        self.path = directory / f"{cache_key(codes, settings)}.marshal"
        self.entries: Dict[str, Entry] = {}
        self.dirty = False
        try:
            with open(self.path, "rb") as handle:
                data = marshal.load(handle)
            if isinstance(data, dict):
                self.entries = data
        except (OSError, EOFError, ValueError, TypeError):
            self.entries = {}

    def lookup(self, path: str, codes: FrozenSet[str], stat: os.stat_result, read_digest=None,
               fix_edits: bool = False):
        """(findings, noqa rows, (unsafe, fix count) or None) when the entry is valid, else None. ``read_digest`` (a callable) is
        asked for the content digest when size or mtime changed. With ``fix_edits``, an entry whose
        fixes were stored without their edits (by a plain check) is a miss. A malformed entry (a
        cache written by hand, or damaged) is a miss too."""
        try:
            return self._lookup(path, codes, stat, read_digest, fix_edits)
        except (ValueError, TypeError, AttributeError):
            self.entries.pop(path, None)
            return None

    def _lookup(self, path, codes, stat, read_digest, fix_edits):
        entry = self.entries.get(path)
        if entry is None:
            return None
        size, mtime, content_digest, entry_codes, findings, rows, fixes, dependencies = entry
        if tuple(sorted(codes)) != entry_codes:
            return None
        if not all(_unchanged(*dependency) for dependency in dependencies):
            return None  # a module whose step bodies or classes the findings used has changed
        if size != stat.st_size or mtime != stat.st_mtime_ns:
            if read_digest is None or size != stat.st_size:
                return None
            if read_digest() != content_digest:
                return None
            self.entries[path] = (stat.st_size, stat.st_mtime_ns, content_digest, entry_codes, findings, rows, fixes,
                                  dependencies)
            self.dirty = True
        found = [finding_from_tuple(f) for f in findings]
        rows = [int(row) for row in rows]
        if len(rows) != len(found):
            raise ValueError("findings and rows differ in number")
        if fix_edits and any(f.fix is not None and f.fix.edits is None for f in found):
            return None
        return found, rows, fixes

    def store(self, path: str, codes: FrozenSet[str], stamp: Tuple[int, int, str],
              findings: List[Finding], rows: List[int], fixes: Optional[Tuple[bool, int]] = None,
              dependencies: Iterable[Tuple[str, int, int, str]] = ()) -> None:
        size, mtime, content_digest = stamp
        self.entries[path] = (size, mtime, content_digest, tuple(sorted(codes)),
                              tuple(finding_to_tuple(f) for f in findings), tuple(rows), fixes,
                              tuple(sorted(dependencies)))
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gitignore = self.directory / ".gitignore"
            if not gitignore.exists():
                write_atomic(str(gitignore), b"# Created by torchperf-lint\n*\n")
            # temp file + replace, removed on any failure (a full disk): no leftovers in the project
            write_atomic(str(self.path), marshal.dumps(self.entries))
            self.dirty = False
        except (OSError, WriteFailed):
            pass  # a read-only tree still gets linted, only not cached


def _unchanged(path: str, size: int, mtime_ns: int, index_digest: str) -> bool:
    """Is a dependency the module it was when the findings were computed (stat first, then its text)?"""
    try:
        stat = os.stat(path)
    except OSError:
        return False
    if stat.st_size == size and stat.st_mtime_ns == mtime_ns:
        return True
    from ..analysis.project_index import content_digest

    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8").lstrip("\ufeff")
    except (OSError, UnicodeDecodeError):
        return False
    return content_digest(text) == index_digest
