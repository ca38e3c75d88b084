"""Forms of holdout13's first score (2026-11-26, the lead; tuned on that set)."""

from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC


TRUTH = SYNC.replace("`.item()` waits", "testing a tensor's truth waits")

ONE_LOADER_OF_SEVERAL = """\
import torch


class Trainer:
    def _eval_step(self, batch):
        x, y = batch
        loss = self.criterion(self.model(x.cuda()), y.cuda())
        self.total_eval_loss["eval/loss"] += loss.item()

    def _eval_epoch(self):
        for n, batch in enumerate(self.data_loader["dev"], 1):
            self._eval_step(batch)


def train(model, dataloaders, optimizer, phases):
    for phase in phases:
        for x, y in dataloaders[phase]:
            loss = model(x.cuda()).sum()
            print(loss.item())
    for name in phases[0]:
        print(name.upper())
"""


def test_a_loop_over_one_loader_of_a_dict_of_loaders_is_a_step_loop():
    """ParallelWaveGAN's ``self.data_loader["dev"]``, the tutorial's ``dataloaders[phase]``: a
    loop over one loader of several takes batches as a loop over a loader does (a loop over an item
    of anything else does not)."""
    found = [(f.code, f.line, f.message) for f in lint_source(ONE_LOADER_OF_SEVERAL, "train.py", codes=("TPL102",))]
    assert found == [
        ("TPL102", 8, SYNC + " (called every step from train.py:12)"),
        ("TPL102", 19, SYNC),
    ]


DATASET_ITEMS = """\
import torch


def validate(model, val_dataset, predictions):
    for val_id in range(len(val_dataset)):
        image1, image2, flow_gt, _ = val_dataset[val_id]
        flow = model(image1[None].cuda(), image2[None].cuda())[0].cpu()
        valid = torch.sum(flow_gt ** 2, dim=0).sqrt() < 10
        if valid.max() > 0:
            print((flow - flow_gt)[:, valid].mean())
        pred = model(image1[None].cuda(), image2[None].cuda())[0]
        if pred.max() > 0:
            print(val_id)
"""


def test_an_item_a_dataset_hands_out_is_on_the_host():
    """gmflow's ``image1, image2, flow_gt, _ = val_dataset[val_id]``: an item a dataset hands out
    is a batch before any move (rules.md "Where a value lives"), so testing its mask waits for no
    device; an item of something else stays of unknown origin."""
    found = [(f.code, f.line, f.message) for f in lint_source(DATASET_ITEMS, "evaluate.py", codes=("TPL102",))]
    assert found == [("TPL102", 12, TRUTH)]
