"""Where a value lives, as TPL102 reads it on holdout4/holdout5: values it took for tensors that
are not (a model's repr in an f-string, the truth of a dict a model hands back) and one it took for
a host tensor that may not be (``torch.as_tensor`` of data of unknown origin). Whole diagnostics;
each form with its silent twin and its flagged twin."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

FORMAT = SYNC.format(what="formatting a tensor")
TRUTH = SYNC.format(what="testing a tensor's truth")

MODEL_REPR = """
    import torch
    def run(config, loader, make_model, log):
        for variant in config.variants:
            downstream_model = make_model(variant).to(config.device)
            for x in loader:
                out = downstream_model(x.to(config.device))
                out.sum().backward()
                log(f"summary: {downstream_model}")
    """


def test_formatting_a_model_moved_to_the_device_reads_no_tensor():
    """object-centric-library: ``f"...{downstream_model}"`` formats an ``nn.Module``'s repr."""
    assert diagnostics(MODEL_REPR, "TPL102") == []


def test_formatting_a_tensor_moved_to_the_device_still_syncs():
    """Flagged twin: the same f-string of the model's output, a device tensor."""
    source = MODEL_REPR.replace('log(f"summary: {downstream_model}")', 'log(f"summary: {out}")')
    assert diagnostics(source, "TPL102") == [(9, 16, FORMAT, None, None)]


OUTPUT_DICT = """
    import torch
    def update_policy(policy, batch, optimizer, weights):
        if weights is not None:
            per_sample, output_dict = policy(batch, reduction="none")
            loss = (per_sample * weights).mean()
            if output_dict is None:
                output_dict = {}
            output_dict[f"weight_{0}"] = weights.mean()
        else:
            loss, output_dict = policy(batch)
        loss.backward()
        optimizer.step()
        if output_dict:
            print(len(output_dict))
        return output_dict
    """


def test_the_truth_of_a_dict_a_model_hands_back_reads_no_tensor():
    """lerobot: ``if output_dict:`` tests the dict (or None) the policy returns with its loss; the
    function itself builds it as a dict."""
    assert diagnostics(OUTPUT_DICT, "TPL102") == []


def test_the_truth_of_a_tensor_a_model_hands_back_still_syncs():
    """Flagged twin: nothing binds the name to a dict; it is the model's second output."""
    source = OUTPUT_DICT.replace("            if output_dict is None:\n                output_dict = {}\n"
                                 "            output_dict[f\"weight_{0}\"] = weights.mean()\n", "")
    assert diagnostics(source, "TPL102") == [(11, 7, TRUTH, None, None)]


AS_TENSOR = """
    import torch
    import numpy as np
    def train(model, loader, optimizer, batch_metrics):
        for batch in loader:
            loss, metrics = model(batch)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            for k, v in metrics.items():
                batch_metrics[k].extend(torch.as_tensor(v).reshape(-1).float().cpu().numpy().tolist())
            batch_metrics["grad_norm"].append(torch.as_tensor(grad_norm).cpu().numpy().tolist())
            batch_metrics["fixed"].append(torch.as_tensor([1.0, 2.0]).cpu().tolist())
            batch_metrics["host"].append(torch.as_tensor(np.ones(3)).cpu().tolist())
    """


def test_as_tensor_of_data_of_unknown_origin_may_be_on_the_device():
    """HALOs (holdout5 misses): ``torch.as_tensor(v)`` hands a tensor back as it is, on its
    device, so a metric or a ``clip_grad_norm_`` result copied with ``.cpu()`` every step syncs;
    ``as_tensor`` of a literal list or of a numpy array makes a CPU tensor (silent)."""
    cpu = SYNC.format(what="`.cpu()`")
    assert diagnostics(AS_TENSOR, "TPL102") == [
        (11, 36, cpu, None, None),
        (12, 42, cpu, None, None),
    ]
