"""Where a call's arguments live is recorded only for calls the step-body walk may resolve (issue
20, "Speed"): a dotted call resolves only through the module-level name at its head (a class or
function the module defines, a name it imports, an instance bound at module or class level), so the
methods of a local variable (``x.view(n + 1)``) get no argument places; every call the walk can
resolve keeps them, wherever in the module its head is bound. And the summary a process keeps is
the summary frozen whole (tuples for lists, a call's literal arguments as pairs)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from torchperf_lint.analysis import project_index
from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import write


MODULE = """
    import torch
    import utils
    from helpers import Tool


    def step(model, batch, n):
        out = model(batch)
        out.view(n + 1)
        utils.log(n + 1)
        tool.run(n + 1)
        Later.make(n + 1)
        keeper.add(n + 1)
        later(n + 1)
        torch.cat(n + 1)


    tool = Tool()


    class Later:
        keeper = Tool()


    def later(value):
        return value
    """


def _calls(text: str, function: str) -> dict:
    summary = project_index.summarize(ast.parse(textwrap.dedent(text)))
    return {ref[1]: constants for ref, _, _, constants, _ in summary["functions"][function]["calls"]}


def test_only_calls_the_walk_may_resolve_get_argument_places():
    calls = _calls(MODULE, "step")
    assert calls == {
        "model": {"?:0": 1},  # a parameter called: not resolved, but not a dotted call either
        "out.view": {},  # a local variable's method: never resolved, no places
        "utils.log": {"?:0": 1},  # an imported module's function
        "tool.run": {"?:0": 1},  # an instance bound at module level, below the function
        "Later.make": {"?:0": 1},  # a class the module defines, below the function
        "keeper.add": {"?:0": 1},  # an instance bound in a class body (the index's module locals)
        "later": {"?:0": 1},  # a function defined below
        "torch.cat": {},  # a library function (as before: _may_reach_project)
    }


def test_a_host_value_handed_through_a_module_level_instance_defined_below(tmp_path):
    """``logger.update(loss=loss_value)`` with ``logger`` bound at module level after the loop's
    function: the walk resolves the call to ``MetricLogger.update`` and reads where its argument
    lives (a Python float: the helper's ``.item()`` never runs on a tensor); handed a tensor, the
    helper's sync is reported with the call chain."""
    logger = """
        import torch


        class MetricLogger:
            def update(self, **kwargs):
                for k, v in kwargs.items():
                    if isinstance(v, torch.Tensor):
                        v = v.item()
                    self.meters[k] = v
        """
    engine = """
        import torch
        import utils


        def train_one_epoch(model, loader, optimizer):
            for x, y in loader:
                loss = model(x.cuda()).sum()
                loss.backward()
                optimizer.step()
                loss_value = loss.item()
                logger.update(loss={value})


        logger = utils.MetricLogger()
        """
    for name, value, expected in (
        ("host", "loss_value", []),
        ("device", "loss", [("TPL102", 8, SYNC + " (called every step from engine.py:11)")]),
    ):
        root = tmp_path / name
        write(root, {"pyproject.toml": "", "utils.py": logger, "engine.py": engine.replace("{value}", value)})
        path = Path(root / "utils.py")
        found = [(f.code, f.line, f.message) for f in lint_source(path.read_text(), str(path), codes=["TPL102"])]
        assert found == expected, name


def _frozen_reference(value):
    """The generic freeze: tuples for lists, dicts kept (what ``_frozen`` does)."""
    if type(value) is list:
        return tuple(_frozen_reference(item) for item in value)
    if type(value) is dict:
        return {key: _frozen_reference(item) for key, item in value.items()}
    return value


def test_the_kept_summary_is_the_summary_frozen_whole():
    """Every call kind the summariser records (name, instance, self, self attribute, super,
    dotted), with literal, placed and splatted arguments: the kept form is the generic freeze with
    each call's literal arguments as (key, value) pairs, and holds no list and no dict in a call."""
    text = textwrap.dedent(MODULE) + textwrap.dedent("""
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.tool = Tool()

            def forward(self, x, n, *rest, **extra):
                helper = Tool()
                helper(x, 3, key="k")
                self.tool.run(x, *rest)
                self.forward(x, n=2, **extra)
                super().forward(x)
                return later(x)
        """)
    summary = project_index.summarize(ast.parse(text))
    kept = project_index._frozen_summary(summary)
    expected = _frozen_reference(summary)
    for record in expected["functions"].values():
        record["calls"] = tuple((ref, line, step_loop, tuple(constants.items()), mode)
                                for ref, line, step_loop, constants, mode in record["calls"])
    assert kept == expected
    kinds = {call[0][0] for record in kept["functions"].values() for call in record["calls"]}
    assert kinds == {"name", "inst", "self", "selfattr", "super", "dotted"}

    def plain(value):
        return not isinstance(value, (list, dict)) and (
            not isinstance(value, tuple) or all(plain(item) for item in value))
    assert all(plain(call) for record in kept["functions"].values() for call in record["calls"])
