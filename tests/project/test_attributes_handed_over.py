"""An attribute handed over from another one (XMem's trainer, holdout71): ``__init__`` builds
``self.train_integrator = Integrator(...)`` and ``train()`` sets ``self.integrator =
self.train_integrator``; ``do_pass``, run every step, calls ``self.integrator.add_dict(losses)``, whose
``.item()`` in another file runs every step."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write


INTEGRATOR = """
    import torch


    class Integrator:
        def __init__(self):
            self.values = {}

        def add_dict(self, tensors):
            for key, tensor in tensors.items():
                self.values[key] = self.values.get(key, 0) + tensor.mean().item()
    """
TRAINER = """
    import torch

    from log_integrator import Integrator


    class Trainer:
        def __init__(self, model, optimizer):
            self.model = model
            self.optimizer = optimizer
            self.train_integrator = Integrator()

        def train(self):
            self.integrator = {source}

        def do_pass(self, data):
            loss = self.model(data["x"].cuda()).mean()
            self.integrator.add_dict({"loss": loss})
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


    def main(loader):
        trainer = Trainer(torch.nn.Linear(2, 2).cuda(), None)
        trainer.train()
        for data in loader:
            trainer.do_pass(data)
    """


def test_an_attribute_handed_the_instance_another_attribute_holds_reaches_its_methods(tmp_path):
    write(tmp_path, {"setup.py": "", "log_integrator.py": INTEGRATOR,
                     "trainer.py": TRAINER.replace("{source}", "self.train_integrator")})
    assert findings(tmp_path, "log_integrator.py") == [
        ("TPL102", 10, 57, SYNC.format(what="`.item()`") + " (called every step from trainer.py:17 via do_pass)")]


def test_an_attribute_handed_something_unknown_reaches_nothing(tmp_path):
    write(tmp_path, {"setup.py": "", "log_integrator.py": INTEGRATOR,
                     "trainer.py": TRAINER.replace("{source}", "self.other_integrator")})
    assert findings(tmp_path, "log_integrator.py") == []
