"""A project base class brought by a star import (``from .BaseTrainer import *`` then ``class
EditTrainer(BaseTrainer)``: EasyEdit, holdout63): the base's step loop calls ``self.train_step``,
which the subclass overrides in its own file; the override is a step body as with a named import."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write


BASE = """
    import torch


    class BaseTrainer:
        def run(self):
            for epoch in range(10):
                for i, batch in enumerate(self.train_loader):
                    self.global_iter += 1
                    info = self.train_step(batch)
                    if self.global_iter % self.log_interval == 0:
                        print(info)
    """
EDIT = """
    import torch

    from {import_line}


    class EditTrainer(BaseTrainer):
        def train_step(self, batch):
            info = self.edit_step(batch)
            if self.global_iter % self.accumulate_bs == 0:
                info["grad"] = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0).item()
                self.opt.step()
                self.opt.zero_grad()
            return info

        def edit_step(self, batch):
            return {"loss": self.model(batch)}
    """


def _project(tmp_path: Path, import_line: str) -> None:
    write(tmp_path, {"setup.py": "", "trainer/__init__.py": "", "trainer/BaseTrainer.py": BASE,
                     "trainer/EditTrainer.py": EDIT.replace("{import_line}", import_line)})


def test_an_override_of_a_star_imported_base_is_a_step_body(tmp_path):
    _project(tmp_path, ".BaseTrainer import *")
    assert findings(tmp_path, "trainer/EditTrainer.py") == [
        ("TPL102", 10, 27, SYNC.format(what="`.item()`") + " (called every step from trainer/BaseTrainer.py:9)")]


def test_a_star_import_of_a_module_without_the_base_reaches_nothing(tmp_path):
    write(tmp_path, {"trainer/other.py": "import torch\n"})
    _project(tmp_path, ".other import *")
    assert findings(tmp_path, "trainer/EditTrainer.py") == []
