"""Forms from the framework holdout3 set's verdicts (docs/precision_framework_verdicts_holdout3.tsv)
that rules.md already decides: whole diagnostics (line, column, message, fix and its
applicability), each form with its flagged twin."""

from __future__ import annotations

from _diagnostics import rule_diagnostics as diagnostics

SYNC = ("{what} waits for the device in every iteration; keep values on the device "
        "(`total += loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")
ITEM = SYNC.format(what="`.item()`")


# ---- a name put into the metrics dict an Ignite Engine function returns ------------------------
def test_tpl102_a_value_put_into_the_dict_the_engine_function_returns_is_host_needed():
    """rules.md "A step body": a Python container that the step returns to its framework for
    logging is host-needed. The dcgan template of pytorch-ignite's code-generator takes the value
    into a name, builds the dict under another name and returns that name."""
    source = """
        import torch
        from ignite.engine import Engine

        def setup(model, loss_fn, optimizer, device):
            def train_function(engine, batch):
                real = batch[0].to(device, non_blocking=True)
                outputs = model(real)
                err = loss_fn(outputs)
                d_x = outputs.mean().item()
                err.backward()
                optimizer.step()
                metrics = {"epoch": engine.state.epoch, "err": err.item(), "D_x": d_x}
                engine.state.metrics = metrics
                return metrics

            return Engine(train_function)
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_a_value_kept_beside_the_returned_dict_still_syncs():
    """Flagged twins: the name also goes into a dict that is not returned (kept on the engine's
    state only), and a dict built under a name that is never returned."""
    source = """
        import torch
        from ignite.engine import Engine

        def setup(model, loss_fn, optimizer, device, history):
            def train_function(engine, batch):
                real = batch[0].to(device, non_blocking=True)
                outputs = model(real)
                err = loss_fn(outputs)
                d_x = outputs.mean().item()
                err.backward()
                optimizer.step()
                kept = {"D_x": d_x}
                history.append(kept)
                return {"err": err.detach()}

            return Engine(train_function)
        """
    assert diagnostics(source, "TPL102") == [(10, 14, ITEM, None, None)]
