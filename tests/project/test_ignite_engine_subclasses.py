"""An Ignite ``Engine`` subclass that hands one of its methods to ``Engine.__init__`` runs that method
every iteration, as the function given to ``Engine(...)`` (rules.md "A step body"): MONAI's
``Workflow.__init__`` hands ``self._iteration`` up, and each trainer overrides it. What it returns
goes back to the engine for its handlers (the host-needed container of rules.md, judged false on
holdout37); what it does with a value itself is per step."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as ITEM
from _project_files import findings, write


MONAI_LIKE = {
    "setup.py": "",
    "engines/__init__.py": "",
    "engines/workflow.py": """
        from ignite.engine import Engine


        class Workflow(Engine):
            def __init__(self, device, iteration_update=None):
                super().__init__(self._iteration if iteration_update is None else iteration_update)
                self.device = device

            def _iteration(self, engine, batchdata):
                raise NotImplementedError
        """,
    "engines/trainer.py": """
        import torch
        from engines.workflow import Workflow


        class Trainer(Workflow):
            pass


        class GanTrainer(Trainer):
            def _iteration(self, engine, batchdata):
                d_total_loss = torch.zeros(1, device=engine.state.device)
                dloss = engine.d_loss_function(batchdata)
                dloss.backward()
                d_total_loss += dloss.item()
                g_loss = engine.g_loss_function(batchdata)
                g_loss.backward()
                if torch.isnan(g_loss):
                    print("nan")
                return {"g_loss": g_loss.item(), "d_loss": d_total_loss.item()}

            def summary(self):
                return self.state.output["g_loss"].item()
        """,
}


def _findings(root: Path):
    return findings(root, "engines/trainer.py")


def test_the_method_an_engine_subclass_hands_up_runs_every_iteration(tmp_path):
    write(tmp_path, MONAI_LIKE)
    truth = ("testing a tensor's truth waits for the device in every iteration; keep values on the device "
             "(`total += loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")
    assert _findings(tmp_path) == [("TPL102", 14, 24, ITEM), ("TPL102", 17, 11, truth)]


def test_a_subclass_of_a_class_that_is_no_engine_hands_up_nothing(tmp_path):
    files = dict(MONAI_LIKE)
    files["engines/workflow.py"] = files["engines/workflow.py"].replace(
        "from ignite.engine import Engine", "from engines.base import Engine")
    files["engines/base.py"] = """
        class Engine:
            def __init__(self, process):
                self.process = process
        """
    write(tmp_path, files)
    # ``_iteration`` still calls backward outside loops: a step body by itself (rules.md), whose
    # caller is not seen; its returned values are then not known to go to a framework
    assert [(f[1], f[2]) for f in _findings(tmp_path)] == [(14, 24), (17, 11), (19, 26), (19, 51)]
