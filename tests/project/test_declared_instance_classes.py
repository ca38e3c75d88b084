"""An attribute whose class the code states (trlx's ``self.ilql: ILQLConfig = cast(ILQLConfig,
config.method)``, holdout20; the lead, 2026-11-27): the value comes from a registry the project
does not show, but the annotation or ``typing.cast`` names a project class, so ``self.ilql.loss``
runs that class's ``loss``."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col, write


PROJECT = {
    "setup.py": "",
    "methods.py": """
        import torch


        class ILQLConfig:
            def loss(self, logits, labels):
                loss = torch.nn.functional.cross_entropy(logits, labels)
                stats = {"loss": loss.item()}
                return loss, stats
        """,
    "trainer.py": """
        from typing import cast

        import torch
        from methods import ILQLConfig


        class Trainer:
            def __init__(self, model, loader, optimizer, config):
                self.model = model
                self.loader = loader
                self.optimizer = optimizer
                self.ilql: ILQLConfig = cast(ILQLConfig, config.method)

            def learn(self):
                for x, y in self.loader:
                    loss, stats = self.ilql.loss(self.model(x.cuda()), y.cuda())
                    loss.backward()
                    self.optimizer.step()
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "methods.py")


def test_an_annotated_attribute_runs_the_class_it_names(tmp_path):
    write(tmp_path / "both", PROJECT)
    expected = [("TPL102", 7, SYNC + " (called every step from trainer.py:16)")]
    assert _findings(tmp_path / "both") == expected
    files = dict(PROJECT)
    files["trainer.py"] = files["trainer.py"].replace("self.ilql: ILQLConfig = cast(ILQLConfig, config.method)",
                                                      "self.ilql: ILQLConfig = config.method")
    write(tmp_path / "annotation", files)
    assert _findings(tmp_path / "annotation") == expected
    files["trainer.py"] = files["trainer.py"].replace("self.ilql: ILQLConfig = config.method",
                                                      "self.ilql = cast(ILQLConfig, config.method)")
    write(tmp_path / "cast", files)
    assert _findings(tmp_path / "cast") == expected


def test_an_attribute_whose_class_the_code_does_not_state_is_not_followed(tmp_path):
    files = dict(PROJECT)
    files["trainer.py"] = files["trainer.py"].replace("self.ilql: ILQLConfig = cast(ILQLConfig, config.method)",
                                                      "self.ilql = config.method")
    write(tmp_path, files)
    assert _findings(tmp_path) == []


def test_an_annotated_local_name_runs_the_class_it_names(tmp_path):
    files = dict(PROJECT)
    files["trainer.py"] = '''
        import torch
        from methods import ILQLConfig


        def learn(model, loader, optimizer, config):
            ilql: ILQLConfig = config.method
            for x, y in loader:
                loss, stats = ilql.loss(model(x.cuda()), y.cuda())
                loss.backward()
                optimizer.step()
        '''
    write(tmp_path / "annotated", files)
    assert _findings(tmp_path / "annotated") == [("TPL102", 7, SYNC + " (called every step from trainer.py:8)")]
    files["trainer.py"] = files["trainer.py"].replace("ilql: ILQLConfig = config.method", "ilql = config.method")
    write(tmp_path / "plain", files)
    assert _findings(tmp_path / "plain") == []
