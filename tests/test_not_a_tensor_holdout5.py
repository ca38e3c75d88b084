"""Values TPL102 took for tensors on holdout4/holdout5 that are not (the rule's forms are on
tensors): a model's repr in an f-string, the truth of a dict a model hands back. Whole
diagnostics; each form with its silent twin and its flagged twin."""

from __future__ import annotations

from _diagnostics import rule_diagnostics as diagnostics

SYNC = ("{what} waits for the device in every iteration; keep values on the device "
        "(`total += loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")
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
