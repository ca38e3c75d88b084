"""The flake8 adapter: a thin layer over the engine.

Importing this module must stay cheap (flake8 imports every plugin at start-up): the engine and
libcst are imported on the first file that mentions torch.
"""

from __future__ import annotations

import ast
import os
from typing import Iterator, List, Tuple, Type

from .. import __version__
from ..catalog import CATALOG, OPT_IN_CODES


def _target_torch(value: str) -> str:
    """``--tpl-target-torch``: a version, checked by argparse (a bad value is a usage error)."""
    import argparse

    from .target_torch import TargetTorchError, parse_version

    try:
        parse_version(value)
    except TargetTorchError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


class Plugin:
    name = "torchperf-lint"
    version = __version__

    # Opt-in rules run only when a user selects them by code (TPL305, TPL503).
    opt_in_selected: frozenset = frozenset()
    # Unit-test files (test_files.py) get no finding unless ``--tpl-include-tests`` is given.
    include_tests: bool = False
    # ``--tpl-target-torch``; None: each file's project dependencies say (target_torch.py).
    target_torch_setting = None
    _project_targets: dict = {}  # project root -> target torch read from its dependencies
    _project_roots: dict = {}  # folder -> project root (one flake8 run: no file appears mid-run)

    def __init__(self, tree: ast.AST, lines: List[str], filename: str):
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager) -> None:
        # flake8-bugbear's way for opinionated checks. flake8 drops the default ignore list when a
        # user sets ``ignore=``, so parse_options also filters: an explicit ``ignore`` must not turn
        # opt-in rules on.
        option_manager.extend_default_ignore(sorted(OPT_IN_CODES))
        from .config import PLUGIN_OPTIONS  # the CLI reads the same options from flake8's files

        for option, _, keywords in PLUGIN_OPTIONS:
            option_manager.add_option(f"--{option}", **keywords)

        option_manager.add_option(
            "--tpl-target-torch", default=None, parse_from_config=True, metavar="VERSION", type=_target_torch,
            help="torchperf-lint: the oldest torch the project must run on (e.g. 2.1); findings whose "
                 "remedy needs a newer torch are left out. Default: the lower bound of torch in the "
                 "project's dependencies; in a config file: tpl-target-torch = 2.1",
        )

    @classmethod
    def parse_options(cls, options) -> None:
        chosen = [*(getattr(options, "select", None) or ()), *(getattr(options, "extend_select", None) or ())]
        cls.opt_in_selected = frozenset(code for code in OPT_IN_CODES if code in chosen)
        cls.include_tests = bool(getattr(options, "tpl_include_tests", False))
        cls.target_torch_setting = getattr(options, "tpl_target_torch", None) or None
        cls._project_targets, cls._project_roots = {}, {}  # read afresh for each run

    def run(self) -> Iterator[Tuple[int, int, str, Type["Plugin"]]]:
        source = "".join(self.lines)
        if "torch" not in source:
            return  # the engine would say the same; skip even importing it
        if not self.include_tests:
            from .test_files import is_test_file

            from ..analysis.project_root import find_project_root

            if is_test_file(self.filename, find_project_root(self.filename, self._project_roots) or os.getcwd()):
                return
        from ..analysis.project_index import configure_kept_trees
        from ..engine import lint_source
        from .target_torch import resolve

        # flake8 hands the engine its own tree of each file: the index need not keep the trees it
        # parses of the modules that import the linted file (they would only take memory).
        configure_kept_trees(False)

        target = resolve(self.target_torch_setting, self.filename, self._project_targets, os.getcwd(),
                         self._project_roots)
        codes = [c for c, entry in CATALOG.items() if entry.default_on or c in self.opt_in_selected]
        # The engine splits the lines itself, as Python does: flake8 splits stdin with
        # str.splitlines, which also breaks at form feeds and other characters Python does not.
        for finding in lint_source(source, self.filename, self.tree, codes, target_torch=target):
            yield finding.line, finding.col, finding.text, type(self)
