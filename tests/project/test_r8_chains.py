"""R8 along the call chain: a helper that every visible chain runs from code that trains nothing
(Lightning's ``validation_step``/``test_step``, an evaluation loop in another file), autograd on or
off, copies results to the host: not flagged. A chain that trains, or that passes through a function
whose name says it trains (mace's ``take_step``, whose closure runs the backward where the index
sees no loop that trains), keeps the helper's copies flagged, with the chain in the message."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

CPU = SYNC.format(what="`.cpu()`")
ITEM = SYNC.format(what="`.item()`")


PLOTS = """
    import torch


    def to_figure(pred):
        rows = pred.float().cpu()
        return rows, pred.max().item()
    """
LIT = """
    import lightning.pytorch as pl
    from plots import to_figure


    class Lit(pl.LightningModule):
        def training_step(self, batch, batch_idx):
            return self.model(batch).sum()

        def validation_step(self, batch, batch_idx):
            to_figure(self.model(batch))
    """


def test_r8_a_helper_only_validation_step_reaches_copies_results(tmp_path):
    write(tmp_path, {"setup.py": "", "plots.py": PLOTS, "lit.py": LIT})
    assert findings(tmp_path, "plots.py") == [
        ("TPL102", 6, 17, ITEM + " (called every step from lit.py:10 via validation_step)")]


def test_r8_a_helper_training_step_also_reaches_keeps_its_copy_flagged(tmp_path):
    lit = LIT.replace("            return self.model(batch).sum()\n",
                      "            loss = self.model(batch).sum()\n            to_figure(loss)\n            return loss\n")
    write(tmp_path, {"setup.py": "", "plots.py": PLOTS, "lit.py": lit})
    chain = " (called every step from lit.py:8 via training_step)"
    assert findings(tmp_path, "plots.py") == [("TPL102", 5, 11, CPU + chain), ("TPL102", 6, 17, ITEM + chain)]


UTILS = """
    import torch


    def to_numpy(t):
        return t.cpu().detach().numpy()
    """
TOOLS = """
    import torch
    from utils import to_numpy


    def take_step(model, batch, optimizer):
        def closure():
            optimizer.zero_grad()
            loss = model(batch).sum()
            loss.backward()
            return loss
        loss = optimizer.step(closure)
        return to_numpy(loss)
    """
TRAIN = """
    import torch
    from tools import take_step


    def train_one_epoch(model, loader, optimizer, log):
        for batch in loader:
            log(take_step(model, batch.cuda(), optimizer))
    """


def test_r8_a_chain_through_a_function_named_for_training_keeps_the_copy_flagged(tmp_path):
    """mace: the loop hands the batch to ``take_step``, whose closure runs the backward; the index
    sees no loop that trains, but ``take_step`` says it steps."""
    write(tmp_path, {"setup.py": "", "utils.py": UTILS, "tools.py": TOOLS, "train.py": TRAIN})
    assert findings(tmp_path, "utils.py") == [
        ("TPL102", 5, 11, CPU + " (called every step from train.py:7 via take_step)")]


def test_r8_the_same_helper_reached_only_from_an_evaluation_loop_is_silent(tmp_path):
    tools = TOOLS.replace("take_step", "score_batch").replace("        loss = optimizer.step(closure)\n",
                                                                "        loss = model(batch).sum()\n")
    train = TRAIN.replace("take_step", "score_batch").replace("def train_one_epoch(", "def evaluate(")
    write(tmp_path, {"setup.py": "", "utils.py": UTILS, "tools.py": tools, "train.py": train})
    assert findings(tmp_path, "utils.py") == []


SHARED = """
    import torch
    import lightning.pytorch as pl


    class Lit(pl.LightningModule):
        def shared_step(self, batch, stage):
            out = self.model(batch.to(self.device))
            if stage == "val":
                self.kept.append(out.argmax(-1).cpu())
            if not self.training:
                self.kept.append(out.cpu())
            if stage != "val":
                self.kept.append(out.detach().cpu())
            return out.sum()

        def training_step(self, batch, batch_idx):
            return self.shared_step(batch, "train")

        def validation_step(self, batch, batch_idx):
            self.shared_step(batch, "val")
    """


def test_r8_a_branch_of_a_shared_step_that_runs_only_in_evaluation_copies_results(tmp_path):
    """``if stage == "val":`` and ``if not self.training:`` in a step function that training and
    validation share: those copies are evaluation results; the branch taken in training
    (``stage != "val"``) is a per-step sync of training."""
    write(tmp_path, {"setup.py": "", "lit.py": SHARED})
    assert findings(tmp_path, "lit.py") == [
        ("TPL102", 13, 29, CPU + " (called every step from lit.py:17 via training_step)")]
