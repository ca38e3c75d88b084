"""DataParallel scripts that broke the guard's DDP conversion, run under torchrun by the tests.

``CASE=unused``: the whole model is wrapped, one branch never gets a gradient.
``CASE=manual``: ``unused`` with the parameters updated by hand (no torch.optim step for the
guard to check before).
``CASE=nobackward``: like ``unused`` without the unused head, plus a training-mode forward whose
output is never backpropagated (an extra forward for logging).
``CASE=fp16``: the whole model is wrapped and trained under float16 autocast without a GradScaler,
with two losses per step (``loss_a.backward(retain_graph=True); loss_b.backward()``) of ~1e-8
each: without correct loss scaling every gradient is zero or wrong.
``CASE=submodule``: only ``model.features`` is wrapped (the imagenet example's alexnet/vgg path);
the classifier is trained by the same optimizer outside DataParallel. The training loader is first
used for a validation pass under eval()/no_grad. Ranks start from different seeds on purpose.
Writes what each rank saw and ended with to $OUT_DIR/rank{RANK}.pt, and the checkpoints the
script saves the way scripts do.
"""
import os
import sys

import runtime_guard  # noqa: F401  (installs the guard)
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

N = 16
CASE = os.environ.get("CASE", "unused")


class Indexed(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(N, 4, generator=g)
        self.y = torch.randn(N, 1, generator=g)

    def __len__(self):
        return N

    def __getitem__(self, i):
        return self.x[i], self.y[i], i


# The network lives in a module (as a user's model would), so torch.save(model) can be loaded
# in another process.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from dp_invariants_helpers import TwoHeads  # noqa: E402


TINY = 1e-8


def build():
    if CASE in ("unused", "manual"):
        return nn.DataParallel(TwoHeads())
    if CASE == "nobackward":
        return nn.DataParallel(nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1)))
    if CASE == "fp16":
        return nn.DataParallel(nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1)))
    model = nn.Sequential()
    model.features = nn.Sequential(nn.Linear(4, 6), nn.Tanh())
    model.classifier = nn.Linear(6, 1)
    model.features = nn.DataParallel(model.features)
    return model


def main():
    rank = os.environ.get("RANK", "0")
    torch.manual_seed(int(rank))  # replicas start different on purpose
    model = build()
    lr = 1e6 if CASE == "fp16" else 0.1
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    train = DataLoader(Indexed(), batch_size=4, shuffle=False)
    start = [p.detach().clone() for p in model.parameters()]
    val_seen = []
    if CASE == "submodule":
        model.eval()
        with torch.no_grad():  # an initial validation pass over the training loader
            for x, y, idx in train:
                model(x)
                val_seen += idx.tolist()
    steps, grads = [], []
    for epoch in range(2):
        model.train()
        for x, y, idx in train:
            opt.zero_grad()
            if CASE == "fp16":
                with torch.autocast("cpu", dtype=torch.float16):
                    out = model(x).float()
                    loss_a = nn.functional.mse_loss(out, y) * TINY
                    loss_b = out.abs().mean() * TINY
                loss_a.backward(retain_graph=True)
                loss_b.backward()
                grads.append([p.grad.clone() for p in model.parameters()])
            else:
                if CASE == "nobackward" and not steps:
                    model(x)  # a forward for logging, never backpropagated
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
            if CASE == "manual":
                with torch.no_grad():
                    for p in model.parameters():
                        if p.grad is not None:
                            p.add_(p.grad, alpha=-0.1)
            else:
                opt.step()
            steps.append(idx.tolist())
    out_dir = os.environ["OUT_DIR"]
    bare = model.module if isinstance(model, nn.DataParallel) else model
    if CASE == "submodule":
        torch.save(model.features.module.state_dict() if isinstance(
            model.features, nn.DataParallel) else model.features.state_dict(),
            os.path.join(out_dir, f"features{rank}.pt"))
    torch.save(bare.state_dict(), os.path.join(out_dir, f"bare{rank}.pt"))
    torch.save(model, os.path.join(out_dir, f"whole{rank}.pt"))
    torch.save({
        "type": type(model).__name__,
        "inner_type": type(model.features).__name__ if CASE == "submodule" else "",
        "start": start,
        "params": [p.detach().clone() for p in model.parameters()],
        "steps": steps,
        "grads": grads,
        "val_seen": val_seen,
        "events": [(e.code, e.action, e.location, e.detail) for e in runtime_guard.report()],
    }, os.path.join(out_dir, f"rank{rank}.pt"))


if __name__ == "__main__":
    main()
