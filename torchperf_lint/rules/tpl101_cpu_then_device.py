"""TPL101 cpu-then-device: a tensor built on the CPU by a torch factory, then moved to the device."""

from __future__ import annotations

import libcst as cst

from ..catalog import SAFE, UNSAFE
from ..edits import add_keyword
from ..findings import RuleFix
from ..syntax import has_splat, is_literal_data, keyword, method_call, move_target, positional
from ..walker import Rule

DETERMINISTIC = frozenset(
    "tensor as_tensor zeros ones empty full arange linspace logspace eye".split()
)
RANDOM = frozenset("rand randn randint randperm normal".split())
_FACTORIES = {f"torch.{name}": name for name in DETERMINISTIC | RANDOM}
# Keywords after which creating on the device is not the same tensor: a leaf that requires grad
# would become a different leaf, pinned memory cannot be on the device, ``out=`` writes elsewhere.
_UNSAFE_FACTORY_KEYWORDS = frozenset(("requires_grad", "pin_memory", "out", "generator"))


class CpuThenDevice(Rule):
    code = "TPL101"
    message = (
        "tensor is created on the CPU and then copied to the device; pass `device=` to "
        "`torch.{factory}(...)` to create it there (runtime_guard: device-native creation)"
    )
    prefilter = (
        r"\.(?:cuda|to)\(",
        r"\b(?:tensor|as_tensor|zeros|ones|empty|full|arange|linspace|logspace|eye|rand\w*|normal)\(",
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] not in ("cuda", "to"):
            return
        factory = found[0]
        if not isinstance(factory, cst.Call):
            return
        name = _FACTORIES.get(self.ctx.qualname(factory.func) or "")
        if name is None or keyword(factory, "device") is not None or has_splat(factory):
            return
        if name in ("tensor", "as_tensor"):
            data = positional(factory)
            # tensor(x) of data that already lives on the host is a copy either way.
            if not data or not is_literal_data(data[0].value):
                return
        if move_target(node, self.ctx) != "accelerator":
            return
        self.report(factory, self.message.format(factory=name), self._fix(node, factory, name))

    @staticmethod
    def _fix(move: cst.Call, factory: cst.Call, name: str):
        method = move.func.attr.value
        extra = [a for a in move.args if not (a.keyword is not None and a.keyword.value == "non_blocking")]
        if has_splat(move) or any(a.keyword is not None and a.keyword.value in _UNSAFE_FACTORY_KEYWORDS
                                  for a in factory.args):
            return None
        if method == "cuda":
            if not extra:
                device = cst.SimpleString('"cuda"')
            elif len(extra) == 1 and (extra[0].keyword is None or extra[0].keyword.value == "device"):
                device = extra[0].value
            else:
                return None
        else:
            if len(extra) != 1 or (extra[0].keyword is not None and extra[0].keyword.value != "device"):
                return None  # .to(device, dtype) or .to(..., copy=True): more than a move
            device = extra[0].value
        fixed = add_keyword(factory, "device", device)
        # Another device draws other random numbers, and leaves the CPU generator where it was.
        applicability = UNSAFE if name in RANDOM else SAFE
        return RuleFix(applicability, f"create the tensor with device={cst.Module([]).code_for_node(device)}",
                       [(move, fixed)])


RULE = CpuThenDevice
RULE.VALID = (
    """
import numpy as np
import torch
device = torch.device("cuda")
a = torch.zeros(3, device=device)
b = torch.from_numpy(np.ones(3)).to(device)
c = torch.tensor(np_array).cuda()          # data already on the host
d = torch.ones(3).to(torch.float16)        # dtype only
e = torch.ones(3).cpu()
f = torch.ones(3).to("cpu")
g = torch.zeros(3, **opts).cuda()          # device may be in opts
""",
    """
import torch
class Cache:
    def zeros(self, n):
        return [0] * n
cache = Cache()
x = cache.zeros(3).to(device)              # not torch.zeros
""",
)
RULE.INVALID = (
    """
import torch
device = torch.device("cuda")
x = torch.zeros(8, 8).to(device)  # TPL101
y = torch.tensor([1.0, 2.0]).cuda()  # TPL101
z = torch.randn(4, 4).to(device="cuda:0")  # TPL101
""",
    """
import torch as T
def batch_mask(n, like):
    return T.ones(n, dtype=T.bool).to(like.device, non_blocking=True)  # TPL101
""",
)
RULE.FIXES = (
    (
        "import torch\nx = torch.zeros(8, 8).to(device)\ny = torch.arange(4).cuda(non_blocking=True)\n",
        "import torch\nx = torch.zeros(8, 8, device=device)\ny = torch.arange(4, device=\"cuda\")\n",
    ),
)
RULE.WHY = """\
A factory without `device=` allocates and fills the tensor in host memory; the move then allocates
it again on the device and copies it over PCIe, a synchronous copy from pageable memory. Created on
the device, the tensor is filled there by a kernel with no copy at all. In a training step this
turns a host allocation, a fill and a blocking copy into one asynchronous kernel launch."""
RULE.EXAMPLE = "mask = torch.ones(n, n).tril().to(device)\nnoise = torch.randn(batch, dim).cuda()"
RULE.USE_INSTEAD = "mask = torch.ones(n, n, device=device).tril()\nnoise = torch.randn(batch, dim, device=\"cuda\")"
RULE.FIX_NOTE = """\
Safe for deterministic factories (`zeros`, `ones`, `full`, `arange`, `tensor([...])`…) when the move
has no keyword but `non_blocking`. Unsafe for random factories (`rand*`, `normal`): another device
draws other numbers and leaves the CPU generator where it was, so later CPU draws change."""
RULE.REFERENCES = (
    "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#create-tensors-directly-on-the-target-device",
)
