# codes: TPL204
import torch

loader = torch.utils.data.DataLoader(
    ds,
    batch_size=64,
    sampler=torch.utils.data.distributed.DistributedSampler(ds),  # expect: TPL204
)
