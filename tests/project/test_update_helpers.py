"""R64: a function that hands an optimizer, outside loops and with autograd on, to a project helper
whose body runs the backward (``update_params(self.optim, loss, ...)``) runs a training step each
time it runs, as a function with its own backward does: what it calls runs every step
(fqf-iqn-qrdqn's agents, holdout117: ``learn`` calls ``calculate_loss``, which returns
``next_q.mean().item()``)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write

HELPER_BODY = """
    def update_params(optim, loss, networks, grad_clip=None):
        optim.zero_grad()
        loss.backward()
        optim.step()
"""
NOT_AN_UPDATE = """
    def update_params(optim, loss, networks, grad_clip=None):
        print(optim, loss.shape)
"""

AGENT = """
    import torch
    from pkg.utils import update_params


    class Agent:
        def learn(self):
            batch = self.memory.sample(32)
            loss, mean_q = self.calculate_loss(batch)
            {call}
            if self.steps % 100 == 0:
                self.writer.add_scalar("q", mean_q, self.steps)

        def calculate_loss(self, batch):
            q = self.net(batch)
            loss = q.pow(2).mean()
            return loss, q.detach().mean().item()
"""
UPDATE_CALL = "update_params(self.optim, loss, networks=[self.net])"
REPORTED = [("TPL102", 16, 21, SYNC + " (called every step from pkg/agent.py:8 via learn)")]


def _project(root: Path, helper: str, call: str) -> list:
    write(root, {"setup.py": "", "pkg/__init__.py": "", "pkg/utils.py": helper,
                 "pkg/agent.py": AGENT.replace("{call}", call)})
    return findings(root, "pkg/agent.py")


def test_a_function_that_hands_its_optimizer_to_a_helper_running_the_backward_is_a_step(tmp_path):
    assert _project(tmp_path, HELPER_BODY, UPDATE_CALL) == REPORTED


def test_a_helper_that_runs_no_backward_makes_no_step(tmp_path):
    assert _project(tmp_path, NOT_AN_UPDATE, UPDATE_CALL) == []


def test_the_helper_called_with_autograd_off_or_in_a_loop_of_the_caller_is_no_step_of_it(tmp_path):
    """Under ``torch.no_grad()`` no backward runs; inside a loop of the caller, the loop is the step
    (and the caller runs once: what it calls before the loop runs once)."""
    assert _project(tmp_path, HELPER_BODY, "with torch.no_grad():\n                " + UPDATE_CALL) == []
    assert _project(tmp_path / "loop", HELPER_BODY,
                    "for _ in range(4):\n                " + UPDATE_CALL) == []


def test_a_helper_handed_no_optimizer_is_not_read(tmp_path):
    """Only a call handed an optimizer or a scaler by its name is followed into its helper (the index
    records those alone: a function's other calls are not resolved for this)."""
    assert _project(tmp_path, HELPER_BODY.replace("optim, loss", "opt_state, loss").replace(
        "optim.", "opt_state."), UPDATE_CALL.replace("self.optim", "self.state")) == []
