"""``torch.distributions`` objects and what their methods give back (value_flow).

A distribution keeps the tensors it is built from (``Normal(mu, std)``, ``Categorical(prob)``);
its samples, log-probabilities and entropies are computed from them and live where they live.
Built from host tensors, ``dist.sample()`` and ``dist.log_prob(a)`` are host tensors (minimalRL's
CPU-only policies: ``mu, std = model.pi(s)``; ``dist = Normal(mu, std)``; ``log_prob.item()``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

# The methods of torch.distributions.Distribution that return a tensor computed from its parameters.
TENSOR_METHODS = frozenset(("sample", "rsample", "sample_n", "log_prob", "entropy", "cdf", "icdf", "perplexity",
                            "enumerate_support"))


def is_distribution_class(qualname: Optional[str]) -> bool:
    """``torch.distributions.Normal``, ``torch.distributions.categorical.Categorical``: a class of
    torch.distributions (capitalised last part), not one of its functions (``kl_divergence``)."""
    if qualname is None or not qualname.startswith("torch.distributions."):
        return False
    return qualname.rsplit(".", 1)[-1][:1].isupper()


def parameter_values(call: cst.Call):
    """The expressions a distribution is built from: every argument but ``validate_args``."""
    return [a.value for a in call.args
            if not a.star and (a.keyword is None or a.keyword.value != "validate_args")]
