# codes: TPL101,TPL102,TPL103,TPL104,TPL201,TPL202,TPL203,TPL204,TPL205,TPL206,TPL301,TPL302,TPL303,TPL304,TPL401,TPL501,TPL502,TPL601,TPL602
import argparse
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision
from torch.cuda.amp import autocast, GradScaler  # expect: TPL304
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=0)  # expect: TPL206
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--batch-size", type=int, default=256)
args = parser.parse_args()

torch.cuda.set_device(args.local_rank)
dist.init_process_group(backend="nccl")
device = torch.device("cuda", args.local_rank)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(64, 1000)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


model = Net().to(device)
model = nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank], find_unused_parameters=True)  # expect: TPL202,TPL205

train_set = torchvision.datasets.ImageFolder("/data/train", transform=torchvision.transforms.ToTensor())
train_sampler = DistributedSampler(train_set)  # expect: TPL204
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=8, pin_memory=True)
criterion = nn.CrossEntropyLoss().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scaler = GradScaler()
torch.backends.cudnn.benchmark = True

for epoch in range(args.epochs):
    model.train()
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        images = images.cuda(args.local_rank)  # expect: TPL104
        target = target.cuda(args.local_rank, non_blocking=True)
        with autocast():
            output = model(images)
            loss = criterion(output, target)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if i % 10 == 0:
            print(f"epoch {epoch} iter {i} loss {loss.item():.3f} time {time.time() - end:.2f}")
        end = time.time()
