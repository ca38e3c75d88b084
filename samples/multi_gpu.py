"""Multi-GPU training with the legacy pitfalls (TPL201-TPL207), and a conv bias BatchNorm cancels (TPL605)."""
import argparse

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=0)
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()


def build_model():
    return nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(args.local_rank)
    dataset = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, shuffle=True, num_workers=4, pin_memory=True)
    model = DDP(build_model().cuda(), device_ids=[args.local_rank], find_unused_parameters=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    accum_steps = 4
    for epoch in range(args.epochs):
        for i, (x, y) in enumerate(loader):
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = nn.functional.cross_entropy(model(x), y) / accum_steps
            loss.backward()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()


def single_node_fallback():
    model = nn.DataParallel(build_model()).cuda()
    return model


if __name__ == "__main__":
    main()
