"""Graph-WaveNet (holdout17): ``from engine import trainer`` then ``engine = trainer(...)`` binds an
instance of a lowercase project class, and ``dataloader["val_loader"].get_iterator()`` hands out a
loader's batches; the evaluation method called every validation batch is a step body's callee
(R7 keeps its per-batch ``.item()``s flagged). The lead, 2026-11-26."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col, write


GWN_LIKE = {
    "setup.py": "",
    "engine.py": """
        import torch


        class trainer():
            def __init__(self, model):
                self.model = model
                self.optimizer = torch.optim.Adam(self.model.parameters())

            def train(self, input, real):
                self.optimizer.zero_grad()
                loss = (self.model(input) - real).abs().mean()
                loss.backward()
                self.optimizer.step()
                return loss.item()

            def eval(self, input, real):
                output = self.model(input)
                return (output - real).abs().mean().item()
        """,
    "train.py": """
        import torch
        from engine import trainer


        def main(dataloader, model, device):
            engine = trainer(model)
            for epoch in range(10):
                for x, y in dataloader["train_loader"].get_iterator():
                    engine.train(torch.Tensor(x).to(device), torch.Tensor(y).to(device))
                for x, y in dataloader["val_loader"].get_iterator():
                    engine.eval(torch.Tensor(x).to(device), torch.Tensor(y).to(device))
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "engine.py")


def test_an_evaluation_method_of_a_lowercase_class_called_every_batch_is_reached(tmp_path):
    write(tmp_path, GWN_LIKE)
    assert _findings(tmp_path) == [
        ("TPL102", 14, SYNC),
        ("TPL102", 18, SYNC + " (called every step from train.py:11)"),
    ]


def test_a_function_s_result_is_no_instance(tmp_path):
    files = dict(GWN_LIKE)
    files["train.py"] = files["train.py"].replace("from engine import trainer", "from engine import trainer\n"
                                                  "        from helpers import make").replace(
        "engine = trainer(model)", "engine = make(model)")
    write(tmp_path, files)
    assert _findings(tmp_path) == [("TPL102", 14, SYNC)]
