"""A step or batch counter tested for membership is an interval (rules.md "An interval": a test on
the step or batch counter): ``if batch_idx in self.example_idx:`` runs at the chosen batches, not
every step. Found on holdout10 (Earthformer's ``save_vis_step_end``, called from the step methods
with ``batch_idx``). Whole diagnostics; each form with its flagged twin."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")

LOOP = """
    import torch
    def train(model, loader, opt, log_steps):
        for step, (x, y) in enumerate(loader):
            loss = model(x.cuda()).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step in log_steps:
                print(loss.item())
    """


def test_a_step_loop_counter_in_chosen_steps_is_an_interval():
    assert diagnostics(LOOP, "TPL102") == []


def test_not_in_chosen_steps_runs_every_other_step():
    """``not in``: every step but the chosen ones."""
    source = LOOP.replace("if step in log_steps:", "if step not in log_steps:")
    assert diagnostics(source, "TPL102") == [(10, 18, ITEM, None, None)]


def test_a_layer_index_in_chosen_layers_is_no_interval():
    """``i`` counts layers in a forward (``if i in self.out_indices:``): every step, for those layers."""
    source = LOOP.replace("for step, (x, y) in enumerate(loader):", "for i, (x, y) in enumerate(loader):").replace(
        "if step in log_steps:", "if i in log_steps:")
    assert diagnostics(source, "TPL102") == [(10, 18, ITEM, None, None)]


def test_an_outer_loops_counter_in_chosen_values_holds_for_whole_epochs():
    source = """
    import torch
    def train(model, loader, opt, eval_steps):
        for step in range(10):
            for x in loader:
                loss = model(x.cuda()).sum()
                loss.backward()
                opt.step()
                if step in eval_steps:
                    print(loss.item())
    """
    assert diagnostics(source, "TPL102") == [(10, 22, ITEM, None, None)]


STEP_BODY = """
    import torch
    import lightning.pytorch as pl
    class Forecaster(pl.LightningModule):
        def training_step(self, batch, batch_idx):
            x, y = batch
            pred = self(x)
            loss = (pred - y).pow(2).mean()
            self.save_vis_step_end(batch_idx, x, pred, mode="train")
            return loss
        def save_vis_step_end(self, batch_idx, x, pred, mode):
            if self.local_rank == 0:
                if batch_idx in self.example_data_idx_list:
                    self.print(f"example {batch_idx}: {pred.mean().item():.3f}")
    """


def test_a_helper_under_chosen_batches_of_a_step_method_is_an_interval():
    assert diagnostics(STEP_BODY, "TPL102") == []


def test_the_same_helper_under_a_rank_test_alone_runs_every_step():
    source = STEP_BODY.replace("                if batch_idx in self.example_data_idx_list:\n",
                               "                if self.show_examples:\n")
    chain = " (called every step from <string>:9 via training_step)"
    assert diagnostics(source, "TPL102") == [(14, 51, ITEM + chain, None, None)]


CALLER = """
    import torch
    import lightning.pytorch as pl
    class Forecaster(pl.LightningModule):
        def training_step(self, batch, batch_idx):
            x, y = batch
            pred = self(x)
            loss = (pred - y).pow(2).mean()
            if batch_idx in self.vis_batches:
                self.show(pred)
            return loss
        def show(self, pred):
            print(pred.mean().item())
    """


def test_a_helper_called_at_chosen_batches_is_not_run_every_step():
    """The project index's twin of the test (a call under it is no per-step call)."""
    assert diagnostics(CALLER, "TPL102") == []


def test_a_helper_called_under_a_flag_is_run_every_step():
    source = CALLER.replace("if batch_idx in self.vis_batches:", "if self.show_examples:")
    chain = " (called every step from <string>:10 via training_step)"
    assert diagnostics(source, "TPL102") == [(13, 14, ITEM + chain, None, None)]
