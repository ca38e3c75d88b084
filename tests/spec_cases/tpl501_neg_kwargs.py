# codes: TPL501
import torch

kwargs = {"num_workers": args.workers, "pin_memory": True} if use_cuda else {}
train_loader = torch.utils.data.DataLoader(
    train_dataset,
    batch_size=args.batch_size,
    sampler=train_sampler,
    **kwargs
)
