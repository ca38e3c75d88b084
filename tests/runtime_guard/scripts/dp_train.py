"""A single-process DataParallel training script, run under torchrun by the tests.

It never mentions distributed training: the guard must turn it into DDP with sharded data.
Writes what each rank saw to $OUT_DIR/rank{RANK}.pt.
"""
import os
import sys

import runtime_guard  # noqa: F401  (installs the guard)
import torch
from torch import nn
from torch.nn import DataParallel as DP  # an alias: the guard must catch it anyway
from torch.utils.data import DataLoader, Dataset

N = 24


class Indexed(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(N, 4, generator=g)
        self.y = torch.randn(N, 1, generator=g)

    def __len__(self):
        return N

    def __getitem__(self, i):
        return self.x[i], self.y[i], i


def main():
    torch.manual_seed(int(os.environ.get("RANK", "0")))  # replicas start different on purpose
    model = DP(nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train = DataLoader(Indexed(), batch_size=4, shuffle=True, drop_last=True)
    evaluate = DataLoader(Indexed(), batch_size=5)
    seen = []
    for epoch in range(3):
        model.train()
        order = []
        for x, y, idx in train:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            order += idx.tolist()
        seen.append(order)
    model.eval()
    eval_seen = []
    with torch.no_grad():
        for x, y, idx in evaluate:
            model(x)
            eval_seen += idx.tolist()
    out = {
        "type": type(model).__name__,
        "is_ddp": isinstance(model, nn.parallel.DistributedDataParallel),
        "is_dp": isinstance(model, nn.DataParallel),
        "keys": list(model.state_dict().keys()),
        "params": [p.detach().clone() for p in model.parameters()],
        "seen": seen,
        "eval_seen": eval_seen,
        "train_len": len(train),
        "events": [(e.code, e.action, e.location, e.detail) for e in runtime_guard.report()],
        "state_dict": model.state_dict(),
    }
    torch.save(out, os.path.join(os.environ["OUT_DIR"], f"rank{os.environ.get('RANK', '0')}.pt"))


if __name__ == "__main__":
    sys.exit(main())
