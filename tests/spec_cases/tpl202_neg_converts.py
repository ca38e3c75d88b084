# codes: TPL202
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

model = nn.Sequential(nn.Conv2d(3, 32, 3), nn.BatchNorm2d(32), nn.ReLU())
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
model = DDP(model.cuda(), device_ids=[local_rank])
