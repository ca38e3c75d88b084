"""Intervals found on holdout5 (rules.md "An interval": the remedy, not the pitfall). Whole
diagnostics; each form with its silent twin and its flagged twin."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

CPU = SYNC.format(what="`.cpu()`")
FORMAT = SYNC.format(what="formatting a tensor")

SAVE = """
    import torch
    def save_progress(text_encoder, token_id, save_path):
        learned = text_encoder.get_input_embeddings().weight[token_id]
        torch.save({"token": learned.detach().cpu()}, save_path)
    def train(args, text_encoder, loader, optimizer, accelerator, token_id):
        global_step, last_save = 0, 0
        for batch in loader:
            loss = text_encoder(batch.cuda()).loss
            accelerator.backward(loss)
            optimizer.step()
            global_step += 1
            if args.save_steps and global_step - last_save >= args.save_steps:
                if accelerator.is_main_process:
                    save_progress(text_encoder, token_id, "emb.pt")
                    last_save = global_step
    """


def test_a_save_under_a_mark_moved_inside_a_rank_gate_runs_at_the_interval():
    """cloneofsimo-lora's ``save_progress``: the branch moves its own mark up to the step counter
    (``last_save = global_step``) inside ``if accelerator.is_main_process:``, beside the save: the
    helper runs once per ``save_steps``, not every step."""
    assert diagnostics(SAVE, "TPL102") == []


def test_a_save_under_a_mark_nothing_moves_runs_every_step():
    """Flagged twin: nothing moves the mark, so once past it the branch runs every step."""
    source = SAVE.replace("                last_save = global_step\n", "                pass\n")
    chain = " (called every step from <string>:15)"
    assert diagnostics(source, "TPL102") == [(5, 25, CPU + chain, None, None)]


VALIDATE = """
    import torch
    def divisible_by(num, den):
        return (num % den) == 0
    class Trainer:
        def forward(self):
            step = 0
            while step < self.num_train_steps:
                loss = self.model(next(self.dl).cuda())
                loss.backward()
                self.optimizer.step()
                if self.is_main and self.should_validate and divisible_by(step, self.val_every):
                    total = 0.
                    for _ in range(self.val_batches):
                        with torch.no_grad():
                            total += self.ema_model(next(self.val_dl).cuda())
                    self.print(f"valid loss: {total:.3f}")
                step += 1
    """


def test_a_call_handed_the_step_counter_in_a_step_loop_is_an_interval():
    """meshgpt-pytorch: ``divisible_by(step, self.val_every)`` is a call handed the step counter, in
    a ``while`` step loop (not only in a step body)."""
    assert diagnostics(VALIDATE, "TPL102") == []


def test_a_flag_test_or_a_call_handed_an_outer_counter_is_no_interval():
    """Flagged twins: a test of settings only (when on, its body runs every step), and a call
    handed the counter of an outer loop (true for every step of that epoch)."""
    flag = VALIDATE.replace(" and divisible_by(step, self.val_every)", "")
    assert diagnostics(flag, "TPL102") == [(17, 27, FORMAT, None, None)]
    outer = VALIDATE.replace("            step = 0\n            while step < self.num_train_steps:\n",
                             "            for epoch in range(3):\n             step = 0\n"
                             "             while step < self.num_train_steps:\n").replace(
        "divisible_by(step, self.val_every)", "divisible_by(epoch, self.val_every)")
    assert diagnostics(outer, "TPL102") == [(18, 27, FORMAT, None, None)]


SAMPLES = """
    import torch
    class Trainer:
        def train_step(self, steps):
            imgs = next(self.dl).cuda()
            loss = self.vae(imgs)
            loss.backward()
            self.optim.step()
            if not (steps % self.save_results_every):
                for model, name in ((self.ema_vae, "ema"), (self.vae, "online")):
                    recons = model(next(self.dl).cuda())
                    self.save(recons.detach().cpu(), name)
                for imgs in self.valid_loader:
                    self.save(self.vae(imgs.cuda()).detach().cpu(), "valid")
    """


def test_a_loop_over_models_under_an_interval_runs_at_the_interval():
    """DALLE2's VQGAN trainer: under ``if not (steps % self.save_results_every):`` a loop over the
    two models saves their reconstructions; it iterates no loader, so it runs twice per interval,
    not every step. Flagged twin in the same source: a loop over a loader under the interval is a
    validation pass with steps of its own."""
    assert diagnostics(SAMPLES, "TPL102") == [(14, 26, CPU, None, None)]


def test_a_loop_over_models_every_step_still_syncs():
    """Flagged twin: without the interval the loop over the models runs every step."""
    source = SAMPLES.replace("            if not (steps % self.save_results_every):\n",
                             "            if self.save_results:\n")
    assert diagnostics(source, "TPL102") == [(12, 26, CPU, None, None), (14, 26, CPU, None, None)]


VALIDATION = """
    import torch
    def train(model, train_loader, val_loader, optimizer, val_every, val_batches):
        for step in range(1000):
            x, y = train_loader.next_batch()
            loss = model(x.cuda(), y.cuda())
            loss.backward()
            optimizer.step()
            if step % val_every == 0:
                val_loss = 0.0
                for _ in range(val_batches):
                    x, y = val_loader.next_batch()
                    val_loss += model(x.cuda(), y.cuda()).item()
    """


def test_a_validation_pass_under_an_interval_keeps_its_steps():
    """Flagged twin (llm.c): the loop under the interval takes a batch from a loader each time
    round (``val_loader.next_batch()``): a validation pass, whose per-batch ``.item()`` syncs."""
    assert diagnostics(VALIDATION, "TPL102") == [(13, 28, SYNC.format(what="`.item()`"), None, None)]


def test_a_validation_pass_over_an_iterator_under_an_interval_keeps_its_steps():
    """Flagged twin (pytorch/examples' SNLI): the loop under the interval iterates an iterator of
    batches (``enumerate(dev_iter)``, no loader by name): not a few things written out."""
    source = """
        import torch
        def train(model, train_iter, dev_iter, optimizer, dev_every):
            for step, batch in enumerate(train_iter):
                loss = model(batch)
                loss.backward()
                optimizer.step()
                if step % dev_every == 0:
                    n_correct = 0
                    with torch.no_grad():
                        for dev_batch_idx, dev_batch in enumerate(dev_iter):
                            answer = model(dev_batch)
                            n_correct += (answer.argmax(1) == dev_batch.label).sum().item()
        """
    assert diagnostics(source, "TPL102") == [(13, 33, SYNC.format(what="`.item()`"), None, None)]
