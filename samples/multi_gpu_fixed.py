"""Multi-GPU training done the modern way: torchrun, DDP with SyncBatchNorm, set_epoch, no_sync()
while gradients accumulate, and no conv bias in front of BatchNorm."""
import argparse
import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()


def build_model():
    return nn.Sequential(nn.Conv2d(3, 16, 3, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))


def main():
    # launched with: torchrun --nproc_per_node=NUM_GPUS multi_gpu_fixed.py
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dataset = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(build_model()).cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.set_float32_matmul_precision("high")  # TF32 tensor cores for the float32 matmuls
    accum_steps = 4
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(loader):
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            stepping = (i + 1) % accum_steps == 0
            # Only the backward pass before a step all-reduces the gradients.
            with contextlib.nullcontext() if stepping else model.no_sync():
                loss = nn.functional.cross_entropy(model(x), y) / accum_steps
                loss.backward()
            if stepping:
                optimizer.step()
                optimizer.zero_grad()


if __name__ == "__main__":
    main()
