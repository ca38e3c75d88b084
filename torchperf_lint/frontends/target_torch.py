"""The project's target torch (shared/rules.md "Target torch"): the oldest torch it must run on.

Set by ``target-torch`` (``[tool.torchperf-lint]``, flake8 ``--tpl-target-torch`` /
``tpl-target-torch =``, CLI ``--target-torch``); by default the lower bound of ``torch`` in the
project's dependencies: ``[project].dependencies`` of pyproject.toml, ``install_requires`` of
setup.cfg, and ``requirements*.txt``, at the project root (analysis/project_root.py). ``torch>=2.0,<2.3``
gives 2.0; several bounds (a requirements file and pyproject) give the oldest; ``torch`` with no
lower bound, or no ``torch`` at all, gives no limit (None).

The CLI and the flake8 plugin both call ``resolve`` per file, so the engine gets the same target
from either front end.
"""

from __future__ import annotations

import configparser
import glob
import os
import re
from typing import Dict, Iterable, List, Optional, Tuple

from ..catalog import TorchVersion
from ..analysis.project_root import find_project_root

_VERSION = re.compile(r"\s*v?(\d+)(?:\.(\d+))?(?:\.\d+)*(?:[.+\-]?\w*)*\s*$")
# A requirement on torch: the name (PEP 503 normalised, extras allowed), then its specifiers.
_TORCH_REQUIREMENT = re.compile(r"^\s*torch(?![\w.\-])\s*(?:\[[^\]]*\])?\s*(?P<specs>[^;@#]*)", re.IGNORECASE)
_SPECIFIER = re.compile(r"(===|==|~=|>=|<=|!=|>|<)\s*([^\s,;()]+)")


class TargetTorchError(ValueError):
    """A ``target-torch`` value that is not a version."""


def parse_version(text: str) -> TorchVersion:
    """``"2.1"``, ``"2.1.2"``, ``"2"`` -> (2, 1), (2, 1), (2, 0)."""
    match = _VERSION.match(str(text))
    if match is None:
        raise TargetTorchError(f"target-torch must be a torch version such as \"2.1\", not {text!r}")
    return int(match.group(1)), int(match.group(2) or 0)


def lower_bound(requirement: str) -> Optional[TorchVersion]:
    """The oldest torch a requirement line allows; None when it is not about torch or has no lower
    bound (``torch``, ``torch<2.3``, ``torch @ https://...``)."""
    match = _TORCH_REQUIREMENT.match(requirement)
    if match is None:
        return None
    rest = requirement[match.end("specs"):].lstrip()
    if rest.startswith("@"):
        return None  # a URL: no version to read
    bounds = []
    for operator, version in _SPECIFIER.findall(match.group("specs")):
        if operator in ("==", "===", "~=", ">=", ">"):
            # ``>2.0`` allows 2.0.1: the oldest minor release it allows is still 2.0.
            try:
                bounds.append(parse_version(version.replace("*", "0")))
            except TargetTorchError:
                continue
    return max(bounds) if bounds else None


def _requirements(lines: Iterable[str]) -> List[TorchVersion]:
    found = []
    for line in lines:
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue  # comments, -r other.txt, --index-url ...
        bound = lower_bound(line)
        if bound is not None:
            found.append(bound)
    return found


def _pyproject_dependencies(path: str) -> List[str]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return []
    if b"torch" not in raw:
        return []
    try:
        try:
            import tomllib
        except ImportError:  # Python < 3.11: tomli, a dependency there
            import tomli as tomllib
        data = tomllib.loads(raw.decode("utf-8"))
    except Exception:  # a broken pyproject is the config reader's to report; here: no bound
        return []
    dependencies = data.get("project", {}).get("dependencies", [])
    return [d for d in dependencies if isinstance(d, str)] if isinstance(dependencies, list) else []


def _setup_cfg_requirements(path: str) -> List[str]:
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
        value = parser.get("options", "install_requires")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return []
    return value.splitlines()


def _requirements_files(root: str) -> List[str]:
    lines: List[str] = []
    for path in sorted(glob.glob(os.path.join(glob.escape(root), "requirements*.txt"))):
        try:
            with open(path, encoding="utf-8") as handle:
                lines.extend(handle.read().splitlines())
        except (OSError, UnicodeDecodeError):
            continue
    return lines


def from_dependencies(root: str) -> Optional[TorchVersion]:
    """The oldest torch any of the project's dependency lists allows, or None."""
    bounds = _requirements(_pyproject_dependencies(os.path.join(root, "pyproject.toml")))
    bounds += _requirements(_setup_cfg_requirements(os.path.join(root, "setup.cfg")))
    bounds += _requirements(_requirements_files(root))
    return min(bounds) if bounds else None


def resolve(setting: Optional[str], path: str,
            memo: Optional[Dict[str, Optional[TorchVersion]]] = None,
            fallback_root: Optional[str] = None,
            roots: Optional[Dict[str, Optional[str]]] = None) -> Optional[TorchVersion]:
    """The target torch for the file ``path``: the setting when given, else what its project's
    dependencies say (``memo``: project root -> target, to read each project once per run).
    ``fallback_root``: the folder that stands for the project when no folder above the file
    marks one (the linted folder: the CLI's first path, flake8's working directory). ``roots``:
    project_root.find_project_root's memo."""
    if setting:
        return parse_version(setting)
    root = find_project_root(path, roots) or fallback_root
    if root is None:
        return None
    if memo is not None and root in memo:
        return memo[root]
    target = from_dependencies(root)
    if memo is not None:
        memo[root] = target
    return target


def resolve_with_root(setting: Optional[str], path: str,
                      memo: Optional[Dict[str, Optional[TorchVersion]]] = None,
                      fallback_root: Optional[str] = None,
                      roots: Optional[Dict[str, Optional[str]]] = None) -> Tuple[Optional[str], Optional[TorchVersion]]:
    """(project root or None, target): for a cache key that must change when a project's target does."""
    if setting:
        return None, parse_version(setting)
    return find_project_root(path, roots) or fallback_root, resolve(None, path, memo, fallback_root, roots)
