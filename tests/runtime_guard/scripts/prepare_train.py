"""An explicit prepare() call under torchrun with RUNTIME_GUARD=off (no import-time patching)."""
import gc
import os

import runtime_guard
import torch
from torch import nn
from torch.optim import optimizer as optimizer_module
from torch.utils.data import DataLoader, Dataset


class Indexed(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torch.full((3,), float(i)), i


def main():
    patched = runtime_guard.GUARD.installed or (
        nn.DataParallel.__init__.__module__ != "torch.nn.parallel.data_parallel")
    torch.manual_seed(int(os.environ["RANK"]))
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Indexed(), batch_size=2, shuffle=True)
    hooks_before = len(optimizer_module._global_optimizer_pre_hooks)
    model, opt, loader = runtime_guard.prepare(model, opt, loader, mode="fix")
    seen = []
    for epoch in range(2):
        order = []
        for x, idx in loader:
            model(x).sum().backward()
            opt.step()
            opt.zero_grad()
            order += idx.tolist()
        seen.append(order)
    kind = type(model).__name__
    params = [p.detach().clone() for p in model.parameters()]
    hooks_while_trained = len(optimizer_module._global_optimizer_pre_hooks) - hooks_before
    del model, opt
    gc.collect()
    hooks_after = len(optimizer_module._global_optimizer_pre_hooks) - hooks_before
    torch.save({"type": kind, "patched": patched, "seen": seen, "params": params,
                "hooks": (hooks_while_trained, hooks_after)},
               os.path.join(os.environ["OUT_DIR"], f"rank{os.environ['RANK']}.pt"))


if __name__ == "__main__":
    main()
