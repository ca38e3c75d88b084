"""An Ignite ``Engine`` function handed to the Engine by a helper in another file (rules.md "A step
body": Ignite, the function given to ``Engine(...)``; "The project": facts that cross files).
FixMatch-pytorch of the holdout3 set: ``trainers.create_trainer(train_step, ...)`` in
``main_fixmatch.py``, ``Engine(train_step)`` on the parameter in ``trainers/basic.py``."""

from __future__ import annotations

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_with_fix as findings, write


MAIN = """
    import torch
    import trainers


    def training(model, optimizer, device):
        def train_step(engine, batch):
            x, y = batch
            loss = model(x.to(device)).sum()
            loss.backward()
            optimizer.step()
            return {"total_loss": loss.item()}

        trainer = trainers.create_trainer(train_step, model=model)
        trainer.run()
    """


def test_a_function_handed_to_a_helper_that_gives_it_to_engine_returns_its_metrics_to_ignite(tmp_path):
    """The helper hands its first parameter to ``Engine(...)``: ``train_step`` is the Engine's
    function, and the dict it returns goes to Ignite's loggers (host-needed, silent)."""
    write(tmp_path, {
        ".git/HEAD": "ref: refs/heads/main\n",
        "main.py": MAIN,
        "trainers/__init__.py": "from trainers.basic import create_trainer\n",
        "trainers/basic.py": """
            from ignite.engine import Engine


            def create_trainer(train_step, model):
                trainer = Engine(train_step)
                return trainer
            """,
    })
    assert findings(tmp_path, "main.py") == []


def test_a_function_the_helper_does_not_give_to_engine_still_syncs(tmp_path):
    """Flagged twin: the helper hands another of its parameters to ``Engine(...)`` and only keeps
    ``train_step``: ``train_step`` stays a function that calls backward, whose caller is unseen."""
    write(tmp_path, {
        ".git/HEAD": "ref: refs/heads/main\n",
        "main.py": MAIN,
        "trainers/__init__.py": "from trainers.basic import create_trainer\n",
        "trainers/basic.py": """
            from ignite.engine import Engine


            def create_trainer(train_step, model, process=None):
                trainer = Engine(process)
                trainer.step_function = train_step
                return trainer
            """,
    })
    assert findings(tmp_path, "main.py") == [("TPL102", 11, 30, SYNC, None)]
