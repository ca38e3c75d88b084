"""TPL501 dataloader-no-workers: a DataLoader that loads every batch in the main process."""

from __future__ import annotations

import libcst as cst

from ..analysis.syntax import dataset_kind, has_splat, keyword, loader_dataset, positional
from ..analysis.walker import Rule

DATALOADER = "torch.utils.data.DataLoader"
# DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn, pin_memory, drop_last, ...)
NUM_WORKERS_POSITION = 5


class DataLoaderNoWorkers(Rule):
    code = "TPL501"
    message = (
        "this DataLoader has no `num_workers`, so it loads and collates every batch in the main "
        "process while the GPU waits; pass `num_workers=` > 0 (a start: the CPU cores per GPU), and "
        "`persistent_workers=True` for several epochs (runtime_guard: loader defaults)"
    )
    prefilter = (("DataLoader",),)
    reports_at_calls_to = frozenset((DATALOADER,))

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) != DATALOADER or has_splat(node):
            return
        if len(positional(node)) > NUM_WORKERS_POSITION or keyword(node, "num_workers") is not None:
            return  # any explicit value, 0 included, is the author's choice
        if dataset_kind(loader_dataset(node), self.ctx) is not None:
            return  # in memory already: a worker only adds start-up and a pickling round-trip
        self.report(node)


RULE = DataLoaderNoWorkers
RULE.VALID = (
    """
import torch
from torch.utils.data import Dataset, DataLoader
class PromptDataset(Dataset):
    def __init__(self, prompt, num_samples):
        self.prompt = prompt
        self.num_samples = num_samples
    def __len__(self):
        return self.num_samples
    def __getitem__(self, index):
        return {"prompt": self.prompt, "index": index}   # nothing read or computed per item
class Prompts(Dataset):
    def __getitem__(self, index):
        example = {}
        example["prompt"] = self.prompt
        example["index"] = index
        return example
loader = DataLoader(PromptDataset("a photo", 100), batch_size=4)
prompts = DataLoader(Prompts(), batch_size=4)
""",
    """
from torch.utils.data import DataLoader
a = DataLoader(ds, batch_size=32, num_workers=4)
b = DataLoader(ds, batch_size=32, num_workers=args.workers)     # a value we cannot see
c = DataLoader(ds, **loader_kwargs)                             # may hold num_workers
d = DataLoader(ds, 32, True, None, None, 8)                     # positional num_workers
e = DataLoader(range(100), batch_size=8)                        # in-memory data: workers cost more
f = DataLoader(ds, batch_size=32, num_workers=0)                # 0 written out: a deliberate choice
""",
    """
import torch
from torch.utils.data import DataLoader, TensorDataset
x, y = torch.randn(1000, 8), torch.randn(1000)
train_ds = TensorDataset(x, y)                                  # tensors in memory: indexing is cheap
a = DataLoader(train_ds, batch_size=32, shuffle=True)
b = DataLoader(TensorDataset(x, y), batch_size=32)
c = DataLoader(torch.arange(100), batch_size=8)
def make(n):
    data = [torch.randn(3) for _ in range(n)]
    return DataLoader(data, batch_size=4)
feats = torch.randn(100, 8, device="cuda")                      # CUDA tensors: workers cannot use them
d = DataLoader(TensorDataset(feats), batch_size=8)
""",
    """
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset
class RandomDataset(Dataset):                                   # __getitem__ indexes a tensor in memory
    def __init__(self, n):
        self.data = torch.randn(n, 4)
    def __getitem__(self, i):
        return self.data[i]
def to_dataset(features):                                       # a module function returning a TensorDataset
    return TensorDataset(torch.tensor(features))
a = DataLoader(RandomDataset(64), batch_size=8)
b = DataLoader(to_dataset(rows), batch_size=8)
""",
    """
class DataLoader:                                               # the project's own class
    pass
import torch
loader = DataLoader(ds)
""",
)
RULE.INVALID = (
    """
import torch
from torch.utils.data import DataLoader
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # TPL501
val_loader = torch.utils.data.DataLoader(val_set, batch_size=64)  # TPL501
""",
    """
import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.randn(10, 2))
ds = ImageFolder(root)                                          # the name is not always in memory
loader = DataLoader(ds, batch_size=4)  # TPL501
def build(dataset):
    return DataLoader(dataset, batch_size=8)  # TPL501
""",
    """
import torch
from PIL import Image
from torch.utils.data import Dataset, DataLoader
class Images(Dataset):
    def __init__(self, paths):
        self.paths = paths
    def __getitem__(self, index):
        return Image.open(self.paths[index])            # reads a file per item
class Held(Dataset):
    @property
    def image(self):
        return Image.open(self.path)
    def __getitem__(self, index):
        return self.image                               # a property: it may read per item
loader = DataLoader(Images(paths), batch_size=4)  # TPL501
held = DataLoader(Held(), batch_size=4)  # TPL501
""",
)
RULE.WHY = """\
With `num_workers=0` (the default) the DataLoader reads, decodes, augments and collates each batch in
the training process, between steps: the GPU idles while Python prepares the next batch. Worker
processes prepare batches in parallel and ahead of time (`prefetch_factor` batches each), so data
loading overlaps with compute."""
RULE.EXAMPLE = "loader = DataLoader(dataset, batch_size=64, shuffle=True)"
RULE.USE_INSTEAD = "loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=8, persistent_workers=True)"
RULE.FIX_NOTE = """\
No autofix: workers need a dataset that pickles (spawn start method), and for small in-memory
datasets workers can be slower than none.

Not reported: an explicit `num_workers` of any value (`num_workers=0` is a deliberate choice, for
example for a dataset that does not pickle); datasets already in memory, where a worker only adds
start-up cost and a pickling round-trip per batch: a `TensorDataset`, a tensor, a list, tuple or
range, also through a name the file assigns one to (`ds = TensorDataset(x, y)`), and datasets built
from CUDA tensors. The runtime guard's loader fix makes the same judgement
(`torchperf_lint/in_memory.py`). Unit-test files are not checked unless `include-tests` is set."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading",
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#enable-async-data-loading-and-augmentation",
)
