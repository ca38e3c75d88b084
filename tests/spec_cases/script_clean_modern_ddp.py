# codes: TPL101,TPL102,TPL103,TPL104,TPL201,TPL202,TPL203,TPL204,TPL205,TPL206,TPL301,TPL302,TPL303,TPL304,TPL305,TPL401,TPL501,TPL502,TPL503,TPL601,TPL602
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


@torch.inference_mode()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros((), device=device)
    for x, y in loader:
        out = model(x.to(device, non_blocking=True))
        correct += (out.argmax(1) == y.to(device, non_blocking=True)).sum()
    return correct.item()


def main(train_set, val_loader, epochs):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    model = nn.Sequential(
        nn.Conv2d(3, 32, 3),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, 10),
    )
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")

    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=64, sampler=sampler, num_workers=8, pin_memory=True, drop_last=True)

    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        total = torch.zeros((), device=device)
        for step, (x, y) in enumerate(loader):
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            total += loss.detach()
            if step % 100 == 0:
                print(f"step {step}: {loss.item():.4f}")
        print(f"epoch {epoch}: {total.item() / len(loader):.4f}")
        evaluate(model, val_loader, device)


if __name__ == "__main__":
    main(None, None, 1)
