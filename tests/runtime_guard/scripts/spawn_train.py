"""Two ranks started by torch.multiprocessing.spawn (gloo on CPU), as scripts written before
torchrun do it. The script never imports runtime_guard: the tests run it under
``python -m runtime_guard``, whose ranks must be guarded too. Each rank prints whether it is."""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def worker(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    torch.autograd.set_detect_anomaly(True)  # left on: the guard observes it (TPL603)
    model = nn.parallel.DistributedDataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 4)
    for _ in range(3):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    guard = sys.modules.get("runtime_guard")
    line = f"rank {rank} guard {'on' if guard is not None and guard.GUARD.installed else 'off'}\n"
    sys.stdout.flush()
    os.write(1, line.encode())  # one write: both ranks share the pipe
    from _clean_exit import destroy_group_and_settle  # here: the line numbers above are asserted
    destroy_group_and_settle()


if __name__ == "__main__":
    mp.spawn(worker, args=(2, int(sys.argv[1])), nprocs=2)
