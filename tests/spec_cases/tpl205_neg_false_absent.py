# codes: TPL205
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

a = DDP(model_a, device_ids=[0], find_unused_parameters=False)
b = DDP(model_b, device_ids=[0])
