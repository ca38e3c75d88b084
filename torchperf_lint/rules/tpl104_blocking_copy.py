"""TPL104 blocking-copy: a batch copied from pinned memory without ``non_blocking=True``."""

from __future__ import annotations

import libcst as cst

from ..catalog import SAFE, UNSAFE
from ..fixing.edits import add_keyword
from ..findings import RuleFix
from ..analysis import value_flow
from ..analysis.syntax import code_of, has_splat, is_false, keyword, method_call, move_target
from ..analysis.tree import descendants
from ..analysis.fix_safety import narrow_move_methods
from ..analysis.walker import LOOP, WITH, Rule


class BlockingCopy(Rule):
    code = "TPL104"
    message = (
        "the batch is copied to the device synchronously although its DataLoader pins memory; "
        "add `non_blocking=True` so the copy overlaps with compute"
    )
    prefilter = ((".to(", ".cuda("), ("for", "while"), r"\b(?:for|while)\b")
    needs_step_loop = True  # reports only in a step loop (current_step_loop)
    file_prefilter = (("pin_memory",), r"pin_memory\s*=\s*True|[\"']pin_memory[\"']\s*:\s*True")

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        found = method_call(node)
        if found is None or found[1] not in ("to", "cuda") or has_splat(node):
            return
        flag = keyword(node, "non_blocking")
        if flag is not None and not is_false(flag.value):
            return  # True, or a value we cannot see
        if not ctx.facts.pins_loader or move_target(node, ctx) != "accelerator":
            return
        if ctx.current_step_loop() is None or not self._from_pinned_loader(found[0]):
            return
        fix = None
        if flag is None and not _refilled_in_loop(found[0], ctx):
            applicability, description = _fix_safety(ctx)
            fix = RuleFix(applicability, description, [(node, add_keyword(node, "non_blocking", cst.Name("True")))])
        self.report(node, fix=fix)

    def _from_pinned_loader(self, receiver: cst.BaseExpression) -> bool:
        """A batch taken from a loader made with ``pin_memory=True`` and not moved yet. Pinning is a
        fact of the loader the loop iterates, not of the module: a batch of a loader the module
        does not show (a parameter no call of the module fills, an imported builder's result)
        is not known to be pinned, whatever the module's other loaders do. Models, modules and
        other tensors are never batches."""
        return self.ctx.value_kind(receiver) == value_flow.PINNED_BATCH


# Context managers that make a side stream current (``with torch.cuda.stream(s):``), and the
# classes of stream objects that are context managers themselves (``with s:``).
_STREAM_CONTEXTS = frozenset(("torch.cuda.stream", "torch.cuda.StreamContext", "torch.cuda.streams.StreamContext",
                              "torch.xpu.stream", "torch.accelerator.stream"))
_STREAM_CLASSES = frozenset(("torch.cuda.Stream", "torch.cuda.streams.Stream", "torch.Stream", "torch.xpu.Stream"))
# Calls that order the default stream after a side stream's work (or the host after it).
_STREAM_WAITS = frozenset(("wait_stream", "wait_event", "synchronize", "record_stream"))


def _fix_safety(ctx):
    """(applicability, description): SAFE only where the conditions in FIX_NOTE hold: the file
    defines no class whose ``to``/``cuda`` rejects ``non_blocking`` (the batch may be one), and
    the copy is not issued on a side stream whose work nothing waits for. Otherwise UNSAFE, with
    the reason."""
    narrow = ctx.facts.derived("narrow_move_methods", narrow_move_methods)
    if narrow:
        return UNSAFE, (f"add non_blocking=True (unsafe: the module defines `{narrow[0]}`, which takes no "
                        f"non_blocking; if the batch is one, the call raises TypeError)")
    if _on_unwaited_side_stream(ctx):
        return UNSAFE, ("add non_blocking=True (unsafe: a side stream takes part and nothing waits for the "
                        "copy; another stream could read the tensor before it arrives)")
    return SAFE, "add non_blocking=True"


def _on_unwaited_side_stream(ctx) -> bool:
    """Does a side stream take part, in a function that never waits on a stream or event? The
    copy issued inside ``with torch.cuda.stream(s):`` (or ``with s:`` for a stream ``s``), or the
    function running work on a side stream (which may read the copied tensor). A non-blocking copy
    may still be in flight when the other stream reads the tensor; a blocking one is finished
    when it returns, before any later kernel is queued."""
    frame = ctx.frame
    side = False
    while frame is not None and not side:
        side = any(block.kind == WITH and _is_side_stream_block(block.node, ctx) for block in frame.blocks)
        if not side:
            frame = frame.parent
    frame = frame or ctx.frame
    scope = frame.node if frame.node is not None else (ctx.stack[0] if ctx.stack else None)
    if scope is None:
        return side
    waits = False
    for node in descendants(scope):
        if isinstance(node, cst.With) and _is_side_stream_block(node, ctx):
            side = True
        elif isinstance(node, cst.Call):
            found = method_call(node)
            if found is not None and found[1] in _STREAM_WAITS:
                waits = True
    return side and not waits


def _is_side_stream_block(statement: cst.With, ctx) -> bool:
    return any(_makes_stream_current(item.item, ctx) for item in statement.items)


def _makes_stream_current(item: cst.BaseExpression, ctx) -> bool:
    if isinstance(item, cst.Call) and ctx.qualname(item.func) in _STREAM_CONTEXTS:
        return True
    if isinstance(item, cst.Call) and ctx.qualname(item.func) in _STREAM_CLASSES:
        return True  # ``with torch.cuda.Stream():``
    return ctx.torch_instance(item) in _STREAM_CLASSES


def _refilled_in_loop(tensor: cst.BaseExpression, ctx) -> bool:
    """Is ``tensor`` a staging buffer that the loop writes into (``buf.copy_(batch)``, ``buf[:n] = x``,
    ``torch.cat(..., out=buf)``)? Then a non-blocking copy from it races the next refill, which can
    overwrite the data while the device is still reading it."""
    if not isinstance(tensor, (cst.Name, cst.Attribute)):
        return False
    text = code_of(tensor)
    loops = [block.node for block in ctx.frame.blocks if block.kind == LOOP]
    if not loops:
        return False
    nodes = list(descendants(loops[0]))
    if any(_rebinds(node, text) for node in nodes):
        return False  # a new tensor each time round (a loader batch): nothing is overwritten
    written = False
    for node in nodes:
        if isinstance(node, cst.Call):
            found = method_call(node)
            if found is not None and found[1].endswith("_") and code_of(found[0]) == text:
                written = True  # an in-place method: copy_, fill_, index_copy_, ...
            out = keyword(node, "out")
            if out is not None and code_of(out.value) == text:
                written = True
        targets = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for element in _elements(target):
                if isinstance(element, cst.Subscript) and code_of(element.value) == text:
                    written = True
                if isinstance(node, cst.AugAssign) and code_of(element) == text:
                    written = True  # ``buf += x`` works in place on a tensor
    return written


def _rebinds(node: cst.CSTNode, text: str) -> bool:
    """Does ``node`` bind the name or attribute ``text`` afresh (``for x in loader``, ``x = ...``)?"""
    if isinstance(node, cst.For):
        targets = [node.target]
    elif isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, cst.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return False
    return any(code_of(element) == text for target in targets for element in _elements(target))


def _elements(target: cst.BaseExpression):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _elements(element.value)
    else:
        yield target



RULE = BlockingCopy
RULE.VALID = (
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)
model = model.to("cuda")                      # model move, outside the loop
for x, y in loader:
    x = x.to("cuda", non_blocking=True)
    y = y.cuda(non_blocking=True)
    model.to("cuda")                          # a model move, not a batch
""",
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=64, num_workers=4)   # not pinned: nothing to overlap
for x, y in loader:
    x = x.to("cuda")
""",
    """
import torch
from torch.utils.data import DataLoader
train_loader = DataLoader(train_ds, batch_size=32, num_workers=4, pin_memory=True)
eval_loader = DataLoader(eval_ds, batch_size=32, num_workers=4)
def evaluate(model, loader, device):
    for batch in loader:                      # only ever given eval_loader: not pinned
        batch = tuple(t.to(device) for t in batch)
        model(*batch)
def train(model, ema, device):
    for x, y in train_loader:
        x = x.to(device, non_blocking=True)
        model(x).sum().backward()
        ema.to(device)                        # a model move, not a batch
        index = torch.arange(4).to(device)    # not a batch (TPL101's case)
    evaluate(model, eval_loader, device)
""",
    """
import torch
from torch.utils.data import DataLoader
dl = DataLoader(ds, batch_size=32, pin_memory=True, num_workers=4)
dl = accelerator.prepare(dl)                  # accelerate places each batch on the device itself
for batch in dl:
    data = batch.to(device)
    accelerator.backward(model(data).mean())
""",
    """
import torch
from torch.utils.data import DataLoader
from data import build_eval_loader
train_loader = DataLoader(train_ds, batch_size=32, num_workers=4, pin_memory=True)
def evaluate(model, loader, device):
    for x, y in loader:                       # no call in this module says which loader: unknown
        model(x.to(device))
def test(model, device):
    for x, y in build_eval_loader():          # built elsewhere: its pinning is not known
        model(x.to(device))
""",
    """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=8, num_workers=4, pin_memory=True)
for batch in loader:
    images = batch["images"].half().cuda()   # .half() made a pageable copy: nothing to overlap
    model(images)
""",

)
RULE.INVALID = (
    """
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm
def run_epoch(model, optimizer, data, device, is_train):
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
    pbar = tqdm(enumerate(loader), total=len(loader)) if is_train else enumerate(loader)
    for it, (x, y) in pbar:                   # that loader's batches, wrapped or not
        x = x.to(device)  # TPL104
        model(x, y).backward()
        optimizer.step()
""",
    """
import torch
from torch.utils.data import DataLoader
device = torch.device("cuda")
loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)
for x, y in loader:
    x, y = x.to(device), y.cuda()  # TPL104
    loss = model(x).sum()
    loss.backward()
""",
    """
import torch
from torch.utils.data import DataLoader
class Trainer:
    def __init__(self, model, dataset, gpu_id):
        self.gpu_id = gpu_id
        self.model = model.to(gpu_id)
        self.train_data = DataLoader(dataset, batch_size=32, pin_memory=True, num_workers=2)
    def _run_epoch(self):
        for source, targets in self.train_data:
            source = source.to(self.gpu_id)  # TPL104
            targets = targets.to(self.gpu_id)  # TPL104
            self.model(source).sum().backward()
""",
    """
import torch
from torch.utils.data import DataLoader
test_loader = DataLoader(test_ds, batch_size=256, num_workers=4, pin_memory=True)
def evaluate(model, loader, device):
    for x, y in loader:                       # given test_loader, which pins memory
        out = model(x.to(device))  # TPL104
evaluate(model, test_loader, "cuda")
""",
    """
import torch
from torch.utils.data import DataLoader
def build(train_ds, val_ds):
    train_loader = DataLoader(train_ds, batch_size=32, num_workers=4, pin_memory=True)
    return train_loader, DataLoader(val_ds, batch_size=64, num_workers=4)
def evaluate(model, loader):
    for x, y in loader:                       # given an unpinned loader below
        model(x.cuda())
def main(model, optimizer, train_ds, val_ds, test_ds):
    train_dl, val_dl = build(train_ds, val_ds)
    for x, y in train_dl:                     # the first loader build() returns: pinned
        model(x.cuda()).sum().backward()  # TPL104
        optimizer.step()
    for x, y in val_dl:                       # the second: not pinned
        model(x.cuda())
    evaluate(model, DataLoader(test_ds, batch_size=64, num_workers=4))
""",
)
RULE.FIXES = (
    (
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, num_workers=2, pin_memory=True)\n"
        "for x in loader:\n    x = x.to(device)\n",
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, num_workers=2, pin_memory=True)\n"
        "for x in loader:\n    x = x.to(device, non_blocking=True)\n",
    ),
)
RULE.WHY = """\
A copy from pageable memory is synchronous. `pin_memory=True` makes the loader hand out page-locked
batches, which the GPU can read by DMA while it computes, but only if the copy is asked for with
`non_blocking=True`; without it the host still waits for every copy, and pinning bought nothing.

Only batches are checked: values taken from a loader made with `pin_memory=True` in the module
(followed through `enumerate`, `zip` (a name bound to a `zip` of loaders is pinned when every one
of them is), `iter`/`next` (also `iter(DataLoader(...))` kept on `self`), walrus bars
(`enumerate(pbar := tqdm(loader))`), tuple unpacking, loaders returned by the module's functions,
loaders passed as arguments, and items of a dict or list the module fills only with pinned
loaders), moved in a step loop; PyTorch Geometric's `DataLoader` pins as torch's does. Pinning is a
fact of the loader the loop iterates: a loop over a loader whose making the module does not show
(a parameter no call of the module fills) is not checked, even when the module's other loaders
pin memory or bind the same name; a name the module binds to pinned and other loaders is read by
the `DataLoader(..., pin_memory=True)` the loop's own function made. Moves of models and other tensors, and
batches of unpinned loaders or of loaders that place batches on the device themselves
(`accelerator.prepare`), are not. A batch, or a field of one (`batch[0]`), that the loop hands to a
function of the module is pinned there too when every call of that function the project shows
hands one (`self.learning_step(data)` moving the fields of `data`)."""
RULE.EXAMPLE = "for x, y in loader:  # DataLoader(..., pin_memory=True)\n    x, y = x.to(device), y.to(device)"
RULE.USE_INSTEAD = "for x, y in loader:\n    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)"
RULE.FIX_NOTE = """\
Safe when all of these hold, which the fix checks: the copy is ordered on the current stream
before any kernel that reads it, and a batch from the loader is a fresh tensor each step.

- Offered as unsafe when the module defines a class with a `to(...)` or `cuda(...)` method that
  takes no `non_blocking` argument (`def to(self, device)`, no `**kwargs`): the batch may be one
  (a custom `collate_fn`), and `batch.to(device, non_blocking=True)` then raises TypeError.
  Classes defined in other modules of the project are not seen.
- Offered as unsafe when a side stream takes part, the copy running inside
  `with torch.cuda.stream(s):` (or `with s:` for a stream `s`) or the function running work on one
  (which may read the copied tensor), and the function never waits on a stream or event
  (`wait_stream`, `wait_event`, `synchronize`, `record_stream`): a blocking copy is finished when
  it returns, a non-blocking one may still be in flight when the other stream reads the tensor.
- Not offered when the copied tensor is a staging buffer that the loop refills
  (`buf.copy_(batch)`, `buf[:n] = x`, `out=buf`): with `non_blocking=True` the next refill can
  overwrite the host memory while the device is still reading it (keep the copy blocking, or
  double-buffer and record an event per buffer)."""
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html",
    "https://pytorch.org/docs/stable/notes/cuda.html#use-pinned-memory-buffers",
)
