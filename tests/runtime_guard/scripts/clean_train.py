"""A clean CPU training run (nothing to fix but the loader); saves the final parameters.

Run with and without the guard: the parameters must be bit-identical.
"""
import sys
import time

import runtime_guard  # noqa: F401
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Decoded(Dataset):
    """Samples that cost something to make, so the guard gives the loader workers."""

    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(48, 3, 8, 8, generator=g)
        self.y = torch.randint(0, 4, (48,), generator=g)

    def __len__(self):
        return 48

    def __getitem__(self, i):
        time.sleep(0.0002)
        return self.x[i], self.y[i]


def main(out):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)
    loader = DataLoader(Decoded(), batch_size=8, shuffle=True)
    for epoch in range(3):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    torch.save({"state": model.state_dict(), "after": torch.rand(4),
                "workers": loader.num_workers}, out)


if __name__ == "__main__":
    main(sys.argv[1])
