"""TPL502 dataloader-no-pin-memory: batches copied to CUDA from pageable memory."""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from ..catalog import SAFE, UNSAFE
from ..fixing.edits import add_keyword, set_keyword
from ..findings import RuleFix
from ..analysis.fix_safety import cuda_visible_devices, device_datasets, mps_only
from ..analysis.in_memory import CUDA
from ..analysis.syntax import dataset_kind, has_splat, is_false, keyword, loader_dataset, positional
from ..analysis.walker import Rule

DATALOADER = "torch.utils.data.DataLoader"
PIN_MEMORY_POSITION = 7
# What a local name may stand for, and how to ask "is there a GPU?" through it.
_IS_AVAILABLE_THROUGH = {
    "torch": "{}.cuda.is_available()",
    "torch.cuda": "{}.is_available()",
    "torch.cuda.is_available": "{}()",
}


class DataLoaderNoPinMemory(Rule):
    code = "TPL502"
    message = (
        "this module copies batches to the GPU but the DataLoader does not pin memory: each copy goes "
        "through a staging buffer and blocks; pass `pin_memory=True` (and copy with "
        "`non_blocking=True`) (runtime_guard: loader defaults)"
    )
    message_false = (
        "`pin_memory=False` in a module that copies batches to the GPU: each copy goes through a "
        "staging buffer and blocks; unless unpinned memory is deliberate (little RAM to lock, many "
        "loaders), pass `pin_memory=True` (runtime_guard: loader defaults)"
    )
    prefilter = (("DataLoader",),)
    reports_at_calls_to = frozenset((DATALOADER,))

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.qualname(node.func) != DATALOADER or has_splat(node):
            return
        if len(positional(node)) > PIN_MEMORY_POSITION:
            return
        pin = keyword(node, "pin_memory")
        if pin is not None and not is_false(pin.value):
            return  # True, or a value we cannot see
        data = loader_dataset(node)
        if isinstance(data, (cst.List, cst.Tuple, cst.ListComp)) or (
            isinstance(data, cst.Call) and isinstance(data.func, cst.Name)
            and data.func.value in ("range", "list", "tuple") and ctx.is_builtin(data.func.value)
        ):
            return  # Python numbers: nothing worth pinning
        if not ctx.facts.moves_data_to_cuda or not ctx.facts.moves_batches:
            return  # no batch of this module reaches the GPU here (or a framework moves them)
        if dataset_kind(data, ctx) == CUDA:
            return  # the batches are on the GPU already (and pinning a CUDA tensor raises)
        value = self._pin_value()
        if value is not None and self._pinning_breaks(data, value):
            value = None  # reported, but no fix is offered (FIX_NOTE says why)
        if pin is None:
            fix = None
            if value is not None:
                fix = RuleFix(SAFE, f"pass pin_memory={cst.Module([]).code_for_node(value)}",
                              [(node, add_keyword(node, "pin_memory", value))])
            self.report(node, fix=fix)
        else:
            # An explicit False may be deliberate: flipping it is never a safe fix.
            fix = None
            if value is not None:
                fix = RuleFix(UNSAFE, "pin_memory=False may be deliberate (page-locked RAM is limited); "
                              f"set pin_memory={cst.Module([]).code_for_node(value)}",
                              [(node, set_keyword(node, "pin_memory", value))])
            self.report(node, self.message_false, fix=fix)

    def _pinning_breaks(self, data: Optional[cst.BaseExpression], value: cst.BaseExpression) -> bool:
        """Would the fix change what the program does, beyond speed? When the dataset's items are
        moved to a device before they are returned (pinning a CUDA tensor raises), when the script
        runs on Apple's MPS only (pinning warns there), and when ``torch.cuda.is_available()``
        could run before the script sets ``CUDA_VISIBLE_DEVICES`` (the setting would be ignored)."""
        facts = self.ctx.facts
        if _may_hold_device_items(data, facts):
            return True
        if facts.derived("mps_only", mps_only):
            return True
        if not isinstance(value, cst.Name):  # the torch.cuda.is_available() spelling
            return facts.derived("cuda_visible_devices", cuda_visible_devices) is not None
        return False

    def _pin_value(self) -> Optional[cst.BaseExpression]:
        """``True`` where every move in the module goes to CUDA unconditionally; where the device is
        chosen at run time, ``torch.cuda.is_available()`` (a CPU-only run must get no new warning:
        pin_memory=True without an accelerator warns), spelled through a name the module binds to
        torch; None when it binds none (``from torch.utils.data import DataLoader`` only)."""
        facts = self.ctx.facts
        if not (facts.moves_to_cuda_conditionally or facts.moves_to_variable_device
                or facts.checks_cuda_available or facts.branches_on_device):
            return cst.Name("True")
        frame = self.ctx.frame
        names = list(self.ctx.table.bindings)
        while frame is not None:
            names.extend(frame.bindings)
            frame = frame.parent
        best = None
        for name in dict.fromkeys(names):
            if not name.isidentifier():
                continue  # (a binding no import table should hold; never build a node of it)
            qual = self.ctx.qualname(cst.Name(name))
            template = _IS_AVAILABLE_THROUGH.get(qual)
            if template is not None and (best is None or qual == "torch"):
                best = template.format(name)
        return cst.parse_expression(best) if best is not None else None


def _may_hold_device_items(data: Optional[cst.BaseExpression], facts) -> bool:
    """May the loader's dataset be an instance of a class of the file whose items are moved to a
    device (fix_safety.device_datasets)? Followed through one name (``ds = MyDataset(...)``); a
    dataset the file does not show counts as one when the file defines such a class."""
    classes = facts.derived("device_datasets", device_datasets)
    if not classes:
        return False
    values = [data]
    if isinstance(data, cst.Name):  # what the file assigns to that name (ast nodes)
        values = [value for name, value in facts.assignments if name == data.value] or [None]
    for value in values:
        name = _class_called(value)
        if name is None or name in classes:
            return True
    return False


def _class_called(value) -> Optional[str]:
    """The last name of the callee of a call (a libcst or an ast node), e.g. ``MyDataset`` for
    ``data.MyDataset(root)``; None for anything else."""
    if isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Name):
            return func.value
        if isinstance(func, cst.Attribute):
            return func.attr.value
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
    return None


RULE = DataLoaderNoPinMemory
RULE.VALID = (
    """
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
accelerator = Accelerator()
loader = accelerator.prepare(DataLoader(ds, batch_size=8, num_workers=4))
weight_dtype = torch.float16 if accelerator.mixed_precision == "fp16" else torch.float32
for batch in loader:
    vae.encode(batch["pixel_values"].to(weight_dtype))  # a cast, not a move
""",
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=32, num_workers=4)
for batch in loader:
    trainer.fit_step(batch)                             # the trainer moves the batches
first = next(iter(model.parameters()))                  # a parameter, not a batch
first.to("cuda")
""",
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True)
other = DataLoader(ds, batch_size=32, pin_memory=use_cuda)     # a value we cannot see
third = DataLoader(ds, **kwargs)
fifth = DataLoader(range(10), batch_size=2)                    # Python ints: nothing to pin
for x, y in loader:
    x = x.cuda(non_blocking=True)
""",
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=32, num_workers=4)          # this module never moves data to CUDA
for x, y in loader:
    loss = model(x).sum()
""",
    """
import torch
from torch.utils.data import DataLoader, TensorDataset
x = torch.randn(1000, 8).cuda()
y = torch.randn(1000, device="cuda")
ds = TensorDataset(x, y)                                        # CUDA tensors: pinning them raises
loader = DataLoader(ds, batch_size=32, num_workers=0)
inline = DataLoader(TensorDataset(x.cuda(), y), batch_size=32, num_workers=0)
""",
    """
import torch
from torch.utils.data import DataLoader
class Agent:
    def act(self, net, state):
        return net(torch.as_tensor(state).cuda())               # a state, not a batch
    def train_dataloader(self):
        return DataLoader(self.ds, batch_size=16, num_workers=2)  # the trainer moves the batches
""",
    """
import torch
from torch.utils.data import DataLoader
def build(train_ds, stats):
    loader = DataLoader(train_ds, batch_size=32, num_workers=4)
    mean, std = stats                                   # not a batch: unpacked from a parameter
    return loader, mean.cuda(), std.cuda()
""",
)
RULE.INVALID = (
    """
import torch
from torch.utils.data import DataLoader
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(ds, batch_size=32, num_workers=4)  # TPL502
unpinned = DataLoader(TensorDataset(x, y), num_workers=2, pin_memory=False)  # TPL502
for x, y in loader:
    x, y = x.to(device), y.to(device)
""",
    """
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=32, num_workers=4)  # TPL502
for x in loader:
    x = x.to(args.device)                              # no torch alias: reported, no fix offered
    y = x.to("cuda:0")
""",
    """
import torch
from torch.utils.data import DataLoader
device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"
loader = DataLoader(ds, batch_size=32, num_workers=4)  # TPL502
for batch in loader:
    batch = {k: v.to(device) for k, v in batch.items()}
""",
    """
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
accelerator = Accelerator()                            # picks CUDA at run time when there is one
loader = DataLoader(ds, batch_size=32, num_workers=4)  # TPL502
for batch in loader:
    batch = {k: v.to(accelerator.device) for k, v in batch.items()}
""",
    """
import torch
from torch.utils.data import DataLoader
def sample_data(loader):
    while True:
        yield from loader
def train(dataset, model, device="cuda"):
    loader = sample_data(DataLoader(dataset, batch_size=32, num_workers=4))  # TPL502
    for step in range(1000):
        real = next(loader)                            # a batch, whatever its name
        model(real.to(device)).mean().backward()
""",
    """
import torch
from torch.utils.data import DataLoader
dl = DataLoader(ds, batch_size=8, num_workers=4)  # TPL502
model = model.cuda()
for text, images in dl:
    text, images = map(lambda t: t.cuda(), (text, images))   # each item of the batch, moved
    model(text, images).backward()
""",
    """
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
accelerator = Accelerator()
loader = DataLoader(ds, batch_size=8, num_workers=4)  # TPL502
for batch in loader:
    pixel_values = batch["pixel_values"]               # a part of the batch, then moved
    pixel_values = pixel_values.to(accelerator.device)
""",
    """
import torch
from torch.utils.data import DataLoader
def build(train_ds, val_ds):
    train_loader = DataLoader(train_ds, batch_size=32, num_workers=4)  # TPL502
    return train_loader, DataLoader(val_ds, batch_size=64, num_workers=4)  # TPL502
def main(model, optimizer, train_ds, val_ds):
    train_dl, val_dl = build(train_ds, val_ds)         # loaders reached through tuple unpacking
    for data in train_dl:
        inp, lab = data                                # the batch, unpacked
        model(inp.cuda()).sum().backward()
""",
)
RULE.FIXES = (
    (  # every move goes to CUDA: the script cannot run without a GPU
        "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32)\n"
        "for x in loader:\n    x = x.cuda()\n",
        "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, pin_memory=True)\n"
        "for x in loader:\n    x = x.cuda()\n",
    ),
    (  # the device is picked at run time: a CPU-only run must not start warning
        "import torch as T\nfrom torch.utils.data import DataLoader\n"
        "device = T.device(\"cuda\" if T.cuda.is_available() else \"cpu\")\n"
        "loader = DataLoader(ds, batch_size=32)\nfor x in loader:\n    x = x.to(device)\n",
        "import torch as T\nfrom torch.utils.data import DataLoader\n"
        "device = T.device(\"cuda\" if T.cuda.is_available() else \"cpu\")\n"
        "loader = DataLoader(ds, batch_size=32, pin_memory=T.cuda.is_available())\nfor x in loader:\n    x = x.to(device)\n",
    ),
)
RULE.WHY = """\
The GPU's DMA engine can only read page-locked (pinned) host memory. A copy from ordinary pageable
memory is staged: the driver copies the batch into a pinned buffer first, and the call blocks the
Python thread until the transfer ends. With `pin_memory=True` the loader's pin thread puts each batch
in pinned memory ahead of time, and `.to(device, non_blocking=True)` overlaps the copy with compute."""
RULE.EXAMPLE = """\
loader = DataLoader(dataset, batch_size=64, num_workers=8)
for x, y in loader:
    x, y = x.to("cuda"), y.to("cuda")"""
RULE.USE_INSTEAD = """\
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for x, y in loader:
    x, y = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)"""
RULE.FIX_NOTE = """\
Safe when pinning changes where batches live on the host and nothing else, which the fix checks;
otherwise the finding is reported without a fix:

- not offered when the loader's dataset may be an instance of a dataset class of the module (one
  with `__getitem__`/`__iter__`/`__next__`) that moves its items, or the data it takes them from,
  to a device (`.cuda()`, `.to(device)`, `device=...`, in any method, `__init__` included):
  pinning a CUDA tensor raises (a dataset the module does not show counts as one when the module
  defines such a class);
- not offered in a script that names Apple's MPS device and never CUDA: pinning there warns (or
  does nothing), and non-blocking copies to MPS have corrupted data;
- not offered where the fix would write `torch.cuda.is_available()` and the script sets
  `CUDA_VISIBLE_DEVICES` (`os.environ[...] = ...`, `setdefault`, `update`, `putenv`) anywhere
  but at module level above every DataLoader call: the check would count the devices before the
  setting, and CUDA would then ignore it.

Pinning changes where batches live on the host, not their values. The fix writes
`pin_memory=True` where every move in the module goes to CUDA unconditionally (`.cuda()`,
`.to("cuda")` outside any `if`, and no `if` in the file tests a device, GPU or CUDA flag), and `pin_memory=torch.cuda.is_available()` where the script picks
its device at run time (`.to(device)`, `.to(args.device)`, a move under an `if`): `pin_memory=True`
on a machine without an accelerator prints a warning, and a safe fix must not add one. The check is
spelled through the module's own name for torch (`import torch as T` gives `T.cuda.is_available()`);
a module that binds no name to torch gets no fix.

The rule looks for a batch being moved: a `.cuda()`/`.to(...)` of a name bound by a `for` loop or a
comprehension (`for x, y in loader`, `{k: v.to(device) for k, v in batch.items()}`), unpacked
from one (`inp, lab = data`), or named like a batch (`batch`, `inputs`, `images`, `x`...). A
module that moves only a model or an RL state, and leaves the batches to a framework (a
LightningModule's `train_dataloader`), is not flagged.
`torch.accelerator.current_accelerator()` / `is_available()` count as a device picked at run time.

An explicit `pin_memory=False` is reported but its fix is unsafe: it may be deliberate (page-locked
memory is limited, and many loaders pinning at once can exhaust it). Not reported: `pin_memory` set
to a value the linter cannot see, and datasets built from CUDA tensors (their batches are on the
GPU already, and pinning a CUDA tensor raises)."""
RULE.REFERENCES = (
    "https://pytorch.org/docs/stable/data.html#memory-pinning",
    "https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html",
)
