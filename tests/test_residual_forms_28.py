"""Forms of round twenty-five (holdout140-142) the engine got wrong (2026-11-29, the twenty-eighth
session): each with its flagged and silent twins, whole diagnostics."""


from _diagnostics import CPU_CREATION_TEMPLATE, found as _found

ONES = CPU_CREATION_TEMPLATE.format(factory="ones")

CAUSAL_MASK = """\
import torch


class Encoder(torch.nn.Module):
    def transformer_encoder(self, input_ids):
        max_len = input_ids.size(-1)
        attn_shape = (1, max_len, max_len)
        subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1)
        subsequent_mask = {rebind}
        subsequent_mask = subsequent_mask.long()
        if self.args.cuda_condition:
            subsequent_mask = subsequent_mask.cuda()
        return subsequent_mask
"""


def test_a_factory_rebound_to_a_comparison_or_arithmetic_with_a_number_stays_fresh():
    """R108 (R79 with the ops ``_fresh_tensor`` reads on the factory itself): CoSeRec's causal mask
    (holdout141) rebinds the name to ``(mask == 0).unsqueeze(1)``, a new host tensor nobody else
    holds, and moves it under the CUDA flag; ``mask + 1`` and ``-mask`` likewise."""
    for rebind in ("(subsequent_mask == 0).unsqueeze(1)", "subsequent_mask + 1", "-subsequent_mask",
                   "(subsequent_mask > 0.5)"):
        source = CAUSAL_MASK.replace("{rebind}", rebind)
        assert _found(source, ("TPL101",)) == [("TPL101", 8, 37, ONES)], rebind


def test_a_rebinding_with_another_tensor_or_a_second_read_keeps_the_factory_silent():
    """The host tensor is combined with another tensor (``* torch.rand(...)``), or read twice
    (``m * m``, ``m == m.t()``): it is worked on where it is, and stays unreported."""
    for rebind in ("subsequent_mask * torch.rand(attn_shape)", "subsequent_mask * subsequent_mask",
                   "(subsequent_mask == subsequent_mask.t())"):
        source = CAUSAL_MASK.replace("{rebind}", rebind)
        assert _found(source, ("TPL101",)) == [], rebind
