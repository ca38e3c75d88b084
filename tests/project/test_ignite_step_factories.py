"""An Ignite ``Engine`` built on what a factory returns (medical-ai, holdout33; the lead,
2026-11-27, the thirteenth session): ``get_step_fn = get_step_fn_det_seg`` then
``Engine(get_step_fn(model, optimizer, ...))``, the factory defining ``step_fn`` and returning it.
``step_fn`` is the Engine's process function: the dict of ``.item()``s it returns is what Ignite
hands to its loggers (rules.md "A step body": a Python container the step returns to its framework
is host-needed), while a sync it makes for itself still counts."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write


PROJECT = {
    "setup.py": "",
    "medai/__init__.py": "",
    "medai/steps.py": """
        import torch


        def get_step_fn_det_seg(model, optimizer=None, training=True):
            def step_fn(unused_engine, data_batch):
                images = data_batch.image.cuda()
                total_loss = model(images).mean()
                if training:
                    total_loss.backward()
                    optimizer.step()
                print(total_loss.item())
                return {"loss": total_loss.item()}

            return step_fn
        """,
    "medai/train.py": """
        from ignite.engine import Engine

        from medai.steps import get_step_fn_det_seg


        class TrainingProcess:
            def _create_engine(self, model, optimizer):
                get_step_fn = get_step_fn_det_seg
                return Engine(get_step_fn(model, optimizer, training=True))
        """,
}


def _findings(root: Path):
    return findings(root, "medai/steps.py")


def test_the_function_a_factory_returns_to_an_engine_is_its_process_function(tmp_path):
    write(tmp_path, PROJECT)
    assert _findings(tmp_path) == [("TPL102", 11, 14, SYNC)]


def test_without_the_engine_the_returned_dict_is_no_framework_s(tmp_path):
    """Flagged twin: no ``Engine`` takes the function, so it is only a function that calls
    ``backward`` (a step body of its own), and the returned ``.item()`` syncs too."""
    files = dict(PROJECT)
    files["medai/train.py"] = files["medai/train.py"].replace(
        "return Engine(get_step_fn(model, optimizer, training=True))", "return get_step_fn(model, optimizer)")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 11, 14, SYNC), ("TPL102", 12, 24, SYNC)]
