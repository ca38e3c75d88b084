# codes: TPL205
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def setup(model):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = model.to(rank)
    return DistributedDataParallel(model, device_ids=[rank], find_unused_parameters=True)  # expect: TPL205
