"""An attribute ``__init__`` binds to instances of several project classes in its branches (R157):
DQN-Atari-Agents' C51 agent (holdout178) builds ``self.qnetwork_target`` as a ``DDQN_C51`` or a
``Dueling_C51Network`` by its settings, and its update calls ``self.qnetwork_target.act(...)``
every step: both classes' ``act`` run every step, not only the last one bound. Whole diagnostics,
flagged and silent twins."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import CPU_SYNC
from _project_files import findings_without_col, write

NETWORKS = """
    import torch
    import torch.nn as nn


    class DuelingNetwork(nn.Module):
        def forward(self, x):
            return x

        def act(self, state):
            return self.forward(state).cpu()


    class PlainNetwork(nn.Module):
        def forward(self, x):
            return x

        def act(self, state):
            return self.forward(state).cpu()
    """

AGENT = """
    import torch
    from networks import DuelingNetwork, PlainNetwork


    class Agent:
        def __init__(self, dueling):
            if dueling:
                self.target = {first}
            else:
                self.target = {second}
            self.optimizer = torch.optim.Adam([])

        def learn(self, states):
            actions = self.target.act(states)
            loss = actions.sum()
            loss.backward()
            self.optimizer.step()
    """


def _chain(line: int) -> str:
    return f"{CPU_SYNC} (called every step from agent.py:{line} via learn)"


def test_each_class_an_attribute_may_hold_runs_every_step(tmp_path: Path):
    write(tmp_path, {"networks.py": NETWORKS,
                     "agent.py": AGENT.format(first="DuelingNetwork().cuda()", second="PlainNetwork().cuda()")})
    assert findings_without_col(tmp_path, "networks.py") == [
        ("TPL102", 10, _chain(14)), ("TPL102", 18, _chain(14))]


def test_a_class_the_attribute_never_holds_is_not_reached(tmp_path: Path):
    """The twin: both branches build the same class; the other class's ``act`` is called by nothing."""
    write(tmp_path, {"networks.py": NETWORKS,
                     "agent.py": AGENT.format(first="PlainNetwork().cuda()", second="PlainNetwork()")})
    assert findings_without_col(tmp_path, "networks.py") == [("TPL102", 18, _chain(14))]
