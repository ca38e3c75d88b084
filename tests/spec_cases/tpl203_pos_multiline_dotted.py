# codes: TPL203
import torch

train_loader = torch.utils.data.DataLoader(  # expect: TPL203
    train_dataset,
    batch_size=args.batch_size,
    shuffle=True,
    sampler=torch.utils.data.RandomSampler(train_dataset, replacement=True),
)
