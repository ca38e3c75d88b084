"""Is a DataLoader's dataset already in memory? One judgement for the linter and the runtime guard.

TPL501 ("add worker processes") and the runtime guard's loader fix must agree: where the data is
already in memory, a worker only adds start-up cost and a pickling round-trip per batch, so the
linter stays silent and the guard leaves the loader alone, for the same reasons. Where the data is
made of CUDA tensors, workers and pinning are wrong outright (pinning a CUDA tensor raises).

This module never imports torch: the linter must run without it. The runtime half looks torch up
in ``sys.modules`` (the guard has imported it by the time a DataLoader exists).

In memory:
- a ``TensorDataset`` (any import path, or a subclass at run time);
- a tensor, a list, a tuple or a range used directly as the dataset;
- (runtime) a dataset whose tensors live on a CUDA device.
"""

from __future__ import annotations

import sys
from typing import Optional

# Canonical names of dataset classes whose samples are slices of tensors held in memory.
IN_MEMORY_DATASET_CLASSES = frozenset({
    "torch.utils.data.TensorDataset",
    "torch.utils.data.dataset.TensorDataset",
})
# Builtins that make an in-memory sequence when passed as a DataLoader's dataset.
IN_MEMORY_BUILTINS = frozenset({"list", "tuple", "range"})
# torch factories whose result, passed straight as a dataset, is a tensor in memory.
TENSOR_MAKERS = frozenset({
    "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.stack", "torch.cat",
    "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
    "torch.randint", "torch.arange", "torch.load",
})


def is_in_memory_class(qualname: Optional[str]) -> bool:
    """The linter's test on the canonical name of the dataset's constructor."""
    return qualname in IN_MEMORY_DATASET_CLASSES or qualname in TENSOR_MAKERS


def runtime_cuda_data(dataset) -> bool:
    """Is this dataset made of CUDA tensors (workers cannot use them, pinning them raises)?

    Same inspection as ``runtime_in_memory_reason``: the object's type and a TensorDataset's
    ``tensors``, never a sample."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if isinstance(dataset, torch.Tensor):
        return dataset.device.type == "cuda"
    tensor_dataset = getattr(getattr(torch.utils, "data", None), "TensorDataset", None)
    return tensor_dataset is not None and isinstance(dataset, tensor_dataset) and any(
        isinstance(t, torch.Tensor) and t.device.type == "cuda" for t in dataset.tensors)


def runtime_in_memory_reason(dataset) -> Optional[str]:
    """Why this dataset object is already in memory (workers cost more than they save), or None.

    Reads only the object's type and, for a TensorDataset, its ``tensors`` attribute: never a
    sample (``dataset[i]`` would advance a dataset's own random generator or open its files)."""
    torch = sys.modules.get("torch")
    if isinstance(dataset, (list, tuple, range)):
        return f"in-memory {type(dataset).__name__}: workers cost more than indexing"
    if torch is None:
        return None
    if isinstance(dataset, torch.Tensor):
        if dataset.device.type == "cuda":
            return "dataset is a CUDA tensor: workers and pinning cannot use it"
        return "in-memory tensor: workers cost more than indexing"
    tensor_dataset = getattr(getattr(torch.utils, "data", None), "TensorDataset", None)
    if tensor_dataset is not None and isinstance(dataset, tensor_dataset):
        if any(isinstance(t, torch.Tensor) and t.device.type == "cuda" for t in dataset.tensors):
            return "TensorDataset of CUDA tensors: workers and pinning cannot use it"
        return "in-memory TensorDataset: worker round-trips cost more than indexing"
    return None
