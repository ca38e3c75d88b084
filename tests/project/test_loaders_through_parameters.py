"""A loop over a parameter that every visible call, in any file, hands a ``DataLoader`` iterates a
data loader (rules.md "A step loop"): deeplabv3-plus's ``fit_one_epoch(..., gen, gen_val, ...)``
validates with ``for iteration, batch in enumerate(gen_val):``, ``train.py`` building ``gen_val =
DataLoader(...)`` (holdout27; the lead, 2026-11-27)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings, write


PROJECT = {
    "setup.py": "",
    "utils/__init__.py": "",
    "utils/utils_fit.py": """
        import torch


        def fit_one_epoch(model_train, optimizer, gen, gen_val):
            for iteration, (imgs, pngs) in enumerate(gen):
                loss = model_train(imgs.cuda()).mean()
                loss.backward()
                optimizer.step()
            val_loss = 0
            model_train.eval()
            for iteration, (imgs, pngs) in enumerate(gen_val):
                with torch.no_grad():
                    loss = model_train(imgs.cuda()).mean()
                val_loss += loss.item()
            return val_loss
        """,
    "train.py": """
        import torch
        from torch.utils.data import DataLoader
        from utils.utils_fit import fit_one_epoch


        def main(model, optimizer, train_dataset, val_dataset, epochs):
            gen = DataLoader(train_dataset, batch_size=8, shuffle=True)
            gen_val = DataLoader(val_dataset, batch_size=8)
            for epoch in range(epochs):
                fit_one_epoch(model.cuda(), optimizer, gen, gen_val)
        """,
}


def _findings(root: Path):
    return findings(root, "utils/utils_fit.py")


def test_a_parameter_every_caller_hands_a_dataloader_is_a_loader(tmp_path):
    write(tmp_path, PROJECT)
    assert _findings(tmp_path) == [("TPL102", 14, 20, SYNC)]


def test_a_parameter_handed_anything_else_is_not(tmp_path):
    files = dict(PROJECT)
    # a builtin's result; another class's instance (each project in a folder of its own: the index
    # keeps a file's summary while its size and time stamp look the same)
    for index, other in enumerate(("list(val_dataset)", "BatchList(val_dataset)")):
        files["train.py"] = PROJECT["train.py"].replace("gen_val = DataLoader(val_dataset, batch_size=8)",
                                                        f"gen_val = {other}")
        write(tmp_path / str(index), files)
        assert _findings(tmp_path / str(index)) == []


def test_callers_that_disagree_leave_it_unknown(tmp_path):
    files = dict(PROJECT)
    files["evaluate.py"] = """
        from utils.utils_fit import fit_one_epoch


        def again(model, optimizer, gen, batches):
            fit_one_epoch(model, optimizer, gen, batches)
        """
    write(tmp_path, files)
    assert _findings(tmp_path) == []
