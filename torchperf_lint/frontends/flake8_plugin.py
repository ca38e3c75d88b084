"""The flake8 adapter: a thin layer over the engine.

Importing this module must stay cheap (flake8 imports every plugin at start-up): the engine and
libcst are imported on the first file that mentions torch.
"""

from __future__ import annotations

import ast
from typing import Iterator, List, Tuple, Type

from .. import __version__
from ..catalog import CATALOG, OPT_IN_CODES


class Plugin:
    name = "torchperf-lint"
    version = __version__

    # Opt-in rules run only when a user selects them by code (TPL305, TPL503).
    opt_in_selected: frozenset = frozenset()
    # Unit-test files (test_files.py) get no finding unless ``--tpl-include-tests`` is given.
    include_tests: bool = False

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

    @classmethod
    def parse_options(cls, options) -> None:
        chosen = [*(getattr(options, "select", None) or ()), *(getattr(options, "extend_select", None) or ())]
        cls.opt_in_selected = frozenset(code for code in OPT_IN_CODES if code in chosen)
        cls.include_tests = bool(getattr(options, "tpl_include_tests", False))

    def run(self) -> Iterator[Tuple[int, int, str, Type["Plugin"]]]:
        source = "".join(self.lines)
        if "torch" not in source:
            return  # the engine would say the same; skip even importing it
        if not self.include_tests:
            from .test_files import is_test_file

            if is_test_file(self.filename):
                return
        from ..engine import lint_source

        codes = [c for c, entry in CATALOG.items() if entry.default_on or c in self.opt_in_selected]
        # The engine splits the lines itself, as Python does: flake8 splits stdin with
        # str.splitlines, which also breaks at form feeds and other characters Python does not.
        for finding in lint_source(source, self.filename, self.tree, codes):
            yield finding.line, finding.col, finding.text, type(self)
