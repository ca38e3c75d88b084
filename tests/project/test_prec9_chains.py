"""R11 (docs/precision.md "prec9"): a call made in a branch that runs only in evaluation (``if
self.stage == "val":``, ``if not self.training:``) carries the evaluation to its callee, in the same
file or in another: the callee runs from there in no training step (R8 for the branch itself is
analysis/evaluation_branches.py). A callee that training also reaches, through a call outside such
a branch, keeps its copies flagged, with the chain in the message."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

CPU = SYNC.format(what="`.cpu()`")
ITEM = SYNC.format(what="`.item()`")
CHAIN = " (called every step from module.py:12 via training_step → general_step)"


SIMILARITIES = """
    import torch


    def log_data_similarities(seq_pred, kept):
        kept.append(seq_pred.cpu())
        return seq_pred.float().mean().item()
    """
MODULE = """
    import lightning.pytorch as pl
    import torch
    from metrics import log_data_similarities


    class DNAModule(pl.LightningModule):
        def forward(self, batch):
            return self.model(batch)

        def training_step(self, batch, batch_idx):
            self.stage = "train"
            return self.general_step(batch)

        def validation_step(self, batch, batch_idx):
            self.stage = "val"
            return self.general_step(batch)

        def general_step(self, batch):
            logits = self(batch)
            if self.stage == "val":
                self.log_samples(logits)
                log_data_similarities(logits.argmax(-1), self.kept)
            return logits.sum()

        def log_samples(self, logits):
            self.kept.append(logits.softmax(-1).cpu())
    """


def test_r11_helpers_called_in_a_validation_only_branch_of_a_shared_step_copy_results(tmp_path):
    """dirichlet-flow-matching's ``general_step``: training and validation share it, and the
    helpers are called only under ``if self.stage == "val":``. Their copies are evaluation results
    (R8), in the same file and in another; the ``.item()`` read as a number stays flagged, with
    its chain (the first found: through training_step, whose name, and general_step's, no longer count past
    the branch)."""
    write(tmp_path, {"setup.py": "", "metrics.py": SIMILARITIES, "module.py": MODULE})
    assert findings(tmp_path, "module.py") == []
    assert findings(tmp_path, "metrics.py") == [("TPL102", 6, 11, ITEM + CHAIN)]


def test_r11_a_helper_also_called_outside_the_branch_keeps_its_copies_flagged(tmp_path):
    """Flagged twin: the same helpers also called on the training path (outside the branch), or
    under a test of a flag that is no stage (``if self.log_every_step:``)."""
    both = MODULE.replace("            return logits.sum()\n",
                          "            self.log_samples(logits)\n            return logits.sum()\n")
    flag = MODULE.replace('if self.stage == "val":', "if self.log_every_step:")
    write(tmp_path, {"setup.py": "", "metrics.py": SIMILARITIES, "module.py": both})
    assert findings(tmp_path, "module.py") == [("TPL102", 27, 25, CPU + CHAIN)]
    write(tmp_path, {"setup.py": "", "metrics.py": SIMILARITIES, "module.py": flag})
    assert findings(tmp_path, "module.py") == [("TPL102", 26, 25, CPU + CHAIN)]
    assert findings(tmp_path, "metrics.py") == [("TPL102", 5, 16, CPU + CHAIN), ("TPL102", 6, 11, ITEM + CHAIN)]


SAMPLING = """
    import torch


    def randomize_position(data_list, cutoff=7):
        complex = data_list[0]
        d = torch.cdist(complex["receptor"].pos, complex["ligand"].pos)
        label = torch.any(d < cutoff, dim=1)
        if torch.any(label):
            center = complex["receptor"].pos[label].mean(dim=0)
        else:
            center = complex["receptor"].pos.mean(dim=0)
        for g in data_list:
            g["ligand"].pos = g["ligand"].pos - center
    """
EVALUATE = """
    import copy
    import torch
    from torch.utils.data import DataLoader
    from utils.sampling import randomize_position


    def main(args, dataset, model):
        test_loader = DataLoader(dataset, batch_size=1, num_workers=2)
        for idx, orig_complex_graph in enumerate(test_loader):
            data_list = [copy.deepcopy(orig_complex_graph) for _ in range(args.n)]
            randomize_position(data_list)
            data_list, confidence = model(data_list)
    """
TRAIN = """
    import copy
    from utils.sampling import randomize_position


    def train_epoch(model, train_loader, optimizer):
        for batch in train_loader:
            graphs = [copy.deepcopy(batch) for _ in range(4)]
            randomize_position(graphs)
            model(graphs).backward()
            optimizer.step()
    """


def test_r14_deep_copies_of_a_loader_batch_handed_to_a_helper_in_another_file_are_on_the_host(tmp_path):
    """R14 (DiffDock's ``randomize_position``): every caller, in every file, hands it deep copies of a
    batch of a DataLoader that nothing moved; ``data_list`` is bound again after the call, by the
    model's output. The helper's truth test reads host tensors only."""
    write(tmp_path, {"setup.py": "", "utils/__init__.py": "", "utils/sampling.py": SAMPLING,
                     "evaluate.py": EVALUATE, "train.py": TRAIN})
    assert findings(tmp_path, "utils/sampling.py") == []


def test_r14_one_caller_that_moves_its_batch_keeps_the_helper_flagged(tmp_path):
    """Flagged twin: one caller moves the batch to the device before copying it."""
    moved = TRAIN.replace("        for batch in train_loader:\n",
                          "        for batch in train_loader:\n            batch = batch.cuda()\n")
    write(tmp_path, {"setup.py": "", "utils/__init__.py": "", "utils/sampling.py": SAMPLING,
                     "evaluate.py": EVALUATE, "train.py": moved})
    truth = SYNC.format(what="testing a tensor's truth")
    assert findings(tmp_path, "utils/sampling.py") == [
        ("TPL102", 8, 7, truth + " (called every step from evaluate.py:11)")]


FLOW = """
    import numpy as np
    import scipy.special
    import torch


    class ConditionalFlow:
        def __init__(self, K):
            self.K = K

        def c_factor(self, bs, alpha):
            out = scipy.special.beta(alpha, self.K - 1)
            return np.where(bs < 1, out / ((1 - bs) ** (self.K - 1)), 0)

        def t_factor(self, bs, alpha):
            return torch.where(bs < 1, bs * alpha, 0)
    """
FLOW_MODULE = """
    import lightning.pytorch as pl
    import torch
    from utils.flow import ConditionalFlow


    class FlowModule(pl.LightningModule):
        def __init__(self, model):
            super().__init__()
            self.model = model
            self.condflow = ConditionalFlow(K=4)

        def forward(self, x):
            return self.model(x)

        def training_step(self, batch, batch_idx):
            xt = self(batch)
            s = xt.max()
            c_factor = self.condflow.c_factor(xt.cpu().numpy(), s.item())
            c_factor = torch.from_numpy(c_factor).to(xt)
            return (xt * c_factor).sum()
    """


def test_r15_copies_handed_to_a_method_of_an_attribute_that_numpy_reads_are_host_needed(tmp_path):
    """dirichlet-flow-matching's ``self.condflow.c_factor(xt.cpu().numpy(), s.item())``: ``__init__``
    binds ``self.condflow`` to a project class whose ``c_factor`` hands both parameters to scipy and
    numpy (another file): the host must have them (R3), as for ``rb.update_priorities(...)``."""
    write(tmp_path, {"setup.py": "", "utils/__init__.py": "", "utils/flow.py": FLOW, "module.py": FLOW_MODULE})
    assert findings(tmp_path, "module.py") == []


def test_r15_a_method_that_keeps_its_parameters_on_the_device_leaves_the_copies_flagged(tmp_path):
    """Flagged twin: ``t_factor`` computes with torch only; nothing there needs the host."""
    write(tmp_path, {"setup.py": "", "utils/__init__.py": "", "utils/flow.py": FLOW,
                     "module.py": FLOW_MODULE.replace("c_factor(xt", "t_factor(xt")})
    assert findings(tmp_path, "module.py") == [("TPL102", 18, 42, CPU), ("TPL102", 18, 60, ITEM)]
