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
    _collector_frozen: bool = False  # _freeze_what_lives_now ran in this process

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
        from ..analysis.project_index import configure_kept_trees, configure_root_memo
        from ..engine import lint_source
        from .target_torch import resolve

        # flake8 hands the engine its own tree of each file: the index need not keep the trees it
        # parses of the modules that import the linted file (they would only take memory).
        configure_kept_trees(False)
        configure_root_memo(self._project_roots)  # one run: the index finds each file's project here

        target = resolve(self.target_torch_setting, self.filename, self._project_targets, os.getcwd(),
                         self._project_roots)
        codes = [c for c, entry in CATALOG.items() if entry.default_on or c in self.opt_in_selected]
        # The engine splits the lines itself, as Python does: flake8 splits stdin with
        # str.splitlines, which also breaks at form feeds and other characters Python does not.
        findings = list(lint_source(source, self.filename, self.tree, codes, target_torch=target))
        if not Plugin._collector_frozen:
            _freeze_what_lives_now()
        for finding in findings:
            yield finding.line, finding.col, finding.text, type(self)


def _freeze_what_lives_now() -> None:
    """Once per process, after the first file the engine analysed: collect, then move every object
    alive now (libcst, the engine and its tables, the first files' project-index summaries,
    flake8's own: about 52,000 objects over torch's nn/ and utils/) out of the cyclic collector's
    reach. flake8's full collections walked them all at each of its own: with the plugin the
    collector took 0.7 s there instead of 0.2 s. Objects frozen are still freed by reference
    counting; only a cycle among them that dies later is kept: once, at most what was alive at
    that moment (the first file's flake8 state; at the end of the run flake8's own application
    objects), never growing with the files. Every file after the first one leaves its garbage to
    the collector as before (a subprocess test counts the freezes and what they keep)."""
    import gc

    Plugin._collector_frozen = True
    gc.collect()
    gc.freeze()
