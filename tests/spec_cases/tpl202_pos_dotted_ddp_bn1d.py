# codes: TPL202
import torch

head = torch.nn.Sequential(
    torch.nn.Linear(512, 256),
    torch.nn.BatchNorm1d(256),
    torch.nn.ReLU(),
)
head = torch.nn.parallel.DistributedDataParallel(  # expect: TPL202
    head.cuda(),
    device_ids=[rank],
)
