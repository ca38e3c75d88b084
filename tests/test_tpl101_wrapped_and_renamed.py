"""TPL101 through a wrapper and through a name (2026-11-26 night, the lead; found on holdout8's CLMR
``sinc_net.py`` and holdout9's a2c-ppo-acktr-gail ``gail.py``, tuned there): since torch 0.4
``Variable(t)`` hands back ``t`` itself, so ``Variable(torch.ones(1)).cuda()`` creates on the CPU
and copies, as ``torch.ones(1).cuda()`` does; and ``alpha = torch.rand(n, 1)`` ...
``alpha = alpha.expand_as(x).to(x.device)`` is the two-statement form of the same pitfall with
ops that keep the tensor fresh between (``expand_as``/``view_as``/``reshape_as`` keep its device)."""

from torchperf_lint.engine import lint_source

SOURCE = """\
import torch
from torch.autograd import Variable


def sinc(band):
    ones = Variable(torch.ones(1)).cuda()
    grid = torch.autograd.Variable(torch.linspace(0, 1, 5) / 16000).cuda()
    leaf = Variable(torch.zeros((4, 5)), requires_grad=True).cuda()
    kept = Variable(band).cuda()
    return ones, grid, leaf, kept
"""

SHADOWED = """\
import torch


class Variable:
    def __init__(self, value):
        self.value = value

    def cuda(self):
        return self


def f():
    return Variable(torch.ones(1)).cuda()
"""


def _message(factory):
    return (f"tensor is created on the CPU and then copied to the device; pass `device=` to "
            f"`torch.{factory}(...)` to create it there (runtime_guard: device-native creation)")


def _found(source):
    return [(f.code, f.line, f.col, f.message, f.fix) for f in lint_source(source, "sinc.py", codes=("TPL101",))]


def test_a_factory_wrapped_in_variable_then_moved_is_reported_without_a_fix():
    """Reported at the factory; no autofix (the wrapper is in the way, as other ops between the
    factory and the move are). A ``Variable(..., requires_grad=True)`` is a new leaf and a
    ``Variable`` of a value of unknown origin holds no fresh factory: silent."""
    assert _found(SOURCE) == [
        ("TPL101", 6, 20, _message("ones"), None),
        ("TPL101", 7, 35, _message("linspace"), None),
    ]


def test_a_project_class_named_variable_is_not_torch():
    assert _found(SHADOWED) == []


RENAMED = """\
import torch


def grad_pen(expert, policy):
    alpha = torch.rand(expert.size(0), 1)
    data = torch.cat([expert, policy], dim=1)
    alpha = alpha.expand_as(data).to(data.device)
    beta = torch.rand(expert.size(0), 1)
    beta[0] = 1.0
    beta = beta.expand_as(data).to(data.device)
    gamma = torch.rand(expert.size(0), 1)
    kept = gamma.view_as(expert).to(expert.device)
    return alpha, beta, kept, gamma
"""


def test_a_factory_moved_later_after_ops_that_keep_it_fresh_is_reported_at_the_factory():
    """``alpha`` is rebound to its own moved, expanded self: reported at the factory, no fix (the
    creation and the move are apart). ``beta`` is written on the host first, and ``gamma`` is
    kept under its own name next to the moved copy: silent."""
    assert _found(RENAMED) == [("TPL101", 5, 12, _message("rand"), None)]


CHOSEN = """\
import torch


def get_prompt(prefix_len, bsz):
    tokens = torch.arange(prefix_len).long().unsqueeze(0).expand(bsz, -1)
    tokens = tokens.to("cuda") if torch.cuda.is_available() else tokens.to("cpu")
    mask = torch.ones(bsz, prefix_len)
    mask = mask.cuda() if torch.cuda.is_available() else mask
    kept = torch.zeros(bsz)
    moved = kept.to("cuda") if torch.cuda.is_available() else kept
    return tokens, mask, moved, kept
"""


def test_a_name_rebound_to_its_own_move_under_a_conditional_expression_is_reported():
    """UnifiedSKG's ``input_tokens = input_tokens.to("cuda") if torch.cuda.is_available() else
    input_tokens.to("cpu")`` (holdout16, tuned there): the name is rebound to its own move on the
    branch that moves it, as ``x = x.to(device)`` is. A move bound to another name while the host
    tensor stays in use (``moved``/``kept``) is silent."""
    assert _found(CHOSEN) == [
        ("TPL101", 5, 13, _message("arange"), None),
        ("TPL101", 7, 11, _message("ones"), None),
    ]


VIEWS = """\
import torch


def featurize(x, n, bsz, rows):
    offsets = torch.arange(0, n)[None, :].repeat(bsz, 1).to(x.device)
    eye = torch.eye(n)[..., None].expand(n, n, 4).cuda()
    picked = torch.arange(0, n)[rows].cuda()
    return offsets, eye, picked
"""


def test_a_new_axis_or_a_full_slice_keeps_a_factory_fresh():
    """ByProt's ``torch.arange(0, n)[None, :].repeat(bsz, 1).to(device)`` (holdout18, tuned there):
    indexing with ``None``, ``...`` or a bare ``:`` is a view of the whole fresh tensor; no fix
    (ops stand between). Indexing with values (``[rows]``) picks data: silent."""
    assert _found(VIEWS) == [
        ("TPL101", 5, 14, _message("arange"), None),
        ("TPL101", 6, 10, _message("eye"), None),
    ]
