"""A Python container that an Ignite step function returns to its engine, filled by item or by
``update`` (rules.md "A step body": a value the host must have every step — "a Python container
that the step returns to its framework for logging" — is not flagged). Forms from holdout44
(DRL-Hands-On's PPO process functions: ``res["loss_distill"] = t.item()``, ``res.update({...})``,
``"loss": a.item() + b.item()``), each with a flagged twin whose container is not returned."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")

ENGINE = """
    import torch
    from ignite.engine import Engine

    def build(net, optimizer, distill):
        def process_batch(engine, batch):
            states, ref = batch
            optimizer.zero_grad()
            value, policy = net(states)
            loss_value = torch.nn.functional.mse_loss(value, ref)
            loss_policy = -policy.mean()
            res = {}
            res["ref"] = ref.mean().item()
            (loss_value + loss_policy).backward()
            optimizer.step()
            res.update({
                "loss_value": loss_value.item(),
                "loss": loss_value.item() + loss_policy.item(),
            })
            if distill:
                res["loss_distill"] = loss_policy.item()
            {kept}
            return {returned}

        return Engine(process_batch)
    """


def test_items_put_into_the_returned_dict_by_key_update_or_as_a_sum_are_host_needed():
    source = ENGINE.replace("{kept}", "").replace("{returned}", "res")
    assert diagnostics(source, "TPL102") == []


def test_the_same_items_in_a_dict_the_step_does_not_return_still_sync():
    source = ENGINE.replace("{kept}", "history.append(res)").replace("{returned}", "loss_value.detach()")
    assert diagnostics(source, "TPL102") == [
        (13, 21, ITEM, None, None),
        (17, 26, ITEM, None, None),
        (18, 20, ITEM, None, None),
        (18, 40, ITEM, None, None),
        (21, 34, ITEM, None, None),
    ]



def test_a_dict_filled_by_key_that_an_hf_compute_loss_returns_beside_its_loss_still_syncs():
    """HA-DPO's ``compute_loss`` fills ``metrics[k] = x.cpu().mean()`` and returns ``(loss,
    metrics)`` when asked for outputs: the Trainer takes them as outputs, not as values to log
    (judged labels in holdout27); only an Ignite step's return is its engine's logged output."""
    source = """
        import torch
        from transformers import Trainer

        class DPOTrainer(Trainer):
            def compute_loss(self, model, inputs, return_outputs=False):
                chosen, rejected = model(**inputs)
                loss = -(chosen - rejected).mean()
                metrics = {}
                metrics["rewards/chosen"] = chosen.cpu().mean()
                if return_outputs:
                    return (loss, metrics)
                return loss
        """
    message = SYNC.format(what="`.cpu()`")
    assert diagnostics(source, "TPL102") == [(10, 36, message, None, None)]
