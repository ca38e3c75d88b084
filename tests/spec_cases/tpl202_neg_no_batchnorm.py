# codes: TPL202
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

model = nn.Sequential(nn.Linear(128, 128), nn.LayerNorm(128), nn.GELU()).cuda()
model = DDP(model, device_ids=[local_rank])
