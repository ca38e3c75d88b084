# codes: TPL205
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[local_rank], find_unused_parameters=True)  # expect: TPL205
