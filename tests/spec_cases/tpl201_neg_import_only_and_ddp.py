# codes: TPL201
import torch
from torch.nn import DataParallel
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model.cuda(), device_ids=[local_rank])
