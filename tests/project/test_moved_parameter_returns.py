"""online-continual-learning (holdout147): ``utils.maybe_cuda(what)`` binds ``what = what.cuda()``
when CUDA is there and returns ``what``; ``get_grad_vector`` builds its buffer with
``maybe_cuda(torch.Tensor(n))``. What such a helper returns is its tensor argument moved to the
device: at a call handed a tensor it is a device tensor, and ``max(...)`` of what a cosine
similarity computes from two of them compares device values (R122). Handed a model or anything not
known to be a tensor, nothing is known."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write

MAX = SYNC.format(what="builtin `max()` of tensors")

UTILS = """
    import torch


    def maybe_cuda(what, use_cuda=True, **kw):
        if use_cuda is not False and torch.cuda.is_available():
            what = {move}
        return what


    def cosine_similarity(x1, x2):
        return torch.mm(x1, x2.t()) / (x1.norm(dim=1, keepdim=True) * x2.norm(dim=1, keepdim=True).t())
"""
TRAIN = """
    import torch
    import torch.nn.functional as F
    from utils import cosine_similarity, maybe_cuda


    def grad_vector(n):
        grads = maybe_cuda({made})
        grads.fill_(0.0)
        return grads


    def train(model, loader, opt, n):
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            mem_grads = maybe_cuda(torch.zeros(4, n))
            this_grad = grad_vector(n).unsqueeze(0)
            best = max(cosine_similarity(this_grad, this_grad))
            other = max(cosine_similarity(mem_grads, mem_grads))
            opt.step()
"""


def _project(root, move="what.cuda()", made="torch.Tensor(n)"):
    write(root, {"pyproject.toml": "", "utils.py": UTILS.replace("{move}", move),
                 "train.py": TRAIN.replace("{made}", made)})
    return findings(root, "train.py")


def test_a_tensor_moved_by_a_maybe_cuda_helper_is_on_the_device(tmp_path):
    """The buffer a legacy constructor makes (a CPU tensor, as value flow reads it) and a factory's
    zeros, each handed to ``maybe_cuda``: both on the device."""
    assert _project(tmp_path) == [("TPL102", 19, 15, MAX), ("TPL102", 20, 16, MAX)]


def test_a_move_by_to_and_a_factory_buffer_read_the_same(tmp_path):
    assert _project(tmp_path, move="what.to('cuda')", made="torch.zeros(n)") == [
        ("TPL102", 19, 15, MAX), ("TPL102", 20, 16, MAX)]


def test_a_helper_that_moves_something_else_or_nothing_says_nothing(tmp_path):
    """``what = other.cuda()`` is no move of the argument; without a move the argument comes back as
    it is (unknown origin: ``max`` of it is not reported)."""
    assert _project(tmp_path, move="torch.zeros(3).cuda()") == []
    assert _project(tmp_path, move="what") == []
