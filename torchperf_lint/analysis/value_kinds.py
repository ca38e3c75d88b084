"""The kinds of values that value flow (``value_flow.py``) and the summaries of what project
functions give back (``return_kinds.py``) speak of (rules.md "Where a value lives").

The host kinds never make a sync; DEVICE is a tensor that may live on an accelerator; UNKNOWN is
anything else (counted as possibly on the device by the rules that read back values, but not as a
tensor).
"""

from __future__ import annotations

import re
from typing import Tuple, Union

NUMPY = "numpy"
PYTHON = "python"  # numbers, strings, bools, and lists of numbers (``.tolist()``)
CONTAINER = "container"  # a list/dict/tuple/set made in the code: on the host, its items unknown
CPU_TENSOR = "cpu tensor"
BATCH = "batch"  # taken from a data loader, not moved yet (a host tensor, or a structure of them)
PINNED_BATCH = "pinned batch"  # ... from a loader made with pin_memory=True
UNPINNED_BATCH = "unpinned batch"  # ... from a loader made without it
DEVICE = "device tensor"
UNKNOWN = "unknown"
# A batch object a framework moved to the device (a Lightning step's ``batch``): its fields
# (``batch.edge_labels``) are device tensors; what its items are (a tuple of tensors and strings, a
# dict) is not known, so the batch itself counts as UNKNOWN wherever a kind is asked.
MOVED_BATCH = "moved batch"

BATCHES = frozenset((BATCH, PINNED_BATCH, UNPINNED_BATCH))
HOST = frozenset((NUMPY, PYTHON, CONTAINER, CPU_TENSOR)) | BATCHES
TENSORS = frozenset((CPU_TENSOR, DEVICE)) | BATCHES
HOST_TENSORS = frozenset((CPU_TENSOR,)) | BATCHES

Shape = Union[str, Tuple["Shape", ...]]  # a kind, or the kinds of a tuple's items


def collapse(shape: Shape) -> str:
    """One kind for a whole tuple: its items' kind when they agree, else a host container or unknown."""
    if isinstance(shape, str):
        return shape
    kinds = {collapse(s) for s in shape}
    if len(kinds) == 1:
        return kinds.pop()
    return CONTAINER if kinds <= HOST else UNKNOWN


def item_shape(shape: Shape, index: int, count: int) -> Shape:
    """The shape of item ``index`` when a value of ``shape`` is unpacked into ``count`` targets."""
    if isinstance(shape, tuple):
        return shape[index] if len(shape) == count else UNKNOWN
    if shape in TENSORS or shape in (NUMPY, PYTHON):
        return shape  # the rows of a tensor or an array, the parts of a batch
    return UNKNOWN


def combine(kinds) -> str:
    """The kind of ``a + b``/``a > b``: a tensor on the device wins, then host tensors, then numpy."""
    kinds = set(kinds)
    if DEVICE in kinds:
        return DEVICE
    if kinds & HOST_TENSORS:
        return CPU_TENSOR  # whatever else is there is not known to be a tensor
    if NUMPY in kinds:
        return NUMPY
    if kinds and kinds <= {PYTHON}:
        return PYTHON
    return UNKNOWN


def either(kinds) -> str:
    """The kind of a name that one of several bindings gives, as the branches ran (``x = helper(...)``
    in an ``if``, ``x = torch.tensor(0.)`` in its ``else``): a tensor on the device on one path is one
    there, and a binding of unknown origin may be one (rules.md: "a value of unknown origin counts as
    possibly on the device"), whatever the other paths give; only when every path is known to leave
    the value on the host is it a host value (``combine``'s order among those). Unlike ``a + b``, where
    an unknown operand beside a host tensor is not known to be a tensor at all."""
    kinds = set(kinds)
    if DEVICE in kinds:
        return DEVICE
    if UNKNOWN in kinds or MOVED_BATCH in kinds:
        return UNKNOWN
    return combine(kinds)


# Fields of a model's output that hold tensors where the output is: the Hugging Face names
# (``model(**batch).logits``), and any field named as a loss or logits (``.conv_loss``,
# ``.rec_logits``, ``.loss_cls``: a project's own ``ModelOutput`` dataclass, UniCRS, holdout66).
_OUTPUT_FIELDS = frozenset("logits loss last_hidden_state pooler_output start_logits end_logits".split())
_OUTPUT_FIELD_NAME = re.compile(r"(?:^|_)(?:loss|logits)(?:$|_)")


def is_output_field(attribute: str) -> bool:
    """Is ``attribute`` a field of a model's output that holds a tensor (value flow and its ast twin
    return_kinds ask alike)?"""
    return attribute in _OUTPUT_FIELDS or _OUTPUT_FIELD_NAME.search(attribute) is not None


# The legacy typed constructors (``torch.LongTensor([i])``, ``torch.Tensor(n, m)``): CPU tensors
# (value flow, and what a project function returns: return_kinds).
LEGACY_CONSTRUCTORS = frozenset(
    "Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor ByteTensor CharTensor ShortTensor IntTensor "
    "LongTensor BoolTensor".split()
)
