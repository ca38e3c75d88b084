"""A DataParallel script whose OneCycleLR is sized by len(loader), run under torchrun by the tests.

``TWIN=1``: the hand-written DDP twin (DistributedSampler, DDP, the schedule sized by the sharded
loader). Writes the steps run and the scheduler's plan to $OUT_DIR/rank{RANK}[-twin].pt."""
import os
import sys

if os.environ.get("TWIN") != "1":
    import runtime_guard  # noqa: F401  (installs the guard)
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

N, BATCH, EPOCHS = 54, 2, 2


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(N, 4, generator=g), torch.randn(N, 1, generator=g))
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    twin = os.environ.get("TWIN") == "1"
    if twin:
        import torch.distributed as dist
        from torch.utils.data.distributed import DistributedSampler

        dist.init_process_group("gloo")
        sampler = DistributedSampler(data, shuffle=True, seed=0)
        loader = DataLoader(data, batch_size=BATCH, sampler=sampler)
        model = nn.parallel.DistributedDataParallel(net)
    else:
        loader = DataLoader(data, batch_size=BATCH, shuffle=True)
        model = nn.DataParallel(net)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, epochs=EPOCHS,
                                                steps_per_epoch=len(loader))
    steps, lrs = 0, []
    for epoch in range(EPOCHS):
        if twin:
            sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            lrs.append(opt.param_groups[0]["lr"])
            sched.step()
            steps += 1
    events = []
    if not twin:
        events = [(e.code, e.action, e.detail) for e in runtime_guard.report()]
    out = {"steps": steps, "planned": sched.total_steps, "lrs": lrs, "events": events,
           "type": type(model).__name__}
    suffix = "-twin" if twin else ""
    torch.save(out, os.path.join(os.environ["OUT_DIR"], f"rank{os.environ['RANK']}{suffix}.pt"))
    if twin:
        # The hand-written twin made its process group, so it tears it down, as a DDP script does,
        # and lets gloo's threads finish before the interpreter exits (see _clean_exit).
        from _clean_exit import destroy_group_and_settle
        destroy_group_and_settle()


if __name__ == "__main__":
    sys.exit(main())
