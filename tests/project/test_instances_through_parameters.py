"""A model handed to the function that holds the step loop (``train(opt, model, ...)``) by callers
that all bind it to an instance of one project class: its ``forward`` and methods run every step
(the lead, 2026-11-26, from holdout18's contriever, whose ``src/`` folder is a package imported as
``from src import inbatch``, not the src layout)."""

from __future__ import annotations

from pathlib import Path

from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC, SYNC_TEMPLATE
from _project_files import findings_without_col, write


CONTRIEVER_LIKE = {
    "setup.py": "",
    "src/__init__.py": "",
    "src/inbatch.py": """
        import torch
        import torch.nn as nn


        class InBatch(nn.Module):
            def __init__(self, opt):
                super().__init__()
                self.encoder = nn.Linear(4, 4)

            def forward(self, q_tokens, k_tokens, stats_prefix="", iter_stats={}):
                loss = (self.encoder(q_tokens) * self.encoder(k_tokens)).sum()
                iter_stats[f"{stats_prefix}loss"] = (loss.item(), 1)
                return loss, iter_stats

            def stats(self, q_tokens):
                return torch.std(self.encoder(q_tokens), dim=0).mean().item()
        """,
    "finetuning.py": """
        import torch
        from src import inbatch


        def train(opt, model, optimizer, loader):
            for i, batch in enumerate(loader):
                batch = {k: v.cuda() for k, v in batch.items()}
                loss, stats = model(**batch, stats_prefix="train/")
                print(model.stats(batch["q_tokens"]))
                loss.backward()
                optimizer.step()


        def main(opt, loader):
            model = inbatch.InBatch(opt)
            model = model.cuda()
            optimizer = torch.optim.AdamW(model.parameters())
            train(opt, model, optimizer, loader)
        """,
}


def _findings(root: Path):
    return findings_without_col(root, "src/inbatch.py")


def test_forward_and_methods_of_a_model_handed_to_the_training_function_run_every_step(tmp_path):
    write(tmp_path, CONTRIEVER_LIKE)
    assert _findings(tmp_path) == [
        ("TPL102", 12, SYNC + " (called every step from finetuning.py:8)"),
        ("TPL102", 16, SYNC + " (called every step from finetuning.py:9)"),
    ]


def test_a_caller_that_hands_something_else_leaves_the_call_unresolved(tmp_path):
    files = dict(CONTRIEVER_LIKE)
    files["finetuning.py"] = files["finetuning.py"] + "\n\ndef other(opt, loader, build):\n    train(opt, build(opt), None, loader)\n"
    write(tmp_path, files)
    assert _findings(tmp_path) == []


def test_callers_that_hand_instances_of_two_classes_leave_it_unresolved(tmp_path):
    files = dict(CONTRIEVER_LIKE)
    files["src/moco.py"] = "import torch.nn as nn\n\n\nclass MoCo(nn.Module):\n    pass\n"
    files["finetuning.py"] = files["finetuning.py"].replace("from src import inbatch", "from src import inbatch, moco") + (
        "\n\ndef other(opt, loader):\n    model = moco.MoCo()\n    train(opt, model, None, loader)\n")
    write(tmp_path, files)
    assert _findings(tmp_path) == []


def test_a_parallel_wrapper_keeps_the_wrapped_class(tmp_path):
    """contriever wraps the model before handing it over (``model =
    torch.nn.parallel.DistributedDataParallel(model, ...)``): the wrapper's call runs the wrapped
    model's ``forward``. A wrapper of something the function did not build leaves it unresolved."""
    files = dict(CONTRIEVER_LIKE)
    files["finetuning.py"] = files["finetuning.py"].replace(
        "            model = model.cuda()\n",
        "            model = model.cuda()\n"
        "            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])\n")
    write(tmp_path / "wrapped", files)
    assert _findings(tmp_path / "wrapped") == [
        ("TPL102", 12, SYNC + " (called every step from finetuning.py:8)"),
        ("TPL102", 16, SYNC + " (called every step from finetuning.py:9)"),
    ]
    files["finetuning.py"] = files["finetuning.py"].replace(
        "DistributedDataParallel(model, device_ids=[0])", "DistributedDataParallel(opt.model, device_ids=[0])")
    write(tmp_path / "other", files)
    assert _findings(tmp_path / "other") == []


DICT_MODEL = {
    "setup.py": "",
    "wrap/__init__.py": "",
    "wrap/loss_wrapper.py": """
        import torch


        class LossWrapper(torch.nn.Module):
            def __init__(self, model):
                super().__init__()
                self.model = model

            def forward(self, x):
                out = {}
                out["loss"] = self.model(x).mean()
                out["reward"] = out["loss"].detach()
                return out
        """,
    "train.py": """
        import torch
        from wrap.loss_wrapper import LossWrapper


        def train(model, loader, optimizer):
            lw_model = LossWrapper(model).cuda()
            for x in loader:
                model_out = lw_model(x.cuda())
                model_out["loss"].backward()
                optimizer.step()
                print("avg_reward = {:.3f}".format(model_out["reward"].mean()))
        """,
}

FORMAT = SYNC_TEMPLATE.format(what="formatting a tensor")


def test_the_items_of_a_dict_a_project_model_returns_live_on_the_device(tmp_path):
    """self-critical's ``model_out = dp_lw_model(...)`` then ``.format(..., model_out['reward'].mean())``
    (holdout13): resolving the call to the project's ``LossWrapper.forward``, which returns a dict,
    must not make its items less known than a model's output."""
    write(tmp_path, DICT_MODEL)
    path = tmp_path / "train.py"
    found = [(f.code, f.line, f.message) for f in lint_source(path.read_text(), str(path), codes=("TPL102",))]
    assert found == [("TPL102", 11, FORMAT)]
