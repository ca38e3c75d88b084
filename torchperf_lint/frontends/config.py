"""Configuration of the CLI: ``[tool.torchperf-lint]`` in pyproject.toml, rule selection, exclusion.

Selection follows ruff: ``select`` (default ``["TPL"]``), ``extend-select`` and ``ignore`` take codes
or code prefixes (``TPL1`` is every TPL1xx rule). For each code the most specific matching selector
wins; on a tie ``ignore`` wins. Opt-in rules (TPL305, TPL503) are on only when a ``select`` or
``extend-select`` entry names them exactly: a prefix, even ``ALL``, never turns them on.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from ..catalog import CATALOG, OPT_IN_CODES
from ..analysis.project_root import find_project_root
from .test_files import is_test_file

SECTION = "torchperf-lint"
DEFAULT_SELECT = ("TPL",)
# As ruff's defaults, for the directories a Python project most often holds.
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".mypy_cache", ".nox", ".pants.d",
    ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", "venv", "__pypackages__", "_build", "buck-out",
    "build", "dist", "node_modules", "site-packages", "__pycache__", ".torchperf_lint_cache",
)
KNOWN_KEYS = frozenset(
    ("select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude", "unsafe-fixes",
     "include-tests", "respect-gitignore", "target-torch")
)
# flake8 reads these, in this order, in each directory (flake8/options/config.py).
FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")
# The options the flake8 plugin adds, each with the Config attribute it sets: the plugin registers
# them with flake8 (flake8_plugin.py), and the CLI reads the same names from flake8's files, so
# that one setting means the same to both front ends.
PLUGIN_OPTIONS = (
    ("tpl-include-tests", "include_tests", dict(
        action="store_true", default=False, parse_from_config=True,
        help="torchperf-lint: also check unit-test files (test_*.py, *_test.py, conftest.py, "
             "files under tests/ or test/); in a config file: tpl-include-tests = true")),
)


class ConfigError(Exception):
    """A usage error: bad configuration or a bad option value (exit status 2)."""


@dataclass
class Config:
    select: List[str] = field(default_factory=lambda: list(DEFAULT_SELECT))
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    # From flake8's configuration: (pattern normalised as flake8 does, TPL codes), in file order.
    flake8_per_file_ignores: List[Tuple[str, List[str]]] = field(default_factory=list)
    exclude: List[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: List[str] = field(default_factory=list)
    unsafe_fixes: bool = False
    include_tests: bool = False  # lint unit-test files too (test_files.py says which they are)
    # flake8's max-line-length, when the configuration came from flake8's (fix layout may use it).
    line_length: Optional[int] = None
    # Files ignored by git are skipped (as ruff); `respect-gitignore = false` turns it off.
    respect_gitignore: bool = True
    # The oldest torch the project must run on, as written ("2.1"); None: read from the project's
    # dependencies (target_torch.py).
    target_torch: Optional[str] = None
    # folder -> project root, filled as files are judged (project_root.py): one walk up per folder.
    project_roots: Dict[str, Optional[str]] = field(default_factory=dict, repr=False, compare=False)
    # Where the configuration came from (None: defaults) and the project root (for the cache,
    # per-file-ignores and exclude patterns that contain a slash).
    path: Optional[Path] = None
    root: Path = field(default_factory=Path.cwd)


# ---- reading pyproject.toml ------------------------------------------------------------------

def _toml_loads(text: str) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        try:
            import tomli as tomllib
        except ImportError:
            raise ConfigError(
                "reading pyproject.toml on Python < 3.11 needs the `tomli` package: pip install tomli"
            ) from None
    return tomllib.loads(text)


def _section(pyproject: Path) -> Optional[dict]:
    raw = read_config_bytes(pyproject)
    if SECTION.encode() not in raw:  # cheap: most pyproject files do not configure us
        return None
    text = decode_config(pyproject, raw)
    try:
        data = _toml_loads(text)
    except ConfigError:
        raise
    except Exception as error:
        raise ConfigError(f"{pyproject}: invalid TOML: {error}") from None
    section = data.get("tool", {}).get(SECTION)
    return section if isinstance(section, dict) else None


def read_config_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read it: {error.strerror or error}") from None


def decode_config(path: Path, raw: bytes) -> str:
    """A configuration file's text (UTF-8, as flake8, tomllib and ruff read them); one line naming
    the file and the first bad byte when it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid UTF-8 at byte offset {error.start} "
                          f"({error.object[error.start:error.start + 1]!r}: {error.reason})") from None


def find_config(start: Path) -> Tuple[Optional[Path], Optional[dict], Path]:
    """Walk up from ``start``: (pyproject path, its [tool.torchperf-lint] table, project root).

    The project root is the directory of the first pyproject.toml with our table; failing that, of
    the first pyproject.toml or ``.git``; failing that, ``start`` itself."""
    try:
        start = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the caller reports the path itself
        start = Path(os.path.abspath(start))
    if not start.is_dir():
        start = start.parent
    fallback_root: Optional[Path] = None
    for directory in (start, *start.parents):
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            section = _section(pyproject)
            if section is not None:
                return pyproject, section, directory
            if fallback_root is None:
                fallback_root = directory
        if fallback_root is None and (directory / ".git").exists():
            fallback_root = directory
    return None, None, fallback_root or start


def _string_list(table: dict, key: str, where: str) -> Optional[List[str]]:
    if key not in table:
        return None
    value = table[key]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return list(value)


def load_config(start: Path, explicit: Optional[Path] = None) -> Config:
    """The configuration for a run started at ``start`` (or read from ``explicit``)."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"configuration file not found: {explicit}")
        section = _section(explicit) or {}
        path, root = explicit.resolve(), explicit.resolve().parent
    else:
        path, section, root = find_config(start)
        # flake8's settings count for the CLI as they do for the plugin (what flake8 excludes,
        # --fix does not rewrite); a key of our own table, where there is one, replaces its value.
        flake8 = find_flake8_config(start)
        if section is None and flake8 is not None:
            return flake8
        section = section or {}
        if flake8 is not None:
            return _apply_section(flake8, section, path, root)
    return _apply_section(Config(), section, path, root)


def _apply_section(config: Config, section: dict, path: Optional[Path], root: Path) -> Config:
    """``config`` with the keys of a [tool.torchperf-lint] table (read from ``path``) set."""
    config.path, config.root = path, root
    where = str(path) if path else "configuration"
    unknown = sorted(set(section) - KNOWN_KEYS)
    if unknown:
        keys = "key" if len(unknown) == 1 else "keys"
        raise ConfigError(f"{where}: unknown {keys} in [tool.{SECTION}]: {', '.join(unknown)}")
    for key, attr in (("select", "select"), ("extend-select", "extend_select"), ("ignore", "ignore"),
                      ("exclude", "exclude"), ("extend-exclude", "extend_exclude")):
        value = _string_list(section, key, where)
        if value is not None:
            if key.endswith("exclude"):
                value = [_relative_pattern(v) for v in value]
            setattr(config, attr, value)
    if "per-file-ignores" in section:
        pfi = section["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
        config.per_file_ignores, config.flake8_per_file_ignores = {}, []
        for pattern, codes in pfi.items():
            config.per_file_ignores[_relative_pattern(pattern)] = _string_list(
                {"codes": codes}, "codes", f"{where}: per-file-ignores")
    for key, attr in (("unsafe-fixes", "unsafe_fixes"), ("include-tests", "include_tests"),
                      ("respect-gitignore", "respect_gitignore")):
        if key in section:
            if not isinstance(section[key], bool):
                raise ConfigError(f"{where}: `{key}` must be true or false")
            setattr(config, attr, section[key])
    if "target-torch" in section:
        config.target_torch = checked_target_torch(section["target-torch"], where)
    for selector in [*config.select, *config.extend_select, *config.ignore,
                     *(c for codes in config.per_file_ignores.values() for c in codes)]:
        check_selector(selector, where)
    return config


def _relative_pattern(pattern: str) -> str:
    """``./vendor`` in our own table means ``vendor`` from the project root (as ruff reads it)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern or "."


# ---- reading flake8's configuration -----------------------------------------------------------

def flake8_section(path: Path) -> Optional[Dict[str, str]]:
    import configparser

    raw = read_config_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        if b"[flake8" not in raw:
            return None  # not a file that configures flake8 (flake8 skips it too)
        decode_config(path, raw)  # raises, naming the file and the byte
        raise
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error:
        return None  # flake8 ignores a file it cannot parse (with a warning), so do we
    if not parser.has_section("flake8"):
        return None
    # flake8 accepts both spellings of an option name
    return {key.replace("_", "-"): value for key, value in parser.items("flake8")}


def find_flake8_config(start: Path) -> Optional[Config]:
    """The configuration from flake8's files (setup.cfg, tox.ini, .flake8 with a [flake8] section),
    looking upward from ``start`` as flake8 does; None when there is none."""
    try:
        start = start.resolve()
    except (OSError, RuntimeError):
        start = Path(os.path.abspath(start))
    if not start.is_dir():
        start = start.parent
    for directory in (start, *start.parents):
        for name in FLAKE8_FILES:
            candidate = directory / name
            if candidate.is_file():
                section = flake8_section(candidate)
                if section is not None:
                    return config_from_flake8(section, candidate)
    return None


def _flake8_list(value: str) -> List[str]:
    """flake8's comma- and whitespace-separated lists."""
    return [part for part in value.replace(",", " ").split() if part]


def _tpl_selectors(selectors: Iterable[str]) -> List[str]:
    """The selectors that can name a TPL code (``T``, ``TPL1``, ``TPL101``); E501 and friends are
    flake8's business, not ours."""
    return [s.strip().upper() for s in selectors if any(code.startswith(s.strip().upper()) for code in CATALOG)]


def config_from_flake8(section: Dict[str, str], path: Path) -> Config:
    """Our configuration from a [flake8] section: only what concerns TPL codes counts.

    ``select`` that names no TPL code is left out (it lists the user's other flake8 codes: this
    tool exists to run the TPL ones); opt-in rules need their exact code, as in the plugin."""
    config = Config(path=path, root=path.parent)
    if "select" in section:
        select = _tpl_selectors(_flake8_list(section["select"]))
        if select:
            config.select = select
    config.extend_select = _tpl_selectors(_flake8_list(section.get("extend-select", "")))
    config.ignore = _tpl_selectors(
        _flake8_list(section.get("ignore", "")) + _flake8_list(section.get("extend-ignore", ""))
    )
    # Paths as flake8 normalises them (flake8/utils.py normalize_path): a pattern with a slash, or
    # ``.``, is made absolute from the configuration file's folder for exclude; from the current
    # directory for per-file-ignores (flake8/style_guide.py normalises them without a parent).
    folder = str(path.parent.resolve())
    if "exclude" in section:
        config.exclude = [flake8_normalize_path(p, folder) for p in _flake8_list(section["exclude"])]
    config.extend_exclude = [flake8_normalize_path(p, folder)
                             for p in _flake8_list(section.get("extend-exclude", ""))]
    for pattern, codes in _flake8_per_file_ignores(section.get("per-file-ignores", "")):
        # Every pattern counts, TPL codes or not: flake8 applies only the longest matching one.
        config.flake8_per_file_ignores.append((flake8_normalize_path(pattern, os.curdir), _tpl_selectors(codes)))
    for option, attribute, keywords in PLUGIN_OPTIONS:
        if option in section and keywords.get("action") == "store_true":
            setattr(config, attribute, _flake8_boolean(section[option], option, path))
    if section.get("tpl-target-torch", "").strip():
        config.target_torch = checked_target_torch(section["tpl-target-torch"].strip(), f"{path}: [flake8]")
    length = section.get("max-line-length", "").strip()
    if length:
        try:
            config.line_length = int(length)
        except ValueError:
            raise ConfigError(f"{path}: [flake8] max-line-length must be a number, not {length!r}") from None
    return config


def flake8_normalize_path(pattern: str, parent: str) -> str:
    """flake8/utils.py normalize_path: ``.`` and patterns with a separator become absolute paths
    from ``parent``; trailing separators go."""
    separators = os.sep + (os.altsep or "")
    if pattern == "." or any(sep in pattern for sep in separators):
        pattern = os.path.abspath(os.path.join(parent, pattern))
    return pattern.rstrip(separators)


def _flake8_boolean(value: str, key: str, path: Path) -> bool:
    # configparser's getboolean, which flake8 uses for store_true options
    states = {"1": True, "yes": True, "true": True, "on": True, "0": False, "no": False, "false": False, "off": False}
    try:
        return states[value.strip().lower()]
    except KeyError:
        raise ConfigError(f"{path}: [flake8] {key} must be true or false, not {value.strip()!r}") from None


def flake8_matches(pattern: str, path: Path) -> bool:
    """flake8/utils.py matches_filename for one normalised pattern: the file's name, or its
    absolute path (``*`` crosses folders, as fnmatch's does)."""
    name = path.name
    if name not in (".", "..") and fnmatch.fnmatch(name, pattern):
        return True
    return fnmatch.fnmatch(os.path.abspath(path), pattern)


_FLAKE8_CODE = re.compile(r"[A-Z]{1,3}[0-9]{0,3}")  # flake8's own check of a code (flake8/defaults.py)


def _flake8_per_file_ignores(value: str) -> List[Tuple[str, List[str]]]:
    """flake8's ``per-file-ignores`` value: ``pattern[, pattern]: code[, code]`` entries, separated
    by whitespace or new lines (flake8/utils.py parse_files_to_codes_mapping)."""
    mapping: List[Tuple[str, List[str]]] = []
    patterns: List[str] = []
    codes: List[str] = []
    seen_colon = False
    for token in value.replace(":", " : ").replace(",", " ").split():
        if token == ":":
            seen_colon = True
            continue
        if seen_colon and _FLAKE8_CODE.fullmatch(token):
            codes.append(token)
            continue
        if seen_colon:  # a new pattern starts a new entry
            mapping.extend((p, list(codes)) for p in patterns)
            patterns, codes, seen_colon = [], [], False
        patterns.append(token)
    if seen_colon:
        mapping.extend((p, list(codes)) for p in patterns)
    return mapping


def checked_target_torch(value, where: str) -> str:
    """A ``target-torch`` setting as written, once it reads as a version (else a usage error)."""
    from .target_torch import TargetTorchError, parse_version

    if not isinstance(value, str):
        # A TOML number is refused too: `target-torch = 2.10` would read as 2.1.
        raise ConfigError(f"{where}: `target-torch` must be a version string such as \"2.1\"")
    try:
        parse_version(value)
    except TargetTorchError as error:
        raise ConfigError(f"{where}: {error}") from None
    return value


# ---- selection --------------------------------------------------------------------------------

def normalise(selector: str) -> str:
    selector = selector.strip().upper()
    return "" if selector == "ALL" else selector


def check_selector(selector: str, where: str = "option") -> None:
    prefix = normalise(selector)
    if not any(code.startswith(prefix) for code in CATALOG):
        raise ConfigError(f"{where}: unknown rule selector {selector!r} (see `torchperf-lint rule --all`)")


def split_codes(values: Optional[Iterable[str]]) -> List[str]:
    """``["TPL101,TPL102", "TPL2"]`` -> ``["TPL101", "TPL102", "TPL2"]``."""
    out: List[str] = []
    for value in values or ():
        out.extend(part for part in value.replace(" ", ",").split(",") if part.strip())
    return out


def _best(code: str, selectors: Sequence[str]) -> int:
    return max((len(s) for s in selectors if code.startswith(s)), default=-1)


def resolve_codes(select: Sequence[str], extend_select: Sequence[str], ignore: Sequence[str]) -> FrozenSet[str]:
    """The codes that are on, from selectors (codes or prefixes, ``ALL``)."""
    chosen = [normalise(s) for s in (*select, *extend_select)]
    ignored = [normalise(s) for s in ignore]
    result = set()
    for code in CATALOG:
        if code in OPT_IN_CODES and code not in chosen:
            continue
        if _best(code, chosen) > _best(code, ignored):
            result.add(code)
    return frozenset(result)


def ignored_by(codes: FrozenSet[str], ignore: Sequence[str]) -> FrozenSet[str]:
    prefixes = tuple(normalise(s) for s in ignore)
    return frozenset(code for code in codes if not code.startswith(prefixes))


# ---- paths ------------------------------------------------------------------------------------

def relative_posix(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def matches(patterns: Sequence[str], path: Path, root: Path) -> bool:
    """ruff's rule: a pattern matches the file or directory name, or its path from the root (or
    its absolute path)."""
    if not patterns:
        return False
    name = path.name
    relative = relative_posix(path, root)
    absolute = path.as_posix()
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if "/" in pattern:
            if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(absolute, pattern):
                return True
            # ``tests/*`` also covers everything below tests/
            if fnmatch.fnmatchcase(relative, pattern + "/*") and pattern.endswith("*"):
                return True
        elif fnmatch.fnmatchcase(name, pattern):
            return True
    return False


def file_codes(config: Config, codes: FrozenSet[str], path: Path) -> FrozenSet[str]:
    """The codes on for one file, after ``per-file-ignores``; none for a unit-test file unless
    ``include-tests`` is set."""
    if not config.include_tests and is_test_file(
            str(path), find_project_root(str(path), config.project_roots) or str(config.root)):
        return frozenset()
    extra: List[str] = []
    for pattern, ignore in config.per_file_ignores.items():
        if matches([pattern], path, config.root) or _matches_below(pattern, path, config.root):
            extra.extend(ignore)
    # flake8's per-file-ignores: of the patterns that match, only the longest counts.
    chosen = max((entry for entry in config.flake8_per_file_ignores if flake8_matches(entry[0], path)),
                 key=lambda entry: len(entry[0]), default=None)
    if chosen is not None:
        extra.extend(chosen[1])
    return ignored_by(codes, extra) if extra else codes


def _matches_below(pattern: str, path: Path, root: Path) -> bool:
    # "tests/**" or "tests/" style patterns: any file below a matching directory.
    pattern = pattern.rstrip("/")
    if pattern.endswith("/**"):
        pattern = pattern[:-3]
    relative = relative_posix(path, root)
    parts = relative.split("/")
    return any(fnmatch.fnmatchcase("/".join(parts[:i]), pattern) for i in range(1, len(parts)))


PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: frontends/notebook.py


def path_problem(given: Path) -> Optional[str]:
    """Why a path named on the command line cannot be checked (None: it can)."""
    try:
        os.stat(given)
    except FileNotFoundError:
        return "no such file or directory"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link loop"
        return error.strerror or str(error)
    return None


def discover(paths: Sequence[Path], config: Config, force_exclude: bool = False) -> Tuple[List[Path], List[str]]:
    """Python files under ``paths``, minus excluded ones; and ``"path: problem"`` for each path that
    cannot be checked (missing, a symlink loop, unreadable).

    A file named on the command line is checked even when excluded, unless ``force_exclude`` (as
    ruff; pre-commit hooks pass it, since pre-commit names every file). Anything that is not a
    directory counts as a file here; the runner skips what is not a regular file (a FIFO)."""
    patterns = [*config.exclude, *config.extend_exclude]
    root = config.root
    found: List[Path] = []
    missing: List[str] = []
    seen = set()
    walked = set()  # found by searching a directory, not named on the command line
    for given in paths:
        path = Path(os.path.abspath(given))
        problem = path_problem(path)
        if problem is not None:
            missing.append(f"{given}: {problem}")
            continue
        if not path.is_dir():
            if force_exclude and _excluded_with_parents(patterns, path, root):
                continue
            if path not in seen:
                seen.add(path)
                found.append(path)
            continue
        if force_exclude and _excluded_with_parents(patterns, path, root):
            continue
        for directory, dirnames, filenames in os.walk(path):
            base = Path(directory)
            dirnames[:] = sorted(d for d in dirnames if not matches(patterns, base / d, root))
            for filename in sorted(filenames):
                if not filename.endswith(PYTHON_SUFFIXES):
                    continue
                file = base / filename
                if matches(patterns, file, root) or file in seen:
                    continue
                seen.add(file)
                found.append(file)
                walked.add(file)
    if config.respect_gitignore:
        # As ruff: files git ignores are skipped; named ones only with --force-exclude.
        ignored = git_ignored([f for f in found if force_exclude or f in walked], root)
        if ignored:
            found = [f for f in found if f not in ignored]
    return found, missing


def git_ignored(files: Sequence[Path], root: Path) -> FrozenSet[Path]:
    """The files git ignores (.gitignore, .git/info/exclude, the global excludes), asked of git
    itself, one call per repository: a submodule (or a repository nested in another) answers for
    its own files, by its own .gitignore; git refuses a question about a submodule's file asked
    of the repository around it, which must not switch the check off for the whole tree. Files
    outside any repository, or of a repository git fails on: none ignored."""
    by_repository: Dict[Path, List[Path]] = {}
    tops: Dict[Path, Optional[Path]] = {}
    for file in files:
        top = _repository_of(file.parent, tops)
        if top is not None:
            by_repository.setdefault(top, []).append(file)
    ignored: set = set()
    for top, members in by_repository.items():
        outer = _repository_of(top.parent, tops) if top.parent != top else None
        if outer is not None and _git_check_ignore([top], outer):
            ignored.update(members)  # a repository cloned into a folder the outer one ignores
            continue
        ignored |= _git_check_ignore(members, top)
    return frozenset(ignored)


def _repository_of(folder: Path, tops: Dict[Path, Optional[Path]]) -> Optional[Path]:
    """The nearest folder at or above ``folder`` with a ``.git`` (a folder, or the file a
    submodule or worktree has), remembered per folder."""
    walked = []
    current: Optional[Path] = folder
    while current is not None and current not in tops:
        walked.append(current)
        if (current / ".git").exists():
            tops[current] = current
            break
        parent = current.parent
        current = None if parent == current else parent
    found = tops.get(current) if current is not None else None
    for each in walked:
        tops[each] = found
    return found


def _git_check_ignore(files: Sequence[Path], directory: Path) -> FrozenSet[Path]:
    if not files:
        return frozenset()
    import subprocess

    try:
        result = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input=b"".join(os.fsencode(f) + b"\0" for f in files),
            cwd=directory, capture_output=True, timeout=120,
        )
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return frozenset()
    if result.returncode not in (0, 1):  # 128: not a repository, a path outside it, ...
        return frozenset()
    return frozenset(Path(os.fsdecode(p)) for p in result.stdout.split(b"\0") if p)


def _excluded_with_parents(patterns: Sequence[str], path: Path, root: Path) -> bool:
    if matches(patterns, path, root):
        return True
    for parent in path.parents:
        if parent == root or root not in parent.parents:
            break
        if matches(patterns, parent, root):
            return True
    return False
