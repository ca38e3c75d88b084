# codes: TPL205
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

ddp_kwargs = dict(find_unused_parameters=True)
a = DDP(model_a, device_ids=[0], find_unused_parameters=args.find_unused)
b = DDP(model_b, device_ids=[0], **ddp_kwargs)
