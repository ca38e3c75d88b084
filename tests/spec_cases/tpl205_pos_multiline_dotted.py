# codes: TPL205
import torch

model = torch.nn.parallel.DistributedDataParallel(  # expect: TPL205
    model,
    device_ids=[args.local_rank],
    output_device=args.local_rank,
    find_unused_parameters=True,
)
