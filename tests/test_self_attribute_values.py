"""Where a value lives, for ``self.<name>`` bound earlier in the same function (rules.md "Where a
value lives"): minGPT's trainer counts tokens on the device (``self.tokens += (y >= 0).sum()``) and
reads them back for the learning-rate schedule every step. Whole diagnostics, with twins: a counter
kept in Python, and an attribute bound in another method and only read here (not known)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

TRUTH = SYNC.format(what="testing a tensor's truth")
FLOAT = SYNC.format(what="`float()` of a tensor")

MINGPT = """
    import math
    import torch


    class Trainer:
        def run_epoch(self, loader, config):
            self.tokens = 0
            for x, y in loader:
                x, y = x.to(self.device), y.to(self.device)
                logits, loss = self.model(x, y)
                self.model.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.tokens += (y >= 0).sum()
                if self.tokens < config.warmup_tokens:
                    lr_mult = float(self.tokens) / float(max(1, config.warmup_tokens))
                else:
                    lr_mult = 0.5 * (1.0 + math.cos(math.pi * float(self.tokens - config.warmup_tokens)))
    """


def test_a_token_count_kept_on_the_device_is_read_back_every_step():
    assert diagnostics(MINGPT, "TPL102") == [(16, 15, TRUTH, None, None), (17, 26, FLOAT, None, None),
                                             (19, 58, FLOAT, None, None)]


def test_a_token_count_kept_in_python_waits_for_nothing():
    source = MINGPT.replace("self.tokens += (y >= 0).sum()", "self.tokens += int(y.numel())")
    assert diagnostics(source, "TPL102") == []


def test_an_attribute_added_to_without_a_binding_here_holds_what_was_added():
    """decision-transformer binds ``self.tokens = 0`` in the function around ``run_epoch``, after
    defining it: ``self.tokens += (y >= 0).sum()`` still leaves a device tensor there."""
    source = MINGPT.replace("            self.tokens = 0\n", "            pass\n")
    assert diagnostics(source, "TPL102") == [(16, 15, TRUTH, None, None), (17, 26, FLOAT, None, None),
                                             (19, 58, FLOAT, None, None)]


def test_an_attribute_bound_in_another_method_and_only_read_here_is_not_known():
    source = MINGPT.replace("            self.tokens = 0\n", "            pass\n").replace(
        "                self.tokens += (y >= 0).sum()\n", "")
    assert diagnostics(source, "TPL102") == []


def test_a_host_value_kept_on_self_is_host():
    source = """
    import torch


    class Trainer:
        def fit(self, loader):
            for x in loader:
                loss = self.model(x.cuda()).mean()
                loss.backward()
                self.optimizer.step()
                self.last = loss.detach()
                self.shown = 2.0
                print(float(self.shown), float(self.last))
    """
    assert diagnostics(source, "TPL102") == [(13, 37, FLOAT, None, None)]
