# codes: TPL205
"""Pass find_unused_parameters=True only when needed."""
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

# model = DDP(model, find_unused_parameters=True)
help_text = "DDP(model, find_unused_parameters=True)"
model = DDP(model, device_ids=[0])
